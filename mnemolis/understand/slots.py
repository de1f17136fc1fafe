"""Slot extraction: devices, rooms, list values, numbers, places and topics.

Each slot type has one rule, the same for every intent: the intent only
says which slots it takes. A device is found by its name (exactly, then
fuzzily), or by a type noun narrowed by the intent's device types and the
room; several candidates make it ambiguous, which becomes a clarifying
question rather than a guess.
"""

from __future__ import annotations

from mnemolis.config import Config, IntentSpec
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.fills import SlotFill, SlotResult
from mnemolis.understand.intents import Match
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.values import ValueReader

__all__ = ["SlotExtractor", "SlotFill", "SlotResult"]


def _longest(hits: list[NameHit]) -> list[NameHit]:
    """Drop hits inside a longer hit, keep text order."""
    hits = sorted(hits, key=lambda h: (-(h.end - h.start), h.start))
    kept: list[NameHit] = []
    for h in hits:
        if not any(k.start <= h.start and h.end <= k.end for k in kept):
            kept.append(h)
    return sorted(kept, key=lambda h: h.start)


class SlotExtractor:
    def __init__(self, config: Config, names: NameIndex) -> None:
        self.config = config
        self.names = names
        lang = config.language
        self.stop = lang.stop_words
        self.filler = lang.filler_words
        self.dets = lang.determiners
        self.place_preps = lang.place_prepositions
        self.all_words = lang.all_words
        self.values = ValueReader(config)

    def extract(
        self, a: Analysis, start: int, end: int, intent: IntentSpec, match: Match | None
    ) -> SlotResult:
        wanted = set(intent.slots)
        out = SlotResult()
        if not wanted:
            return out
        names = [h for h in a.names if start <= h.start and h.end <= end]
        if wanted & {"device", "room"}:
            self._devices(a, start, end, intent, names, out)
        for w in a.slot_words:
            if w.slot in wanted and start <= w.start and w.end <= end and w.slot not in out.fills:
                if any(i in out.covered for i in range(w.start, w.end)):
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
        exact = _longest([h for h in names if h.kind in ("device", "room")])
        devices = [h for h in exact if h.kind == "device"]
        rooms = [h for h in exact if h.kind == "room"]
        literal = {
            i
            for m in a.matches
            if m.intent == intent.name and m.inside(start, end)
            for i in m.literal
        }
        if not devices:
            # "kitchen lite": a device heard slightly wrong beats the exact room inside it
            # a word that says a value ("halfway") is not a name heard wrong ("hallway")
            said = {i for w in a.slot_words for i in range(w.start, w.end)}
            fuzzy = self.names.fuzzy(a.tokens, start, end, skip=literal | said)
            devices = [h for h in fuzzy if h.kind == "device"]
            rooms = [
                r
                for r in rooms or [h for h in fuzzy if h.kind == "room"]
                if not any(d.start <= r.start and r.end <= d.end for d in devices)
            ]
        taken = {i for h in (*devices, *rooms) for i in range(h.start, h.end)}
        types = set(intent.device_types)
        if not types:
            # "is the door locked": the state word says which kind of device is meant
            states = {w.value for w in a.slot_words if w.slot == "state" and start <= w.start < end}
            types = {t for t, known in self.config.device_states.items() if states & set(known)}
        room = rooms[0] if rooms else None
        if room is not None and "room" in intent.slots:
            out.fills["room"] = SlotFill("room", room.key, room.start, room.end, room.how)
        if "device" not in intent.slots:
            return
        if devices:
            hit = devices[0]
            device = self.names.device(hit.key)
            name = device.name if device else hit.key
            out.fills["device"] = SlotFill("device", name, hit.start, hit.end, hit.how)
            # two devices may share a name (a select and a sensor "idle brightness"): the
            # one that fits the intent is meant
            same = [d for d in self.names.devices.values() if d.name == name]
            out.wrong_type = (
                bool(intent.device_types)
                and device is not None
                and not any(d.type in types for d in same)
            )
            return
        nouns = [h for h in names if h.kind == "noun" and h.start not in taken]
        nouns = _longest(nouns)
        candidates = []
        how = "room"
        span = (room.start, room.end) if room else (-1, -1)
        # "all the lights", "every lamp", or a plural noun: every device meant
        wants_all = any(a.tokens[i].lower in self.all_words for i in range(start, end))
        if nouns:
            noun = nouns[-1]
            last = a.tokens[noun.end - 1]
            wants_all = wants_all or (last.lower != last.lemma and last.lower.endswith("s"))
            candidates = self.names.devices_for_noun(noun.key, types, every=wants_all)
            how = "noun"
            span = (
                min(noun.start, span[0]) if span[0] >= 0 else noun.start,
                max(noun.end, span[1]),
            )
        if candidates:
            pass  # a type noun named them
        elif room is not None:
            # "vacuum the living room": every device of the kinds the intent acts on,
            # narrowed to the room below
            if types:
                candidates = [d for d in self.names.devices.values() if d.type in types]
            else:
                candidates = self.names.devices_in_room(room.key)
        elif intent.implies and not (nouns and self._other_type(nouns[-1].key, types)):
            # "dim a little", "make it warmer", "set the temperature to 20": the intent
            # itself says what it acts on (not when a noun names devices of another
            # type: "set the door to 50 percent" is not the thermostat's)
            candidates = [d for d in self.names.devices.values() if d.type == intent.implies]
            how = "implied"
            out.implied = True
        elif not nouns:
            return
        if room is not None:
            # devices that live in no room (a robot vacuum) go wherever they are sent; a
            # room without such a device leaves every candidate to choose from
            candidates = (
                [d for d in candidates if d.room == room.key]
                or [d for d in candidates if d.room is None]
                or candidates
            )
        if not candidates:
            # "set the door to 50 percent" for the thermostat: the noun names other devices
            out.wrong_type = bool(types and nouns and self._other_type(nouns[-1].key, types))
            return
        # every noun naming the device is explained by it: "the wemo plug socket"
        out.covered.update(i for h in nouns for i in range(h.start, h.end))
        if len(candidates) == 1:
            out.fills["device"] = SlotFill("device", candidates[0].name, span[0], span[1], how)
        elif wants_all:
            names_all = sorted(d.name for d in candidates)
            out.fills["device"] = SlotFill("device", names_all, span[0], span[1], "all")
        else:
            out.options = sorted(d.name for d in candidates)
            out.covered.update(range(span[0], span[1]))

    def _other_type(self, noun: str, types: set[str]) -> bool:
        """ "door" is a type noun of locks and covers, not of thermostats."""
        return any(
            noun in nouns for kind, nouns in self.config.device_nouns.items() if kind not in types
        ) and not any(noun in self.config.device_nouns.get(kind, []) for kind in types)

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
        # a slot value is a name, or an id where names are shared
        devices = [d for d in self.names.devices.values() if d.name in wanted or d.id in wanted]
        devices = [d for d in devices if d.type in intent.device_types] or devices
        captures = match.captures if match is not None else {}
        self.values.read(a, start, end, intent, devices, out, captures)

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
