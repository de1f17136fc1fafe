"""Where a part says the work of a device type ("mop the kitchen": a vacuum's).

Target resolution asks it again for every candidate intent of a part, with
the same span and the same names: the answer is kept in the analysis' memo.
"""

from __future__ import annotations

from mnemolis.understand.analysis import Analysis
from mnemolis.understand.names import NameHit

Work = dict[tuple[str, ...], str]  # the words of a work phrase -> the type doing it


def work_said(work: Work, a: Analysis, start: int, end: int, hits: list[NameHit]) -> set[str]:
    """The types whose work tokens[start:end] says outside every device and area name."""
    named = frozenset(
        i for h in hits if h.kind in ("device", "room") for i in range(h.start, h.end)
    )
    key = ("work", start, end, named)
    found: frozenset[str] | None = a.memo.get(key)
    if found is None:
        found = a.memo[key] = frozenset(_search(work, a, start, end, named))
    return set(found)


def _search(work: Work, a: Analysis, start: int, end: int, named: frozenset[int]) -> set[str]:
    found: set[str] = set()
    for i in range(start, end):
        first = a.tokens[i]
        for words, dtype in work.items():
            if words[0] != first.lower and words[0] != first.lemma:
                continue  # the cheap test first: most words start no work
            span = range(i, i + len(words))
            if span.stop <= end and not named.intersection(span):
                toks = (a.tokens[k] for k in span)
                if all(w in (t.lower, t.lemma) for w, t in zip(words, toks, strict=True)):
                    found.add(dtype)
    return found
