"""The filters, functions and tests Home Assistant adds to Jinja2, as discovery payloads use them.

Home Assistant's template environment (``homeassistant/helpers/template.py``)
is Jinja2 plus its own filters and globals. Discovery configs from
zigbee2mqtt, Tasmota, ESPHome and friends lean on a small part of them:
``float``/``int``/``round`` with defaults, ``iif``, ``is_defined``,
``from_json``/``to_json``, ``regex_*``, ``min``/``max``, ``timestamp_*`` and a
few more. They are written here with Home Assistant's semantics (a failed
conversion without a default is an error; ``round`` with precision 0 is an
int). Functions that need Home Assistant's state machine (``states()``,
``is_state()``, ``area_name()`` ...) do not exist here: `NEEDS_HOME_ASSISTANT`
names them, and a template using one is refused with that reason.

Regular expressions come from the network, so each one is checked before
use: a repeat over a repeat or over alternatives longer than one character
(the shapes that backtrack exponentially) is refused, and the text searched
is bounded.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import math
import re
import statistics
import struct
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
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

REGEX_TEXT_MAX = 2048
REGEX_REPEATS_MAX = 2
REGEX_PATTERN_MAX = 512


class _Missing:
    """The "no default given" marker (Home Assistant's ``_SENTINEL``)."""


MISSING: Any = _Missing()


def _no_default(name: str, value: Any) -> ValueError:
    return ValueError(f"{name} got invalid input {str(value)[:60]!r} and no default was specified")


# --------------------------------------------------------------------------- numbers


def to_float(value: Any, default: Any = MISSING) -> Any:
    try:
        return float(value)
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise _no_default("float", value) from None
        return default


def to_int(value: Any, default: Any = MISSING, base: int = 10) -> Any:
    result = jinja2.filters.do_int(value, default=MISSING, base=base)
    if result is MISSING:
        if default is MISSING:
            raise _no_default("int", value)
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
        raise _no_default("bool", value)
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
            raise _no_default("round", value) from None
        return default


def _math(name: str, function: Callable[[float], float]) -> Callable[..., Any]:
    def apply(value: Any, default: Any = MISSING) -> Any:
        try:
            return function(float(value))
        except (ValueError, TypeError, OverflowError):
            if default is MISSING:
                raise _no_default(name, value) from None
            return default

    return apply


def multiply(value: Any, amount: Any, default: Any = MISSING) -> Any:
    try:
        return float(value) * amount
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise _no_default("multiply", value) from None
        return default


def add(value: Any, amount: Any, default: Any = MISSING) -> Any:
    try:
        return float(value) + amount
    except (ValueError, TypeError, OverflowError):
        if default is MISSING:
            raise _no_default("add", value) from None
        return default


def logarithm(value: Any, base: float = math.e, default: Any = MISSING) -> Any:
    try:
        return math.log(float(value), float(base))
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        if default is MISSING:
            raise _no_default("log", value) from None
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


def _statistic(name: str, function: Callable[[list[float]], float]) -> Callable[..., Any]:
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


def _digest(name: str) -> Callable[[Any], str]:
    def apply(value: Any) -> str:
        return hashlib.new(name, str(value).encode()).hexdigest()

    return apply


# --------------------------------------------------------------------------- time


def _local(moment: datetime) -> datetime:
    return moment.astimezone()


def now() -> datetime:
    return datetime.now().astimezone()


def utcnow() -> datetime:
    return datetime.now(UTC)


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.astimezone()
    if is_number(value):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.astimezone()
    return None


def as_datetime(value: Any, default: Any = MISSING) -> Any:
    moment = _moment(value)
    if moment is None:
        if default is MISSING:
            raise _no_default("as_datetime", value)
        return default
    return moment


def as_timestamp(value: Any, default: Any = MISSING) -> Any:
    moment = _moment(value)
    if moment is None:
        if default is MISSING:
            raise _no_default("as_timestamp", value)
        return default
    return moment.timestamp()


def as_local(value: datetime) -> datetime:
    return _local(value)


def timestamp_custom(
    value: Any, format_string: str = "%Y-%m-%d %H:%M:%S", local: bool = True, default: Any = MISSING
) -> Any:
    try:
        moment = datetime.fromtimestamp(float(value), UTC)
        return (_local(moment) if local else moment).strftime(format_string)
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise _no_default("timestamp_custom", value) from None
        return default


def timestamp_local(value: Any, default: Any = MISSING) -> Any:
    try:
        return _local(datetime.fromtimestamp(float(value), UTC)).isoformat()
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise _no_default("timestamp_local", value) from None
        return default


def timestamp_utc(value: Any, default: Any = MISSING) -> Any:
    try:
        return datetime.fromtimestamp(float(value), UTC).isoformat()
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise _no_default("timestamp_utc", value) from None
        return default


def strptime(value: str, format_string: str, default: Any = MISSING) -> Any:
    try:
        return datetime.strptime(value, format_string)
    except (ValueError, TypeError):
        if default is MISSING:
            raise _no_default("strptime", value) from None
        return default


# --------------------------------------------------------------------------- regular expressions


def _backtracks(pattern: str) -> bool:
    """True for the shapes that can backtrack without end: a repeat inside an
    unbounded repeat, alternatives longer than one character inside one, or
    more than `REGEX_REPEATS_MAX` unbounded repeats (each may multiply the work
    by the length of the text)."""
    sre: Any = importlib.import_module("re._parser")  # the parser re itself uses

    repeats = 0

    def ambiguous(items: Any) -> bool:
        for op, av in items:
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and (av[1] > 1 or ambiguous(av[2])):
                return True
            if op == sre.BRANCH and any(len(list(b)) > 1 or ambiguous(b) for b in av[1]):
                return True
            if op == sre.SUBPATTERN and ambiguous(av[-1]):
                return True
        return False

    def walk(items: Any) -> bool:
        nonlocal repeats
        for op, av in items:
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
                if av[1] == sre.MAXREPEAT:
                    repeats += 1
                    if ambiguous(av[2]):
                        return True
                if walk(av[2]):
                    return True
            elif (op == sre.SUBPATTERN and walk(av[-1])) or (
                op == sre.BRANCH and any(walk(b) for b in av[1])
            ):
                return True
        return repeats > REGEX_REPEATS_MAX

    return walk(sre.parse(pattern))


@lru_cache(maxsize=256)
def _compiled(pattern: str, ignorecase: bool) -> re.Pattern[str]:
    if len(pattern) > REGEX_PATTERN_MAX:
        raise ValueError(f"regular expression longer than {REGEX_PATTERN_MAX} characters")
    if _backtracks(pattern):
        raise ValueError(f"regular expression {pattern[:60]!r} may backtrack without end")
    return re.compile(pattern, re.IGNORECASE if ignorecase else 0)


def _text(value: Any) -> str:
    text = str(value)
    if len(text) > REGEX_TEXT_MAX:
        raise ValueError(f"text longer than {REGEX_TEXT_MAX} characters for a regular expression")
    return text


def regex_match(value: Any, find: str = "", ignorecase: bool = False) -> bool:
    return bool(_compiled(str(find), ignorecase).match(_text(value)))


def regex_search(value: Any, find: str = "", ignorecase: bool = False) -> bool:
    return bool(_compiled(str(find), ignorecase).search(_text(value)))


def regex_replace(
    value: Any = "", find: str = "", replace: str = "", ignorecase: bool = False
) -> str:
    text = _text(value)
    if len(text) * (len(str(replace)) + 1) > REGEX_TEXT_MAX * 16:
        raise ValueError("regex_replace would make too long a text")
    return _compiled(str(find), ignorecase).sub(str(replace), text)


def regex_findall(value: Any, find: str = "", ignorecase: bool = False) -> list[Any]:
    return _compiled(str(find), ignorecase).findall(_text(value))


def regex_findall_index(
    value: Any, find: str = "", index: int = 0, ignorecase: bool = False
) -> Any:
    return regex_findall(value, find, ignorecase)[index]


# --------------------------------------------------------------------------- the tables

FILTERS: dict[str, Callable[..., Any]] = {
    "float": to_float,
    "int": to_int,
    "bool": to_bool,
    "round": forgiving_round,
    "multiply": multiply,
    "add": add,
    "log": logarithm,
    "sqrt": _math("sqrt", math.sqrt),
    "sin": _math("sin", math.sin),
    "cos": _math("cos", math.cos),
    "tan": _math("tan", math.tan),
    "asin": _math("asin", math.asin),
    "acos": _math("acos", math.acos),
    "atan": _math("atan", math.atan),
    "is_number": is_number,
    "iif": iif,
    "is_defined": is_defined,
    "from_json": from_json,
    "to_json": to_json,
    "ordinal": ordinal,
    "slugify": slugify,
    "contains": contains,
    "flatten": flatten,
    "typeof": typeof,
    "ord": ord_filter,
    "base64_encode": base64_encode,
    "base64_decode": base64_decode,
    "pack": pack,
    "unpack": unpack,
    "md5": _digest("md5"),
    "sha1": _digest("sha1"),
    "sha256": _digest("sha256"),
    "sha512": _digest("sha512"),
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "average": _statistic("average", statistics.fmean),
    "median": _statistic("median", statistics.median),
    "statistical_mode": _statistic("statistical_mode", statistics.mode),
    "as_datetime": as_datetime,
    "as_timestamp": as_timestamp,
    "as_local": as_local,
    "timestamp_custom": timestamp_custom,
    "timestamp_local": timestamp_local,
    "timestamp_utc": timestamp_utc,
    "regex_match": regex_match,
    "regex_search": regex_search,
    "regex_replace": regex_replace,
    "regex_findall": regex_findall,
    "regex_findall_index": regex_findall_index,
}

GLOBALS: dict[str, Any] = {
    "float": to_float,
    "int": to_int,
    "bool": to_bool,
    "is_number": is_number,
    "iif": iif,
    "log": logarithm,
    "sqrt": FILTERS["sqrt"],
    "sin": FILTERS["sin"],
    "cos": FILTERS["cos"],
    "tan": FILTERS["tan"],
    "pi": math.pi,
    "e": math.e,
    "tau": math.tau,
    "inf": math.inf,
    "min": forgiving_min,
    "max": forgiving_max,
    "average": FILTERS["average"],
    "median": FILTERS["median"],
    "statistical_mode": FILTERS["statistical_mode"],
    "as_datetime": as_datetime,
    "as_timestamp": as_timestamp,
    "as_local": as_local,
    "strptime": strptime,
    "now": now,
    "utcnow": utcnow,
    "timedelta": timedelta,
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "pack": pack,
    "unpack": unpack,
    "slugify": slugify,
    "zip": zip,
    "typeof": typeof,
}

TESTS: dict[str, Callable[..., bool]] = {
    "is_number": is_number,
    "match": regex_match,
    "search": regex_search,
    "contains": contains,
    "list": lambda value: isinstance(value, list),
    "set": lambda value: isinstance(value, set),
    "tuple": lambda value: isinstance(value, tuple),
    "datetime": lambda value: isinstance(value, datetime),
    "string_like": lambda value: isinstance(value, str | bytes | bytearray),
    "boolean": lambda value: isinstance(value, bool),
}
