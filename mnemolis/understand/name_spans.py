"""The spans a fuzzy name search tries in one part, worked out once per query.

`NameIndex.fuzzy` is asked once per candidate intent of a part, each time
with other tokens taken (that intent's phrase words), over the same span of
the same query. Which spans are worth trying at all (no punctuation, not only
words understood exactly, not starting on a stop word) does not depend on
what is taken, so it is found once and kept in the analysis' memo.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Any

from mnemolis.understand.text import Token

Span = tuple[int, int, tuple[str, ...]]  # start, size, the words (lower-case)


def fuzzy_spans(
    tokens: Sequence[Token],
    start: int,
    end: int,
    whole: bool,
    known: Set[int] | None,
    sizes: Sequence[int],
    stop_words: Set[str],
    memo: dict[Any, Any],
) -> tuple[Span, ...]:
    """The spans of ``sizes`` words in tokens[start:end] (with ``whole``, only those
    from ``start``), in the order the search tries them."""
    key = ("fuzzy-spans", id(tokens), start, end, whole, frozenset(known or ()), tuple(sizes))
    found: tuple[Span, ...] | None = memo.get(key)
    if found is not None:
        return found
    spans: list[Span] = []
    for size in sizes:
        for s in range(start, start + 1 if whole else end - size + 1):
            if s + size > end:
                continue
            span = range(s, s + size)
            if any(tokens[i].is_punct for i in span):
                continue
            if known and all(i in known for i in span):
                continue  # "the lights" are lights, not the device called "light"
            words = tuple(tokens[i].lower for i in span)
            if words[0] not in stop_words:
                spans.append((s, size, words))
    memo[key] = found = tuple(spans)
    return found
