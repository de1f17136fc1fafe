"""The value-list guard: "order a large pizza with extra cheese and mushrooms" is one request.

A conjunction or comma between values of one intent's own slots joins values,
not requests. It is protected when, per occurrence:

- an intent Mnemolis serves has a phrase before it, or around it ("add ...
  to the order"): the nearest such phrase;
- the words right before it end a value of one of that intent's list slots
  (the longest reading wins, as in `list_values`);
- what follows it, up to the next conjunction or comma, is made only of values
  of that intent's slots (list values; a number and the word after it where the
  intent takes a number, a duration or a time), with quiet words between;
- no slot that takes one value a request is said again after it: a list slot
  with ``several: false`` or a number. "a large pepperoni and a small
  margherita" are two orders, as are "the weather today and tomorrow": the
  second part inherits the verb instead (`decompose`).

A conjunction inside a value ("weed and feed", a feed) is the value's own.
Driven by the intents' slots alone: no word of any domain is written here.
Judged per occurrence, like the other guards; `explain` names the values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.intents import Match
from mnemolis.understand.item_lists import Guarded
from mnemolis.understand.list_values import Joiners, Reading, list_slots, read_values

#: Slot types whose value is said as a number ("for 10 minutes", "at 6").
NUMBERED = frozenset({"number", "duration", "time"})


@dataclass(frozen=True)
class Verdict:
    """The guard an occurrence gets, or why it gets none."""

    guard: str | None
    why: str


class ValueLists:
    """Protects the occurrences that join values of one intent's slots."""

    def __init__(self, config: Config) -> None:
        self.config = config
        lang = config.language
        self.quiet = lang.stop_words | lang.filler_words | lang.determiners
        conjunctions = {c for c in lang.conjunctions if " " not in c} - set(
            lang.strong_conjunctions
        )
        self.joiners = Joiners(frozenset(conjunctions | {"&"}), frozenset(lang.determiners))
        self.edges = frozenset(conjunctions | {"&"})
        # only intents with list slots can hold a list of values
        self.order = {n: list_slots(spec, config.slots) for n, spec in config.intents.items()}
        self.takers = frozenset(name for name, order in self.order.items() if order)

    def protect(self, a: Analysis, start: int, end: int, occ: Sequence[Guarded]) -> None:
        """Mark each unguarded occurrence that joins values of one intent's slots."""
        if not occ or not self.takers:
            return
        for o in occ:
            if o.guard is None:
                o.guard = self._inside_value(a, start, end, o)
        for o in occ:
            if o.guard is None:
                o.guard = self.judge(a, start, end, o, occ).guard

    def judge(
        self, a: Analysis, start: int, end: int, o: Guarded, occ: Sequence[Guarded]
    ) -> Verdict:
        """Whether the occurrence joins values, and if not, why not (for `check` and
        `explain`: the nearest intent's reason)."""
        why = "no phrase of an intent with list slots before it"
        for m in self._phrases_around(a, start, o):
            verdict = self._joins(a, m, o, occ, end, self.config.intents[m.intent])
            if verdict.guard is not None:
                return verdict
            if why.startswith("no phrase"):
                why = verdict.why
        return Verdict(None, why)

    def _inside_value(self, a: Analysis, start: int, end: int, o: Guarded) -> str | None:
        """ "with weed and feed": a conjunction inside a value of a slot of an intent whose
        phrase is said is that value's own word."""
        for w in a.slot_words:
            if start <= w.start < o.start and o.end < w.end <= end:
                takers = (m.intent for m in a.matches if start <= m.start and m.end <= end)
                if any(w.slot in self.config.intents[t].slots for t in takers):
                    return f"value: {w.slot} {w.value!r}"
        return None

    def _phrases_around(self, a: Analysis, start: int, o: Guarded) -> list[Match]:
        """The phrases of served intents with list slots that end before the occurrence
        or hold it in their gap ("add ... to the order"), the nearest first."""
        found = [
            m
            for m in a.matches
            if m.intent in self.takers
            and start <= m.start < o.start
            and (m.end <= o.start or o.end <= m.end)
            and self.config.intents[m.intent].source is not None
        ]
        return sorted(found, key=lambda m: -m.start)

    def _joins(
        self,
        a: Analysis,
        m: Match,
        o: Guarded,
        occ: Sequence[Guarded],
        end: int,
        intent: IntentSpec,
    ) -> Verdict:
        name = intent.name
        touching = o.start  # ", and": the value ends before the comma
        while touching > m.start and a.tokens[touching - 1].is_punct:
            touching -= 1
        left = self._read(a, m.start, touching, intent)
        before = next((r for r in left if r.end == touching), None)
        if before is None:
            return Verdict(None, f"the words before it end no value of {name}'s list slots")
        r_start, r_end = self._right_side(a, o, occ, end)
        # "add a lemonade and an orange juice to the order": the phrase's own words end it
        r_end = min([r_end, *(i for i in m.literal if i >= r_start)])
        right = self._read(a, r_start, r_end, intent)
        if not right or not self._only_values(a, r_start, r_end, right, intent):
            words = a.span_text(r_start, r_end)
            return Verdict(None, f"{words!r} after it is not only values of {name}'s slots")
        said = {r.slot for r in left}
        again = [r.slot for r in right if r.slot in said and not self.config.slots[r.slot].several]
        if again:  # one value a request, said again: a second request
            return Verdict(
                None, f"{again[0]} takes one value a request (several: false), said on both sides"
            )
        if self._numbered(intent) and all(
            self._has_number(a, s, e) for s, e in ((m.start, touching), (r_start, r_end))
        ):  # "for 5 minutes and the back lawn for 10 minutes"
            return Verdict(None, "a number on both sides: two requests")
        after = right[0]
        joined = f"{before.value!r} {a.span_text(o.start, o.end)} {after.value!r}"
        return Verdict(f"values of {name}: {before.slot} {joined} {after.slot}", "")

    def _read(self, a: Analysis, s: int, e: int, intent: IntentSpec) -> list[Reading]:
        return read_values(a, s, e, self.order[intent.name], (), {}, self.joiners)

    def _right_side(
        self, a: Analysis, o: Guarded, occ: Sequence[Guarded], end: int
    ) -> tuple[int, int]:
        """From after the occurrence (and any conjunction or comma touching it) to the
        next occurrence that is not already protected ("garlic and herb"), or the end."""
        s = o.end
        while s < end and (a.tokens[s].is_punct or a.tokens[s].lower in self.edges):
            s += 1
        e = min((x.start for x in occ if x.start >= s and x.guard is None), default=end)
        return s, e

    def _only_values(
        self, a: Analysis, s: int, e: int, readings: list[Reading], intent: IntentSpec
    ) -> bool:
        """Every word of tokens[s:e] is a value, a quiet word, or (where the intent takes
        one) a number and the word after it; a value comes first."""
        covered = {i for r in readings for i in range(r.start, r.end)}
        if self._numbered(intent):
            for i in range(s, e):
                if a.tokens[i].is_num:
                    covered.update((i, i + 1))
        content = [
            i
            for i in range(s, e)
            if not a.tokens[i].is_punct and a.tokens[i].lower not in self.quiet
        ]
        first = readings[0]
        return (
            bool(content)
            and first.start <= content[0] < first.end
            and all(i in covered for i in content)
        )

    def _numbered(self, intent: IntentSpec) -> frozenset[str]:
        return frozenset(
            s
            for s in intent.slots
            if (spec := self.config.slots.get(s)) is not None and spec.type in NUMBERED
        )

    @staticmethod
    def _has_number(a: Analysis, s: int, e: int) -> bool:
        return any(a.tokens[i].is_num for i in range(s, e))
