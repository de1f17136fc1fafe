"""Which devices a question is about: by device class, by area, and as a set.

"is CO detected", "what's the humidity in the bedroom", "is the phone battery
low": the words of a device class (`intents/en/device_classes.yaml`) name the
entities of that class, narrowed by the area and by the other words of the
request that are words of their names. "how many lights are on", "are any
windows open", "is anything on": a set question's device slot lists every
device asked about (the answer counts or lists those in the state); ambiguity
is no problem there, it is the set. This runs after slot extraction, for
intents that only read (`QuestionFrame.acts` is false).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.config.questions import CLASS_DOMAINS
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.attributes import attribute_of_type
from mnemolis.understand.class_scope import ClassScope, longer, none_of, same
from mnemolis.understand.class_words import ClassHit, ClassWords
from mnemolis.understand.every_device import EveryDevice
from mnemolis.understand.kinds import names_it
from mnemolis.understand.named_reading import holds, unread
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.question_scope import Scope
from mnemolis.understand.slots import SlotFill, SlotResult
from mnemolis.understand.state_named import StateNamedFinder
from mnemolis.understand.text import TextPipeline, Token

#: `SlotFill.how` of a device found by its class in the one area asked about
CLASS_IN_AREA = "class in area"


@dataclass
class _Wanted:
    """What one part asks about, gathered once."""

    start: int
    end: int
    is_set: bool
    room: str | None
    named: bool  # a device was named by its own name
    areas: frozenset[str] | None = None  # the areas named (a room, a floor), else None
    origin: str | None = None  # the area the request was spoken in, when known


def start_end(hit: NameHit, wanted: _Wanted) -> bool:
    return wanted.start <= hit.start and hit.end <= wanted.end


def _lemma_forms(words: list[str], text: TextPipeline) -> list[tuple[str, ...]]:
    return [tuple(text.lemmas(w)) for w in words if w.strip()]


class DeviceSets:
    """Fills the device (and state, quantifier) slots of a reading question."""

    def __init__(self, config: Config, text: TextPipeline, names: NameIndex) -> None:
        self.config = config
        self.names = names
        self.classes = config.device_classes.classes
        self.words = ClassWords(config, text)
        self.scope = Scope(names)
        self.every = EveryDevice(config, text, names, self.scope)
        self.set_intents = set(config.questions.set_intents)
        self.read_actions = set(config.questions.read_actions) or {"state"}
        self.quiet = config.language.stop_words | config.language.filler_words
        self.plural_verbs = {"are", "were", "have"}
        generic = _lemma_forms(config.questions.generic_nouns, text)
        self.generic = sorted(generic, key=len, reverse=True)  # longest first, sorted once
        self.class_scope = ClassScope(config, text, self.scope)
        self.state_named = StateNamedFinder(config, self.words, self.scope)

    # ------------------------------------------------------------------ matching

    def class_hits(self, tokens: Sequence[Token], start: int, end: int) -> list[ClassHit]:
        return self.words.hits(tokens, start, end)

    def _generic(self, tokens: Sequence[Token], start: int, end: int) -> range | None:
        for form in self.generic:
            for s in range(start, end - len(form) + 1):
                if all(
                    tokens[s + k].lemma == w or tokens[s + k].lower == w for k, w in enumerate(form)
                ):
                    return range(s, s + len(form))
        return None

    # ------------------------------------------------------------------ entry

    def reads(self, intent: IntentSpec) -> bool:
        return (
            intent.source == "mqtt"
            and intent.action in self.read_actions
            and "device" in intent.slots
        )

    def refine(
        self, a: Analysis, start: int, end: int, intent: IntentSpec, out: SlotResult
    ) -> None:
        """Choose the devices of a reading question by class, area and set."""
        if not self.reads(intent):
            self.every.fill(a, start, end, intent, out)
            return
        device = out.fills.get("device")
        named = device is not None and (device.how == "exact" or device.how.startswith("fuzzy"))
        fuzzy = device is not None and device.how.startswith("fuzzy")
        rooms = {(h.start, h.end) for h in a.names if h.kind == "room"}
        nouns = [
            h
            for h in a.names
            if h.kind == "noun"
            and self.scope.is_type_word(h)
            and start <= h.start
            and h.end <= end
            and (h.start, h.end) not in rooms  # "the garage" is the room here
        ]
        if (
            named
            and device is not None
            and self._named_like_type(a, (start, end), device, nouns, out)
        ):
            named, device = False, out.fills.get("device")
        room_fill = out.fills.get("room")
        wanted = _Wanted(
            start,
            end,
            is_set=intent.name in self.set_intents or "quantifier" in out.fills,
            room=room_fill.value if room_fill is not None else None,
            named=named,
            areas=self.scope.areas(a, start, end, out),
            origin=self.names.canonical_room(a.origin_room),
        )
        hits = [h for h in self.class_hits(a.tokens, start, end) if (h.start, h.end) not in rooms]
        if intent.name in self.set_intents and self.class_scope.no_count(a.tokens, hits, out):
            return  # "how many kilometres are on the car": a reading, not a count
        if named:
            hits = [h for h in hits if not self._inside_name(h, device)]
        state = out.fills.get("state")
        if state is not None:
            # "is the door locked": a door sensor is never locked; the lock is meant
            hits = [h for h in hits if self.words.can_be(h.device_class, str(state.value))]
        # a type word ("doors", "lights") named them, not the last word of some names
        by_noun = bool(nouns) and (
            (device is not None and device.how in ("noun", "all"))
            or (device is None and bool(out.options))
        )
        if by_noun:
            # a type word means devices of that type ("are the lights on", not a light
            # sensor), unless a class phrase says more ("is the smoke detector on")
            if any(longer(h, n) for h in hits for n in nouns):
                by_noun = False
            else:
                # ... of a type that acts: "motion" or "sensor" name no type that does
                acting = self.class_scope.acting(intent, nouns)
                hits = [h for h in hits if not any(same(h, n) for n in acting)]
        part = (start, end, wanted.is_set)
        sensor = self.state_named.choose(a, wanted.areas, device, nouns, out, part)
        if sensor is not None:
            # "is the dishwasher ok": the one sensor a class's state word and its name name
            self._fill([sensor.device], (start, end), wanted, "class", out, binary=True)
            out.fills["state"] = sensor.state
            return
        if by_noun and "attribute" in out.fills and self.class_scope.reads_typed(intent, nouns):
            # "what humidity is the humidifier set to": the humidifier's target, the class
            # word is what is asked of it, not a humidity sensor
            hits = []
        if hits and device and (fuzzy or (named and unread(self.names, self.words, out, hits))):
            # a name heard slightly wrong never beats a class said plainly ("how much energy
            # has the washing machine used"), nor a lock does ("the front door lock battery")
            saved, covered, wrong = dict(out.fills), set(out.covered), out.wrong_type
            out.fills.pop("device", None)
            if fuzzy:
                out.covered -= set(device.tokens)  # the words heard as that name are free again
            found = self._by_class(a, intent, hits, wanted, out)
            if found and (fuzzy or holds(self.names, out, device)):
                self._attribute(out, hits)
                return
            out.fills, out.covered, out.wrong_type = saved, covered, wrong
        if hits and not named:
            if self._by_class(a, intent, hits, wanted, out):
                self._attribute(out, hits)
                return
            generic = self._generic(a.tokens, start, end) is not None
            if not by_noun and not (wanted.is_set and generic):
                # "is occupancy detected in the kitchen" with no such sensor there: never
                # another device of the room (or of no room) instead
                none_of(hits, out)
                return
            # "is the garage open", "is the door locked": a type noun named them
        if "device" not in out.fills and not out.options and not hits:
            self._by_state_in_room(wanted, out)
        if wanted.is_set and not named:
            self._as_set(a, intent, wanted, out)
        elif named and device is not None and "state" in intent.slots:
            self._named_state(a, device, wanted, out)
        self._attribute(out, hits)

    def _attribute(self, out: SlotResult, hits: list[ClassHit]) -> None:
        if "attribute" in self.config.slots:
            attribute_of_type(self.scope, out, hits)

    def _by_state_in_room(self, wanted: _Wanted, out: SlotResult) -> None:
        """ "is the shed closed": the area's binary sensors that can be in that state."""
        state = out.fills.get("state")
        if wanted.areas is None or state is None or str(state.value) in ("on", "off"):
            return
        binary = {c.name: c for c in self.classes if c.domain == "binary_sensor"}
        members = [
            d
            for d in self.names.devices.values()
            if d.type == "binary_sensor"
            and d.room in wanted.areas
            and d.device_class in binary
            and self.words.can_be(binary[d.device_class], str(state.value))
        ]
        if members:
            self._fill(members, (-1, -1), wanted, "room", out, binary=True)

    def _named_state(self, a: Analysis, device: SlotFill, wanted: _Wanted, out: SlotResult) -> None:
        """ "is the phone battery low": a named binary sensor's state in its class's words."""
        found = [d for d in self.names.devices.values() if d.name == device.value]
        if len(found) != 1 or found[0].type != "binary_sensor":
            return
        classes = [c for c in self.classes if c.domain == "binary_sensor"]
        dc = next((c for c in classes if c.covers(found[0].device_class)), None)
        if dc is not None:
            hit = ClassHit(dc, device.start, device.end)
            self._class_state(a, [hit], wanted, out, frozenset(device.tokens))

    # ------------------------------------------------------------------ every device

    def is_every(self, a: Analysis, start: int, end: int) -> bool:
        """A part that is only an every-device phrase ("lock up") is a request of its own."""
        return self.every.is_every(a, start, end)

    def _named_like_type(
        self,
        a: Analysis,
        part: tuple[int, int],
        device: SlotFill,
        nouns: list[NameHit],
        out: SlotResult,
    ) -> bool:
        """A binary sensor called "light" is not what "the lights" means: a name that is
        only a type word gives way to the devices of that type."""
        noun = next((n for n in nouns if (n.start, n.end) == (device.start, device.end)), None)
        if noun is None:
            return False
        typed = self.scope.typed(noun.key)
        named = self.scope.device_of(device.value)
        if named is None or named in typed or names_it(self.names, noun.key, named):
            return False  # (a switch called "dehumidifier" is what the word means)
        areas = self.scope.areas(a, *part, out)
        last = a.tokens[noun.end - 1]
        plural = last.lower != last.lemma and last.lower.endswith("s")
        one = not plural and "quantifier" not in out.fills
        if one and areas is not None and named.room in areas:
            return False  # "is the office light on": the area says which, its own "light"
        state = out.fills.get("state")
        types = self._types(str(state.value) if state is not None else None)
        members = [d for d in typed if not types or d.type in types]
        if areas is not None:
            members = [d for d in members if d.room in areas]
        if not members:
            return False
        out.fills.pop("device", None)
        if len(members) == 1:
            label = self.scope.labels(members)[0]
            out.fills["device"] = SlotFill("device", label, noun.start, noun.end, "noun")
        elif plural:
            names = self.scope.labels(members)
            out.fills["device"] = SlotFill("device", names, noun.start, noun.end, "all")
        else:
            out.options = self.scope.labels(members)
        return True

    @staticmethod
    def _inside_name(hit: ClassHit, device: SlotFill | None) -> bool:
        return device is not None and device.start <= hit.start and hit.end <= device.end

    # ------------------------------------------------------------------ by class

    def _by_class(
        self,
        a: Analysis,
        intent: IntentSpec,
        hits: list[ClassHit],
        wanted: _Wanted,
        out: SlotResult,
    ) -> bool:
        class_tokens = frozenset(i for h in hits for i in range(h.start, h.end))
        binary = [h for h in hits if h.device_class.domain == "binary_sensor"]
        sensor = [h for h in hits if h.device_class.domain == "sensor"]
        stated = [
            h
            for h in binary
            if self.words.state_word(a, h.device_class, wanted.start, wanted.end) is not None
        ]
        # a set or a state word ("low", "detected") asks a binary sensor; "what is" a sensor
        asks_binary = wanted.is_set or bool(stated) or "state" in out.fills
        order = [stated or binary, sensor] if asks_binary else [sensor, binary]
        tried = [(group, also) for group in order for also in (False, True)]
        for group, also in tried:
            devices = self.names.devices
            found = [d for h in group for d in self.words.members_of(devices, h.device_class, also)]
            members = self._narrow(a, found, wanted, class_tokens, out)
            here = members
            if wanted.areas is None and not wanted.is_set and "quantifier" not in out.fills:
                here = self.class_scope.spoken_in(
                    a.tokens, wanted.start, group, members, wanted.origin
                )
            if not here:
                continue
            for h in hits:
                out.covered.update(range(h.start, h.end))
            span = (min(h.start for h in group), max(h.end for h in group))
            # one device of the class in the area named or spoken in: the question is
            # about it, not about the weather ("what's the temperature in here")
            located = wanted.areas is not None or here != members
            how = CLASS_IN_AREA if located and len(here) == 1 else "class"
            self._fill(here, span, wanted, how, out, binary=group is not sensor)
            several = isinstance(out.fills.get("device", SlotFill("", "")).value, list)
            asks_quantity = "quantifier" in intent.slots and "quantifier" not in out.fills
            if group is not sensor and several and asks_quantity:
                # "are the smoke detectors clear" asks of all of them, "is smoke detected" of any
                plural = a.tokens[wanted.start].lower in self.plural_verbs
                quantifier = "all" if plural else "any"
                out.fills["quantifier"] = SlotFill("quantifier", quantifier, -1, -1, "class")
            if group is not sensor and "state" in intent.slots:
                self._class_state(a, group, wanted, out, class_tokens)
                if wanted.is_set and "state" not in out.fills:
                    # "which rooms have motion": a binary sensor's set asks what it detects
                    out.fills["state"] = SlotFill("state", "on", -1, -1, "class")
            return True
        return False

    def _class_state(
        self,
        a: Analysis,
        group: list[ClassHit],
        wanted: _Wanted,
        out: SlotResult,
        skip: frozenset[int] = frozenset(),
    ) -> None:
        """The state in the class's words, unless the state slot said it with more
        words: "is the smoke detector going off" is on, not "off"."""
        said = out.fills.get("state")
        for h in group:
            # outside the words that name it first; "is my phone charging" has it inside
            fill = self.words.state_word(
                a, h.device_class, wanted.start, wanted.end, skip
            ) or self.words.state_word(a, h.device_class, wanted.start, wanted.end)
            if fill is None:
                continue
            longer = said is not None and (
                fill.start <= said.start
                and said.end <= fill.end
                and fill.end - fill.start > said.end - said.start
            )
            if said is None or longer:
                out.fills["state"] = fill
                out.covered.update(fill.tokens)
            return

    def _narrow(
        self,
        a: Analysis,
        members: list[Device],
        wanted: _Wanted,
        skip: frozenset[int],
        out: SlotResult,
    ) -> list[Device]:
        """Only the area's devices, then those whose names share the most other words."""
        unique = list({d.id: d for d in members}.values())
        if wanted.areas is not None:
            unique = [d for d in unique if d.room in wanted.areas]
        room = out.fills.get("room")
        taken = set(skip) | (set(room.tokens) if room is not None else set())
        words = {  # as said and as its lemma: "dryer" is no "dry" of "dryer power"
            w
            for i in range(wanted.start, wanted.end)
            if i not in taken and not a.tokens[i].is_punct and a.tokens[i].lower not in self.quiet
            for w in (a.tokens[i].lemma, a.tokens[i].lower)
        }

        def overlap(d: Device) -> int:
            return max(len(words & set(form.split())) for form in d.names)

        if words and len(unique) > 1:
            best = max(overlap(d) for d in unique)
            unique = [d for d in unique if overlap(d) == best] if best else unique
        # the words of their names are explained by them: "the phone" in "how much charge
        # does the phone have"
        said = {w for d in unique for w in d.name.split()}
        for i in range(wanted.start, wanted.end):
            if i not in taken and (a.tokens[i].lemma in said or a.tokens[i].lower in said):
                out.covered.add(i)
        return unique

    def _fill(
        self,
        members: list[Device],
        span: tuple[int, int],
        wanted: _Wanted,
        how: str,
        out: SlotResult,
        binary: bool,
    ) -> None:
        out.options = []
        out.wrong_type = False
        if len(members) == 1:
            label = self.scope.labels(members)[0]
            out.fills["device"] = SlotFill("device", label, span[0], span[1], how)
        elif wanted.is_set or binary:
            # a reading of several binary sensors answers for all of them: "is there a leak"
            names = self.scope.labels(members)
            out.fills["device"] = SlotFill("device", names, span[0], span[1], how)
        else:
            out.fills.pop("device", None)
            out.options = self.scope.labels(members)
        out.covered.update(range(span[0], span[1]))

    # ------------------------------------------------------------------ sets

    def _types(self, state: str | None) -> set[str]:
        """The device types that can be in ``state`` (devices.yaml's ``states``)."""
        if state is None:
            return set()
        return {t for t, known in self.config.device_states.items() if state in known}

    def _as_set(self, a: Analysis, intent: IntentSpec, wanted: _Wanted, out: SlotResult) -> None:
        """ "are any lights on": the ambiguous ones are the set; "is anything on": every
        device that can be in the state asked about."""
        state = out.fills.get("state")
        device = out.fills.get("device")
        nouns = [h for h in a.names if h.kind == "noun" and start_end(h, wanted)]
        rooms = {(h.start, h.end) for h in a.names if h.kind == "room"}
        # "which lights are on in the kitchen": the type word, not a light called "Kitchen"
        kinds = [n for n in nouns if (n.start, n.end) not in rooms] or nouns
        if kinds and (device is None or device.how in ("noun", "all")):
            # "is any light on": every device of the type, not those named like it
            types = self._types(state.value if state is not None else None)
            typed = self.scope.typed(kinds[-1].key)
            members = [d for d in typed if not types or d.type in types]
            if wanted.areas is not None:
                members = [d for d in members if d.room in wanted.areas]
            if members:
                span = (kinds[-1].start, kinds[-1].end)
                out.fills["device"] = SlotFill("device", self.scope.labels(members), *span, "all")
                out.options = []
                return
        generic = self._generic(a.tokens, wanted.start, wanted.end)
        type_words = [
            n for n in nouns if self.scope.is_type_word(n) and (n.start, n.end) not in rooms
        ]
        from_area = device is not None and device.how in ("room", "all") and not type_words
        if generic is None and from_area and wanted.areas is not None:
            generic = range(-1, -1)  # "what's on in the bedroom": everything there
            device = None
            out.fills.pop("device", None)
        if out.options and device is None and generic is None:
            out.fills["device"] = SlotFill("device", sorted(out.options), -1, -1, "all")
            out.options = []
            return
        if generic is None and (device is not None or out.options):
            return
        if state is None:
            return
        types = self._types(state.value)
        binary = {c.name: c for c in self.classes if c.domain == "binary_sensor"}
        value = str(state.value)
        members = [
            d
            for d in self.names.devices.values()
            if d.refused is None
            and (
                (d.type in types and d.type not in CLASS_DOMAINS)
                # "is anything open": the windows too, but "is anything on" no motion sensor
                or (
                    d.type == "binary_sensor"
                    and value not in ("on", "off")
                    and d.device_class in binary
                    and self.words.can_be(binary[d.device_class], value)
                )
            )
        ]
        if wanted.areas is not None:
            members = [d for d in members if d.room in wanted.areas]
        if not members:
            return
        span = (generic.start, generic.stop) if generic else (-1, -1)
        out.wrong_type = False
        out.options = []
        out.fills["device"] = SlotFill("device", self.scope.labels(members), *span, "all")
        if generic:
            out.covered.update(generic)
