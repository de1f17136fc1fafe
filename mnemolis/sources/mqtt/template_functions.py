"""The filters, functions and tests Home Assistant adds to Jinja2, as discovery payloads use them.

Home Assistant's template environment (``homeassistant/helpers/template.py``)
is Jinja2 plus its own filters and globals. Discovery configs from
zigbee2mqtt, Tasmota, ESPHome and friends lean on a small part of them:
``float``/``int``/``round`` with defaults, ``iif``, ``is_defined``,
``from_json``/``to_json``, ``min``/``max`` and a few more (the time ones are in
`template_time`, the ``regex_*`` ones in `template_regex`, and
`template_tables` names them all). They are written here with Home Assistant's semantics (a failed
conversion without a default is an error; ``round`` with precision 0 is an
int). Functions that need Home Assistant's state machine (``states()``,
``is_state()``, ``area_name()`` ...) do not exist here: `NEEDS_HOME_ASSISTANT`
names them, and a template using one is refused with that reason.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import statistics
import struct
from collections.abc import Callable, Iterable
from typing import Any

import jinja2

#: Home Assistant functions that read its state machine or registries.
NEEDS_HOME_ASSISTANT = frozenset(
    {
        "states",
        "is_state",
        "state_attr",
        "is_state_attr",
        "has_value",
        "expand",
        "closest",
        "distance",
        "device_id",
        "device_attr",
        "is_device_attr",
        "device_entities",
        "area_id",
        "area_name",
        "area_entities",
        "area_devices",
        "floor_id",
        "floor_name",
        "floor_areas",
        "label_id",
        "label_name",
        "label_entities",
        "integration_entities",
        "config_entry_id",
        "config_entry_attr",
        "this",
    }
)


class _Missing:
    """The "no default given" marker (Home Assistant's ``_SENTINEL``)."""


MISSING: Any = _Missing()


def no_default(name: str, value: Any) -> ValueError:
    return ValueError(f"{name} got invalid input {str(value)[:60]!r} and no default was specified")


# --------------------------------------------------------------------------- numbers


def to_float(value: Any, default: Any = MISSING) -> Any:
    try:
        return float(value)
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise no_default("float", value) from None
        return default


def to_int(value: Any, default: Any = MISSING, base: int = 10) -> Any:
    result = jinja2.filters.do_int(value, default=MISSING, base=base)
    if result is MISSING:
        if default is MISSING:
            raise no_default("int", value)
        return default
    return result


def to_bool(value: Any, default: Any = MISSING) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on", "enable"):
        return True
    if text in ("0", "false", "no", "off", "disable"):
        return False
    if default is MISSING:
        raise no_default("bool", value)
    return default


def is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        number = float(value)
    except (ValueError, TypeError, OverflowError):
        return False
    return math.isfinite(number)


def forgiving_round(
    value: Any, precision: int = 0, method: str = "common", default: Any = MISSING
) -> Any:
    try:
        number = float(value)
        factor = 10**precision
        if method == "ceil":
            number = math.ceil(number * factor) / factor
        elif method == "floor":
            number = math.floor(number * factor) / factor
        elif method == "half":
            number = round(number * 2) / 2.0
        else:
            number = round(number, precision)
        return int(number) if precision == 0 else number
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise no_default("round", value) from None
        return default


def math_function(name: str, function: Callable[[float], float]) -> Callable[..., Any]:
    def apply(value: Any, default: Any = MISSING) -> Any:
        try:
            return function(float(value))
        except (ValueError, TypeError, OverflowError):
            if default is MISSING:
                raise no_default(name, value) from None
            return default

    return apply


def multiply(value: Any, amount: Any, default: Any = MISSING) -> Any:
    try:
        return float(value) * amount
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise no_default("multiply", value) from None
        return default


def add(value: Any, amount: Any, default: Any = MISSING) -> Any:
    try:
        return float(value) + amount
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise no_default("add", value) from None
        return default


def logarithm(value: Any, base: float = math.e, default: Any = MISSING) -> Any:
    try:
        return math.log(float(value), float(base))
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        if default is MISSING:
            raise no_default("log", value) from None
        return default


def _numbers(values: tuple[Any, ...]) -> list[Any]:
    if len(values) == 1 and isinstance(values[0], Iterable) and not isinstance(values[0], str):
        return list(values[0])
    return list(values)


def forgiving_min(*values: Any, default: Any = MISSING) -> Any:
    items = _numbers(values)
    if not items:
        if default is MISSING:
            raise ValueError("min got an empty sequence and no default was specified")
        return default
    return min(items)


def forgiving_max(*values: Any, default: Any = MISSING) -> Any:
    items = _numbers(values)
    if not items:
        if default is MISSING:
            raise ValueError("max got an empty sequence and no default was specified")
        return default
    return max(items)


def statistic(name: str, function: Callable[[list[float]], float]) -> Callable[..., Any]:
    def apply(*values: Any, default: Any = MISSING) -> Any:
        try:
            return function([float(v) for v in _numbers(values)])
        except (ValueError, TypeError, statistics.StatisticsError):
            if default is MISSING:
                raise ValueError(f"{name} got invalid input and no default was specified") from None
            return default

    return apply


def bitwise_and(first: int, second: int) -> int:
    return int(first) & int(second)


def bitwise_or(first: int, second: int) -> int:
    return int(first) | int(second)


def bitwise_xor(first: int, second: int) -> int:
    return int(first) ^ int(second)


# --------------------------------------------------------------------------- values


def iif(value: Any, if_true: Any = True, if_false: Any = False, if_none: Any = MISSING) -> Any:
    if value is None and if_none is not MISSING:
        return if_none
    if isinstance(value, jinja2.Undefined):
        return if_false
    return if_true if bool(value) else if_false


def is_defined(value: Any) -> Any:
    if isinstance(value, jinja2.Undefined):
        value._fail_with_undefined_error()
    return value


def from_json(value: Any, default: Any = MISSING) -> Any:
    try:
        return json.loads(value)
    except (ValueError, TypeError, RecursionError):
        if default is MISSING:
            raise ValueError(f"from_json got invalid input {str(value)[:60]!r}") from None
        return default


def to_json(
    value: Any, ensure_ascii: bool = False, pretty_print: bool = False, sort_keys: bool = False
) -> str:
    """Home Assistant serialises with orjson: compact unless pretty."""
    if pretty_print:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=2, sort_keys=sort_keys)
    return json.dumps(
        value, ensure_ascii=ensure_ascii, separators=(",", ":"), sort_keys=sort_keys, default=str
    )


def ordinal(value: Any) -> str:
    number = int(value)
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}" + {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


def slugify(value: Any, separator: str = "_") -> str:
    text = re.sub(r"[^a-z0-9]+", separator, str(value).lower())
    return text.strip(separator)


def contains(container: Any, item: Any) -> bool:
    try:
        return item in container
    except TypeError:
        return False


def flatten(value: Iterable[Any], levels: int | None = None) -> list[Any]:
    out: list[Any] = []
    for item in value:
        if isinstance(item, list | tuple) and (levels is None or levels > 0):
            out.extend(flatten(item, None if levels is None else levels - 1))
        else:
            out.append(item)
    return out


def typeof(value: Any) -> str:
    return type(value).__name__


def ord_filter(value: Any) -> int:
    return ord(str(value))


def base64_encode(value: Any) -> str:
    data = value if isinstance(value, bytes) else str(value).encode()
    return base64.b64encode(data).decode()


def base64_decode(value: Any, encoding: str | None = "utf-8") -> Any:
    decoded = base64.b64decode(value)
    return decoded.decode(encoding) if encoding else decoded


def pack(value: Any, format_string: str) -> bytes | None:
    try:
        return struct.pack(format_string, value)
    except struct.error:
        return None


def unpack(value: Any, format_string: str, offset: int = 0) -> Any:
    try:
        return struct.unpack_from(format_string, value, offset)[0]
    except (struct.error, TypeError):
        return None


def digest(name: str) -> Callable[[Any], str]:
    def apply(value: Any) -> str:
        return hashlib.new(name, str(value).encode()).hexdigest()

    return apply
