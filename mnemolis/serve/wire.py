"""JSON on the wire: strict on the way in, total on the way out.

Python's `json` accepts ``NaN``, ``Infinity`` and ``1e400`` (a float that
overflows to infinity) and decodes ``"\\ud800"`` into a string holding a lone
UTF-16 surrogate, which no UTF-8 encoder can write. Echoed back, the first
are not JSON and the second makes the reply fail to encode, after the action
already ran. So every request is read with `loads` (non-finite numbers are
bad input) and every reply written with `dumps`, which cannot fail: a lone
surrogate becomes U+FFFD, a non-finite float null, anything else its `str`.
A request whose text holds a lone surrogate is refused before anything is
done (`lone_surrogate`): what would be acted on is not what was sent.

Depth is bounded too: `json` parses by recursion, so 30,000 ``[`` (60 KB,
under every size limit) raise `RecursionError` instead of a refusal, and
everything that walks a value afterwards (`clean`, the encoder) recurses as
well. `loads` counts the nesting first, in one pass outside strings, and
refuses anything deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
#: Arrays and objects inside one another, at most; no request needs more than a few.
MAX_DEPTH = 64
# a string (an unterminated one runs to the end, so no input makes the search quadratic)
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class NotJson(ValueError):
    """The bytes are not strict JSON; the message says why, in words."""


def _refuse_constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotJson(f"{text} is too large for a number")
    return value


def depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (brackets in strings not counted)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[c] for c in brackets), default=0)


def loads(data: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """Strict JSON: `NotJson` for ``NaN``, ``Infinity``, numbers that overflow,
    nesting deeper than ``max_depth``, and anything `json` itself refuses. Bytes
    must be UTF-8 (`UnicodeDecodeError` otherwise: bytes would let `json` guess
    UTF-16 or UTF-32)."""
    text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
    if depth(text) > max_depth:
        raise NotJson(f"arrays and objects are nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except NotJson:
        raise
    except RecursionError as exc:  # a smaller stack than the bound assumes
        raise NotJson("arrays and objects are nested too deeply") from exc
    except ValueError as exc:
        raise NotJson(str(exc)) from exc


def lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a UTF-16 surrogate that is not a character."""
    return _LONE_SURROGATE.search(text) is not None


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: writable as UTF-8."""
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def clean(value: Any) -> Any:
    """A copy of a JSON-like value that any encoder can write: strings cleaned,
    non-finite floats as None, keys as strings, unknown objects as their `str`."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {clean_text(str(k)): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [clean(v) for v in value]
    return clean_text(str(value))


def dumps(value: Any) -> str:
    """Strict JSON text of ``value``; never raises."""
    return json.dumps(clean(value), ensure_ascii=False, allow_nan=False)


def dumps_bytes(value: Any) -> bytes:
    """`dumps`, as UTF-8; the plain encoder first, `clean` only when it fails."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError):
        return dumps(value).encode("utf-8")
