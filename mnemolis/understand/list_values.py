"""The values of an intent's list slots in one part: which reading of each word wins.

A word may be a value of two slots ("pepperoni": a pizza and a topping) or part
of a longer value of another ("a medium crust": the size "medium" inside the
crust "medium crust"). One rule for every intent, its own slots or shipped ones:

1. the longest value wins: a value inside, or overlapping, a longer value of
   one of the intent's slots is not read at all; unless the phrase captures its
   first words as another slot and its words are that slot's values joined by a
   conjunction ("with ham and pineapple": two toppings, not the pizza so called);
2. of values on the very same words, the slot whose phrase context fits: the
   one a phrase of the intent captures there ("with {topping}"); else the slot
   of a value it is listed with ("with ham and pepperoni": both toppings); else
   a slot with no value yet ("a margherita with pepperoni"); else the first
   the intent lists;
3. a slot that takes several values (`SlotSpec.several`, the default of a
   list slot) holds each one said, in spoken order; one that does not keeps
   the first.

Pure: it reads the analysis and writes nothing. `Reading.beaten` keeps what
lost, for `explain` and `check`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from mnemolis.config import IntentSpec, SlotSpec
from mnemolis.understand.analysis import Analysis, SlotWord


@dataclass(frozen=True)
class Joiners:
    """The words that join two values of a list ("and", a comma) and those that may
    stand beside them ("a", "the", "some")."""

    conjunctions: frozenset[str]
    determiners: frozenset[str]

    def join(self, a: Analysis, lo: int, hi: int) -> bool:
        """tokens[lo:hi] join two values: a conjunction or comma, and determiners."""
        between = a.tokens[lo:hi]
        if not any(t.lower in self.conjunctions or t.text == "," for t in between):
            return False
        return all(
            t.lower in self.conjunctions or t.lower in self.determiners or t.is_punct
            for t in between
        )


@dataclass(frozen=True)
class Reading:
    """One value read, and the readings of its words that lost to it."""

    slot: str
    value: str
    start: int
    end: int
    why: str = "only reading"  # longest, captured, listed with, empty slot, first listed
    beaten: tuple[str, ...] = ()  # "size 'medium'": what these words could have been


def list_slots(intent: IntentSpec, slots: Mapping[str, SlotSpec]) -> list[str]:
    """The intent's list slots, in the order it lists them."""
    return [s for s in intent.slots if (spec := slots.get(s)) is not None and spec.type == "list"]


def read_values(
    a: Analysis,
    start: int,
    end: int,
    order: Sequence[str],
    blocked: Collection[int],
    captures: Mapping[str, tuple[int, int]],
    joiners: Joiners,
) -> list[Reading]:
    """The values of an intent's list slots (``order``: `list_slots`, worked out once)
    said in tokens[start:end], in spoken order, one reading per span; ``blocked`` tokens
    (a device's name) hold none."""
    if not order or not a.slot_words:
        return []
    hits = [
        w
        for w in a.slot_words
        if w.slot in order
        and start <= w.start
        and w.end <= end
        and not any(i in blocked for i in range(w.start, w.end))
    ]
    if not hits:
        return []
    hits = [w for w in hits if not _a_list_said(a, w, hits, captures, joiners)]
    spans = _longest(hits)
    decided: dict[tuple[int, int], Reading] = {}
    ambiguous: list[tuple[tuple[int, int], list[SlotWord]]] = []
    for span, (same, beaten) in spans.items():
        slots_here = sorted({w.slot for w in same}, key=order.index)
        if len(slots_here) == 1:
            w = same[0]
            decided[span] = Reading(w.slot, w.value, *span, _why(beaten), beaten)
        else:
            ambiguous.append((span, same))
    filled = {r.slot for r in decided.values()}
    for span, same in sorted(ambiguous):
        slots_here = sorted({w.slot for w in same}, key=order.index)
        slot, why = _choose(a, span, slots_here, captures, decided, filled, joiners)
        chosen = next(w for w in same if w.slot == slot)
        lost = tuple(f"{w.slot} {w.value!r}" for w in same if w.slot != slot)
        decided[span] = Reading(slot, chosen.value, *span, why, lost + spans[span][1])
        filled.add(slot)
    return [decided[s] for s in sorted(decided)]


def _longest(hits: list[SlotWord]) -> dict[tuple[int, int], tuple[list[SlotWord], tuple[str, ...]]]:
    """Spans kept, longest first: each with its readings and the shorter ones it beat."""
    by_span: dict[tuple[int, int], list[SlotWord]] = {}
    for w in hits:
        by_span.setdefault((w.start, w.end), []).append(w)
    kept: dict[tuple[int, int], tuple[list[SlotWord], tuple[str, ...]]] = {}
    for span in sorted(by_span, key=lambda s: (s[0] - s[1], s[0])):
        winner = next((k for k in kept if k[0] < span[1] and span[0] < k[1]), None)
        if winner is None:
            kept[span] = (by_span[span], ())
            continue
        same, beaten = kept[winner]
        won = {(w.slot, w.value) for w in same}
        lost = [f"{w.slot} {w.value!r}" for w in by_span[span] if (w.slot, w.value) not in won]
        kept[winner] = (same, beaten + tuple(x for x in lost if x not in beaten))
    return kept


def _a_list_said(
    a: Analysis,
    long: SlotWord,
    hits: Sequence[SlotWord],
    captures: Mapping[str, tuple[int, int]],
    joiners: Joiners,
) -> bool:
    """ "a margherita with ham and pineapple": a longer value (the pizza "ham and
    pineapple") whose first words the phrase captures as another slot ("with
    {topping}") and whose words are all that slot's values joined by a conjunction is
    that list, not the longer value."""
    for slot, (cs, ce) in captures.items():
        if slot == long.slot or cs != long.start or ce >= long.end:
            continue
        parts = sorted(
            (w.start, w.end)
            for w in hits
            if w.slot == slot and long.start <= w.start and w.end <= long.end
        )
        if not parts or parts[0][0] != long.start or parts[-1][1] != long.end:
            continue
        if len(parts) > 1 and all(joiners.join(a, p[1], q[0]) for p, q in pairwise(parts)):
            return True
    return False


def _why(beaten: tuple[str, ...]) -> str:
    return "longest" if beaten else "only reading"


def _choose(
    a: Analysis,
    span: tuple[int, int],
    candidates: list[str],
    captures: Mapping[str, tuple[int, int]],
    decided: Mapping[tuple[int, int], Reading],
    filled: set[str],
    joiners: Joiners,
) -> tuple[str, str]:
    """The slot of words that are a value of several: see the module's rule 2."""
    for slot in candidates:
        cap = captures.get(slot)
        if cap is not None and cap[0] < span[1] and span[0] < cap[1]:
            return slot, f"captured by the phrase as {{{slot}}}"
    for other in decided.values():
        if other.slot in candidates and _listed_with(a, span, (other.start, other.end), joiners):
            return other.slot, f"listed with {other.slot} {other.value!r}"
    empty = [s for s in candidates if s not in filled]
    if empty:
        return empty[0], f"{empty[0]} had no value yet"
    return candidates[0], f"{candidates[0]} is listed first"


def _listed_with(
    a: Analysis, span: tuple[int, int], other: tuple[int, int], joiners: Joiners
) -> bool:
    """Two values joined by a conjunction or comma, with nothing but determiners between
    ("ham and pepperoni", "olives, anchovies")."""
    lo, hi = (other[1], span[0]) if other[1] <= span[0] else (span[1], other[0])
    return joiners.join(a, lo, hi)
