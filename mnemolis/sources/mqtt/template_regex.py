"""Regular expressions for templates, checked first because they come from the network.

A repeat over a repeat, or over alternatives longer than one character (the
shapes that backtrack exponentially), or more than `REGEX_REPEATS_MAX`
unbounded repeats is refused; the text searched and the pattern are bounded.
The functions are Home Assistant's ``regex_*`` filters and ``match``/``search`` tests.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Any

REGEX_TEXT_MAX = 2048
REGEX_REPEATS_MAX = 2
REGEX_PATTERN_MAX = 512


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
