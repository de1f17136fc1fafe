"""The guards that stop a conjunction from splitting, judged per occurrence.

A guard never vetoes a whole query: it marks one occurrence of a
conjunction as protected, and every other occurrence in the same query is
still judged on its own.

- no-split constructions ("compare X and Y", "between X and Y", "both X
  and Y", "X vs Y") protect the first "and" after them, unless what follows
  it opens a request of its own;
- protected spans: a known name spanning the occurrence (a fixed pair,
  a device or room name, a title a source confirms: "pride and
  prejudice"), or a capitalised pair ("Iran and Israel"), judged by the one
  word on each side, not by the rest of the query;
- an area pair: "the lights in the kitchen and dining room", "the bedroom
  and bathroom lights" join two areas under one verb and one type word: one
  part over both areas (the resolver unites the areas a part names);
- a list of items ("add milk, eggs and bread to the list": `item_lists`) and
  a list of values of one intent's slots ("a pizza with ham and olives":
  `value_lists`);
- a condition opened after a split point ("what's the weather and if the
  front door is unlocked, lock it"): the comma or "then" that closes the
  condition joins it to its consequence, so the conditional stays one part
  for the condition detector, not a question and a command.

The third guard, meaningful content, judges the parts a split produces and
lives in `decompose`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.exclusion import Exclusions
from mnemolis.understand.item_lists import ItemLists
from mnemolis.understand.names import NameIndex
from mnemolis.understand.value_lists import ValueLists

#: How far after a no-split word its conjunction may be.
NOSPLIT_WINDOW = 8
#: Words on each side of a conjunction tried against known titles.
NAME_REACH = 6


@dataclass
class Occurrence:
    """One conjunction (or comma) in the query, and the guard that protects it."""

    kind: str  # the conjunction phrase, or "," for a comma
    start: int
    end: int
    guard: str | None = None

    @property
    def splits(self) -> bool:
        return self.guard is None


class Guards:
    def __init__(self, config: Config, names: NameIndex) -> None:
        lang = config.language
        self.names = names
        self.clause_starts = lang.clause_starts
        self.pairing = {c for c in lang.conjunctions if c.split()[0] == "and"} | {"and", "&"}
        self.name_joiners = {"and", "&", "plus", "n", "'n'"}
        self.item_lists = ItemLists(config)  # "add milk, eggs and bread to the list"
        self.value_lists = ValueLists(config)  # "a pizza with extra cheese and mushrooms"
        self.exclusions = Exclusions(config)
        self.determiners = lang.determiners
        self.condition_then = set(lang.condition_then)

    def occurrences(self, a: Analysis, start: int, end: int) -> list[Occurrence]:
        """Every conjunction and comma strictly inside ``[start, end)``, guarded."""
        occ: list[Occurrence] = []
        for cue in a.cues_of("conj", start, end):
            if cue.start > start and cue.end < end:
                occ.append(Occurrence(cue.phrase, cue.start, cue.end))
        for i in range(start + 1, end - 1):
            if a.tokens[i].text in (",", ";"):
                occ.append(Occurrence(",", i, i + 1))
        occ.sort(key=lambda o: (o.start, -o.end))
        if not occ:
            return occ
        self._no_split(a, start, end, occ)
        self.item_lists.protect(a, start, end, occ)
        self.value_lists.protect(a, start, end, occ)
        self.exclusions.protect(a, start, end, occ)  # "except the kitchen and the hall"
        self._condition_close(a, start, end, occ)  # "... and if X, do Y"
        for o in occ:
            if o.guard is None and o.kind != ",":
                o.guard = (
                    self._protected_name(a, o)
                    or self._area_pair(a, o, end)
                    or self._capitalised_pair(a, o, start)
                )
        return occ

    def _area_pair(self, a: Analysis, o: Occurrence, end: int) -> str | None:
        """ "the kitchen and (the) dining room (lights)": an area right before the
        conjunction and one right after it, the second not followed by a request of
        its own nor by a device name of its own (a determiner may come between)."""
        if o.kind not in self.name_joiners:
            return None
        after = o.end
        while after < end and a.tokens[after].lower in self.determiners:
            after += 1
        areas = [h for h in a.names if h.is_area]
        left = [h for h in areas if h.end == o.start]
        right = [h for h in areas if h.start == after and h.end <= end]
        if not left or not right:
            return None
        tail = max(h.end for h in right)
        if self._opens_request(a, tail):
            return None
        # "the bedroom and kitchen kettle": the second area starts a device's own name
        # ("pantry lights", an area then a type word, is the type shared)
        shared = {h.end for h in a.names if h.kind == "noun" and h.start == tail}
        named = [h for h in a.names if h.kind == "device" and h.start == after and h.end > tail]
        if any(h.end not in shared for h in named):
            return None
        return f"area pair: {a.span_text(left[0].start, tail).lower()}"

    def _opens_request(self, a: Analysis, position: int) -> bool:
        if position >= len(a.tokens):
            return False
        tok = a.tokens[position]
        return tok.lower in self.clause_starts or tok.lemma in self.clause_starts

    def _no_split(self, a: Analysis, start: int, end: int, occ: list[Occurrence]) -> None:
        for cue in a.cues_of("nosplit", start, end):
            for o in occ:
                if o.start < cue.end or o.kind == "," or o.guard is not None:
                    continue
                if o.start - cue.end > NOSPLIT_WINDOW:
                    break
                if o.kind in self.pairing:
                    if not self._opens_request(a, o.end):
                        o.guard = f"no-split: {cue.phrase}"
                    break

    def _condition_close(self, a: Analysis, start: int, end: int, occ: list[Occurrence]) -> None:
        """A condition word right after a split point opens a conditional clause; the
        first comma or "then" after it, with no other split point between, closes the
        condition and must not split it from its consequence."""
        for lead in a.cues_of("lead", start, end):
            if any(q.start <= lead.start < q.end for q in a.cues_of("cquestion", start, end)):
                continue  # "... and check if the door is locked": a question
            if not any(o.end == lead.start and o.guard is None for o in occ):
                continue
            for o in occ:
                if o.start <= lead.end or o.guard is not None:
                    continue
                if (o.kind == "," or o.kind in self.condition_then) and o.end < end:
                    o.guard = f"condition: {a.span_text(lead.start, o.start).lower()}"
                break  # another split point first: the condition is not closed here

    def _protected_name(self, a: Analysis, o: Occurrence) -> str | None:
        for hit in a.names:
            if hit.start < o.start and o.end < hit.end and hit.kind in ("pair", "device", "room"):
                return f"name: {a.span_text(hit.start, hit.end).lower()}"
        if o.kind not in self.name_joiners or not self.names.name_sources:
            return None
        toks = a.tokens
        joiner = " ".join(t.lower for t in toks[o.start : o.end])
        for left in range(1, NAME_REACH + 1):
            s = o.start - left
            if s < 0 or toks[s].is_punct:
                break
            before = " ".join(t.lower for t in toks[s : o.start])
            for right in range(1, NAME_REACH + 1):
                e = o.end + right
                if e > len(toks) or toks[e - 1].is_punct:
                    break
                after = " ".join(t.lower for t in toks[o.end : e])
                phrase = f"{before} {joiner} {after}"
                if self.names.is_protected(phrase):
                    return f"name: {phrase}"
        return None

    def _capitalised_pair(self, a: Analysis, o: Occurrence, start: int) -> str | None:
        """ "Iran and Israel": a capitalised word on each side, neither opening a request."""
        toks = a.tokens
        if o.start - 1 < start or o.end >= len(toks):
            return None
        before, after = toks[o.start - 1], toks[o.end]
        for tok in (before, after):
            if not (tok.is_title and tok.text.isalpha()) or tok.lower == "i":
                return None
            if tok.lower in self.clause_starts:
                return None
        return f"proper-noun pair: {before.text} {a.span_text(o.start, o.end)} {after.text}"
