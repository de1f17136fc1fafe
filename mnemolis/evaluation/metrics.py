"""The arithmetic of `mnemolis eval`: pure functions over expected and predicted labels.

Nothing here knows about the router or the files, so every figure the report
prints can be checked against a small hand-made table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mnemolis.sources import registry as source_registry

#: The classes routing is scored over: every source the registry knows, in its order,
#: and ``null`` (out of scope).
CLASSES = (*source_registry.names(), "null")


def class_of(source: str | None) -> str:
    return source or "null"


# --------------------------------------------------------------------------- routing


@dataclass
class ClassScore:
    name: str
    precision: float
    recall: float
    f1: float
    support: int  # how many times this class was expected
    predicted: int  # how many times it was predicted


@dataclass
class Confusion:
    """Counts of (expected, predicted) class pairs."""

    classes: tuple[str, ...] = CLASSES
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for e in self.classes:
            self.counts.setdefault(e, {p: 0 for p in self.classes})

    def add(self, expected: str, predicted: str) -> None:
        for name in (expected, predicted):
            if name not in self.counts:
                raise ValueError(f"unknown class {name!r}")
        self.counts[expected][predicted] += 1

    @property
    def total(self) -> int:
        return sum(sum(row.values()) for row in self.counts.values())

    @property
    def correct(self) -> int:
        return sum(self.counts[c][c] for c in self.classes)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def score(self, name: str) -> ClassScore:
        """Precision, recall and F1 of one class; 0/0 counts as 0."""
        tp = self.counts[name][name]
        support = sum(self.counts[name].values())
        predicted = sum(self.counts[e][name] for e in self.classes)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return ClassScore(name, precision, recall, f1, support, predicted)

    def scores(self) -> list[ClassScore]:
        return [self.score(c) for c in self.classes]

    def present(self) -> list[str]:
        """Classes that were expected or predicted at least once."""
        return [s.name for s in self.scores() if s.support or s.predicted]

    def macro_f1(self) -> float:
        """The mean F1 over the classes present; a class never expected and never
        predicted has no F1 (0/0) and is left out rather than counted as 0."""
        present = [s for s in self.scores() if s.support or s.predicted]
        return sum(s.f1 for s in present) / len(present) if present else 0.0


# --------------------------------------------------------------------------- latency


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile: the smallest value with at least p% of values at or
    below it. No interpolation, so p50 of [1, 2, 3, 4] is 2 and p99 is a real sample."""
    if not values:
        return 0.0
    if not 0 < p <= 100:
        raise ValueError("percentile must be in (0, 100]")
    ordered = sorted(values)
    rank = max(1, math.ceil(p * len(ordered) / 100))
    return ordered[rank - 1]


# --------------------------------------------------------------------------- splitting

_WORD = re.compile(r"\w+(?:'\w+)*")


def words(text: str) -> list[str]:
    """Lower-case words, punctuation dropped ("What's up, Doc?" -> what's up doc)."""
    return _WORD.findall(text.lower())


@dataclass
class PartKeyer:
    """Turns a part's text into the word tuple that split comparison uses.

    ``normalize`` is the router's own normaliser (so "what's" and "what is",
    "please" or not, compare equal); ``edge_words`` are phrases stripped wherever
    they stand at the start or end of a part, repeatedly ("and then can you").
    """

    edge_words: Iterable[str] = ()
    normalize: Callable[[str], str] | None = None
    _edges: list[tuple[str, ...]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        edges = {tuple(words(w)) for w in self.edge_words}
        self._edges = sorted((e for e in edges if e), key=lambda e: (-len(e), e))

    def key(self, text: str) -> tuple[str, ...]:
        if self.normalize is not None:
            text = self.normalize(text)
        toks = words(text)
        changed = True
        while changed and toks:
            changed = False
            for edge in self._edges:
                n = len(edge)
                if len(toks) >= n and tuple(toks[:n]) == edge:
                    toks = toks[n:]
                    changed = True
                    break
                if len(toks) >= n and tuple(toks[-n:]) == edge:
                    toks = toks[:-n]
                    changed = True
                    break
        return tuple(toks)


SPLIT_KINDS = ("exact", "over", "under", "boundary")


@dataclass
class SplitOutcome:
    """How a predicted list of parts compares with the expected one.

    ``over``: more parts than expected; ``under``: fewer; ``boundary``: as many
    parts, but at least one differs in its words.
    """

    kind: str
    expected: int
    predicted: int

    @property
    def exact(self) -> bool:
        return self.kind == "exact"


def compare_split(
    expected: Sequence[tuple[str, ...]], predicted: Sequence[Iterable[tuple[str, ...]]]
) -> SplitOutcome:
    """``predicted`` gives, per part, the keys it may be read as (its full text and
    the words actually spoken, when it inherited a verb from a neighbour)."""
    n_exp, n_pred = len(expected), len(predicted)
    if n_pred > n_exp:
        kind = "over"
    elif n_pred < n_exp:
        kind = "under"
    elif all(e in set(p) for e, p in zip(expected, predicted, strict=True)):
        kind = "exact"
    else:
        kind = "boundary"
    return SplitOutcome(kind, n_exp, n_pred)


# --------------------------------------------------------------------------- slots


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def slot_equal(expected: Any, actual: Any) -> bool:
    """Strings compare case- and space-insensitively, numbers by value ("50" == 50),
    lists item by item."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return False
        return len(expected) == len(actual) and all(
            slot_equal(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if expected is None or actual is None:
        return expected is actual
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    e_num, a_num = _number(expected), _number(actual)
    if e_num is not None and a_num is not None:
        return e_num == a_num
    if isinstance(expected, str) and isinstance(actual, str):
        return " ".join(expected.lower().split()) == " ".join(actual.lower().split())
    return bool(expected == actual)
