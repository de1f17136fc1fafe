"""Regular expressions for templates, run with a time bound because they come from the network.

Home Assistant's ``regex_*`` filters and ``match``/``search`` tests, run with
the `regex` package (Python's ``re`` dialect) and its ``timeout=``: a pattern
that backtracks without end (``(a|aa)+$`` on a long run of ``a``) stops at
its time bound, whatever its shape, instead of freezing the thread that
renders it. The time comes from the render's budget (`template_budget`), so
a render never outlives its own bound; the text searched and the pattern
are bounded in size as well.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

from mnemolis.sources.mqtt.template_budget import BoundBroken, seconds_left

REGEX_TEXT_MAX = 2048
REGEX_PATTERN_MAX = 512


@lru_cache(maxsize=256)
def _compiled(pattern: str, ignorecase: bool) -> regex.Pattern[str]:
    if len(pattern) > REGEX_PATTERN_MAX:
        raise ValueError(f"regular expression longer than {REGEX_PATTERN_MAX} characters")
    try:
        return regex.compile(pattern, (regex.IGNORECASE if ignorecase else 0) | regex.VERSION0)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"regular expression {pattern[:60]!r} does not compile: {exc}") from None


def _timeout() -> float:
    left = seconds_left()
    if left <= 0:
        raise BoundBroken("time", "the template ran out of time before a regular expression")
    return left


def _timed_out(pattern: str) -> BoundBroken:
    return BoundBroken(
        "time", f"the regular expression {pattern[:60]!r} ran out of time (it backtracks)"
    )


def _text(value: Any) -> str:
    text = str(value)
    if len(text) > REGEX_TEXT_MAX:
        raise ValueError(f"text longer than {REGEX_TEXT_MAX} characters for a regular expression")
    return text


def regex_match(value: Any, find: str = "", ignorecase: bool = False) -> bool:
    pattern = _compiled(str(find), ignorecase)
    try:
        return bool(pattern.match(_text(value), timeout=_timeout()))
    except TimeoutError:
        raise _timed_out(str(find)) from None


def regex_search(value: Any, find: str = "", ignorecase: bool = False) -> bool:
    pattern = _compiled(str(find), ignorecase)
    try:
        return bool(pattern.search(_text(value), timeout=_timeout()))
    except TimeoutError:
        raise _timed_out(str(find)) from None


def regex_replace(
    value: Any = "", find: str = "", replace: str = "", ignorecase: bool = False
) -> str:
    text = _text(value)
    if len(text) * (len(str(replace)) + 1) > REGEX_TEXT_MAX * 16:
        raise ValueError("regex_replace would make too long a text")
    pattern = _compiled(str(find), ignorecase)
    try:
        return str(pattern.sub(str(replace), text, timeout=_timeout()))
    except TimeoutError:
        raise _timed_out(str(find)) from None
    except (regex.error, IndexError) as exc:  # a bad group reference in the replacement
        raise ValueError(f"regex_replace: {exc}") from None


def regex_findall(value: Any, find: str = "", ignorecase: bool = False) -> list[Any]:
    pattern = _compiled(str(find), ignorecase)
    try:
        return list(pattern.findall(_text(value), timeout=_timeout()))
    except TimeoutError:
        raise _timed_out(str(find)) from None


def regex_findall_index(
    value: Any, find: str = "", index: int = 0, ignorecase: bool = False
) -> Any:
    return regex_findall(value, find, ignorecase)[index]
