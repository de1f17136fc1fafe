"""Slot extraction: devices, rooms, list values, numbers, places and topics.

Each slot type has one rule, the same for every intent: the intent only
says which slots it takes. A device is found by its name (exactly, then
fuzzily), or by a type noun narrowed by the intent's device types and the
room; several candidates make it ambiguous, which becomes a clarifying
question rather than a guess.
"""

from __future__ import annotations

from mnemolis.config import Config, IntentSpec
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.exclusion import Exclusions
from mnemolis.understand.fills import SlotFill, SlotResult
from mnemolis.understand.intents import Match
from mnemolis.understand.list_values import Joiners, list_slots, read_values
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.targets import TargetResolver
from mnemolis.understand.values import ValueReader, announcing

__all__ = ["SlotExtractor", "SlotFill", "SlotResult"]


class SlotExtractor:
    def __init__(self, config: Config, names: NameIndex) -> None:
        self.config = config
        self.names = names
        self.targets = TargetResolver(config, names)
        self.exclusions = Exclusions(config)
        lang = config.language
        self.stop = lang.stop_words
        self.filler = lang.filler_words
        self.dets = lang.determiners
        self.place_preps = lang.place_prepositions
        self.all_words = lang.all_words
        self.values = ValueReader(config)
        self.list_slots = frozenset(n for n, spec in config.slots.items() if spec.type == "list")
        self.list_order = {n: list_slots(spec, config.slots) for n, spec in config.intents.items()}
        conjunctions = {c for c in lang.conjunctions if " " not in c} - set(
            lang.strong_conjunctions
        )
        self.joiners = Joiners(frozenset(conjunctions | {"&"}), frozenset(lang.determiners))

    def extract(
        self, a: Analysis, start: int, end: int, intent: IntentSpec, match: Match | None
    ) -> SlotResult:
        wanted = set(intent.slots)
        out = SlotResult()
        if not wanted:
            return out
        names = [h for h in a.names if start <= h.start and h.end <= end]
        if wanted & {"device", "room"}:
            self._devices(a, start, end, intent, _not_in_values(a, names, wanted), out)
        self._lists(a, start, end, intent, match, out)
        for w in a.slot_words:
            if w.slot in wanted and start <= w.start and w.end <= end and w.slot not in out.fills:
                if w.slot in self.list_slots or any(
                    i in out.covered for i in range(w.start, w.end)
                ):
                    continue
                longest = max(
                    (x for x in a.slot_words if x.slot == w.slot and x.start == w.start),
                    key=lambda x: x.end,
                )
                out.fills[w.slot] = SlotFill(w.slot, longest.value, longest.start, longest.end)
        self._values(a, start, end, intent, match, out)
        if "location" in wanted and "location" not in out.fills:
            self._location(a, start, end, out)
        if "topic" in wanted:
            self._topic(a, start, end, match, out)
        for fill in out.fills.values():
            out.covered.update(fill.tokens)
        return out

    # ------------------------------------------------------------------ list values

    def _lists(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        match: Match | None,
        out: SlotResult,
    ) -> None:
        """The intent's list slots (`list_values`): the longest value wins, shared words go
        to the slot whose context fits, a slot that takes several holds them all."""
        # what every phrase of the intent in the part captures, the best one's first: "i'd
        # like a medium pizza with pepperoni" is read by "i would like", and "with
        # {topping}" still says which slot "pepperoni" is
        captures = dict(match.captures) if match is not None else {}
        for m in a.matches:
            if m.intent == intent.name and m.inside(start, end) and m is not match:
                for slot, span in m.captures.items():
                    captures.setdefault(slot, span)
        order = self.list_order.get(intent.name) or list_slots(intent, self.config.slots)
        readings = read_values(a, start, end, order, out.covered, captures, self.joiners)
        for r in readings:
            fill = out.fills.get(r.slot)
            if fill is None:
                out.fills[r.slot] = SlotFill(r.slot, r.value, r.start, r.end, "exact")
            elif self.config.slots[r.slot].several:
                values = fill.value if isinstance(fill.value, list) else [fill.value]
                spans = fill.spans or ((fill.start, fill.end),)
                out.fills[r.slot] = SlotFill(
                    r.slot,
                    [*values, r.value],
                    fill.start,
                    r.end,
                    "several",
                    (*spans, (r.start, r.end)),
                )
        out.readings = readings

    # ------------------------------------------------------------------ devices

    def _devices(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        names: list[NameHit],
        out: SlotResult,
    ) -> None:
        """The ``device`` and ``room`` slots, resolved by `TargetResolver`."""
        literal = {
            i
            for m in a.matches
            if m.intent == intent.name and m.inside(start, end)
            for i in m.literal
        }
        ex = self.exclusions.find(a, start, end)  # "all the lights except the kitchen"
        left_out = self.exclusions.hits_left_out(ex, names) if ex is not None else []
        if ex is not None:
            names = [h for h in names if h not in left_out]
            literal |= set(ex.tokens)
            out.covered.update(ex.tokens)
        found, scope = self.targets.resolve(a, start, end, intent, names, literal)
        if ex is not None:
            found, rule, taken = self.exclusions.leave_out(
                self.targets, a, ex, intent, left_out, found
            )
            out.left_out = sorted(self.names.label(d) for d in taken)
            out.exclusion = rule
        if scope is not None and scope.start >= 0:
            if scope.room is not None and "room" in intent.slots:
                out.fills["room"] = SlotFill("room", scope.room, scope.start, scope.end, "exact")
            out.covered.update(range(scope.start, scope.end))
        if found is None:
            return
        out.covered.update(found.covered)
        out.wrong_type = found.wrong_type
        out.stood_in = found.stood_in
        out.implied = found.implied
        out.missing = found.missing
        out.unknown = found.unknown
        labels = [self.names.label(d) for d in found.devices]
        if not labels:
            return
        if found.ask:
            out.options = sorted(labels)
            if not found.covered and found.start >= 0:
                out.covered.update(range(found.start, found.end))  # the name said
        elif len(labels) == 1:
            out.fills["device"] = SlotFill("device", labels[0], found.start, found.end, found.how)
            if found.how == "exact":  # "set the heat pump to cool": a name holds no value
                out.covered.update(range(found.start, found.end))
        else:
            out.fills["device"] = SlotFill("device", sorted(labels), found.start, found.end, "all")

    # ------------------------------------------------------------------ values

    def _values(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        match: Match | None,
        out: SlotResult,
    ) -> None:
        """Numbers, value words and steps, for the devices found (`values`)."""
        fill = out.fills.get("device")
        named = fill.value if fill is not None else []
        wanted = {named} if isinstance(named, str) else set(named)
        # a slot value is a label: a name, area + name, or an id where names are shared
        found = (self.names.device(v) or self.names.device_named(v) for v in sorted(wanted))
        devices = [d for d in found if d is not None]
        devices = [d for d in devices if d.type in intent.device_types] or devices
        if not devices and out.options:
            devices = self._announcing(a, start, end, intent, out)
        captures = match.captures if match is not None else {}
        self.values.read(a, start, end, intent, devices, out, captures)

    def _announcing(
        self, a: Analysis, start: int, end: int, intent: IntentSpec, out: SlotResult
    ) -> list[Device]:
        """ "put the ac in fan only mode": of the climates asked about, the one that
        announced "fan_only" is meant (read first from what the devices announced)."""
        pool = [
            d
            for v in out.options
            if (d := self.names.device(v) or self.names.device_named(v)) is not None
        ]
        self.values.read(a, start, end, intent, pool, out, {})
        able = announcing(pool, out)
        if len(able) != 1:
            return []
        device = able[0]
        out.fills["device"] = SlotFill("device", self.names.label(device), -1, -1, "announced")
        out.options = []
        return able

    # ------------------------------------------------------------------ places

    def _location(self, a: Analysis, start: int, end: int, out: SlotResult) -> None:
        toks = a.tokens
        blocked = {i for f in out.fills.values() for i in f.tokens}
        blocked |= {
            i for h in a.names if h.kind in ("room", "device") for i in range(h.start, h.end)
        }
        blocked |= {i for w in a.slot_words for i in range(w.start, w.end)}
        for i in range(start, end - 1):
            if toks[i].lower not in self.place_preps:
                continue
            j = i + 1
            while j < end and toks[j].lower in self.dets and j + 1 < end and toks[j + 1].is_title:
                j += 1
            k = j
            while (
                k < end
                and not toks[k].is_punct
                and k not in blocked
                and (toks[k].lower not in self.stop or (toks[k].is_title and k > j))
                and toks[k].lower not in self.filler
                and not toks[k].is_num
            ):
                k += 1
            if k > j:
                out.fills["location"] = SlotFill(
                    "location", a.span_text(j, k).lower(), j, k, "place"
                )
                return

    # ------------------------------------------------------------------ topics

    def _topic(
        self, a: Analysis, start: int, end: int, match: Match | None, out: SlotResult
    ) -> None:
        """What is asked about: the words between the question frame and its tail.

        Frames (the intent's own phrases, discourse framing, colloquial forms,
        polite openers), stop words and filler are peeled off both edges only,
        so a name keeps its inner words whole ("tell me about search and
        rescue", "the history of rock and roll" -> "rock and roll").
        """
        toks = a.tokens
        frame: set[int] = set()
        for cue in a.cues:
            if (
                cue.kind in ("framing", "colloquial", "opener")
                and start <= cue.start
                and cue.end <= end
            ):
                frame.update(range(cue.start, cue.end))
        if match is not None:
            for m in a.matches:
                if m.intent == match.intent and m.inside(start, end):
                    frame.update(m.literal)

        def edge(i: int) -> bool:
            t = toks[i]
            return i in frame or t.is_punct or t.lower in self.stop or t.lower in self.filler

        first, last = start, end - 1
        while first <= last and edge(first):
            first += 1
        while last >= first and edge(last):
            last -= 1
        if first > last:
            return
        value = a.span_text(first, last + 1)
        # a title a source confirms ("fire and rain") is a topic beyond doubt
        how = "title" if self.names.is_protected(" ".join(value.lower().split())) else "topic"
        out.fills["topic"] = SlotFill("topic", value, first, last + 1, how)


def _not_in_values(a: Analysis, names: list[NameHit], wanted: set[str]) -> list[NameHit]:
    """ "put the ac in fan only mode": a type word inside a value the intent takes ("fan
    only", a mode) names no device, when another word of the part names one."""
    spans = [
        (w.start, w.end)
        for w in a.slot_words
        if w.slot in wanted and w.slot not in ("device", "room") and w.end - w.start > 1
    ]
    inside = [
        h for h in names if h.kind == "noun" and any(s <= h.start and h.end <= e for s, e in spans)
    ]
    if not inside:
        return names
    kept = [h for h in names if h not in inside]
    if not any(h.kind in ("noun", "device") for h in kept):
        return names
    return kept
