"""Known names: devices, rooms, fixed pairs and titles offered by sources.

Names are matched exactly first (on lemmas, so "kitchen lights" is the
"kitchen light"), then fuzzily with rapidfuzz for speech errors ("kitchen
lite", "kichen light"). The index is rebuilt when the device registry
changes, so a device announced by discovery is understood at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from mnemolis.config import Config
from mnemolis.devices import Device, DeviceRegistry
from mnemolis.understand.lookup import NameSource
from mnemolis.understand.text import TextPipeline, Token


@dataclass(frozen=True)
class NameHit:
    """A name found in the query: a device, a room, a type noun or a fixed pair."""

    kind: str  # device | room | noun | pair
    key: str  # device id, room name, device type or the pair itself
    start: int
    end: int
    score: float = 100.0

    @property
    def how(self) -> str:
        return "exact" if self.score >= 100 else f"fuzzy:{self.score / 100:.2f}"


@dataclass
class _Compiled:
    matcher: PhraseMatcher
    devices: dict[str, Device]
    rooms: dict[str, str]  # every spoken form -> canonical room
    device_forms: dict[str, str]  # every spoken form -> device id
    type_nouns: dict[str, list[str]]  # type noun lemma -> device ids of that type
    head_nouns: dict[str, list[str]]  # last word of a device name -> device ids
    protected: set[str]  # lower-case names that contain a conjunction
    choices: list[tuple[str, str, str]]  # (form, kind, key) for fuzzy matching


class NameIndex:
    """Exact and fuzzy name lookup over one compiled snapshot of the registry."""

    def __init__(
        self,
        config: Config,
        text: TextPipeline,
        registry: DeviceRegistry,
        name_sources: Iterable[NameSource] = (),
    ) -> None:
        self.config = config
        self.text = text
        self.registry = registry
        self.name_sources = list(name_sources)
        self.fuzzy_cutoff = config.language.routing.get("fuzzy_name_cutoff", 84.0)
        self._conj_words = {c for c in config.language.conjunctions if " " not in c} | {"&"}
        self._lock = threading.Lock()
        self._compiled = self._compile()
        registry.subscribe(self._on_registry_change)

    def add_name_source(self, source: NameSource) -> None:
        self.name_sources.append(source)

    def _on_registry_change(self, _registry: DeviceRegistry) -> None:
        compiled = self._compile()
        with self._lock:
            self._compiled = compiled

    def _compile(self) -> _Compiled:
        matcher = PhraseMatcher(self.text.vocab, attr="LEMMA")
        devices = {d.id: d for d in self.registry.devices()}
        device_forms: dict[str, str] = {}
        for device in devices.values():
            for form in device.names:
                device_forms.setdefault(form, device.id)
                matcher.add(f"device\t{device.id}", [self.text.doc(form)])
        rooms: dict[str, str] = {}
        for room, aliases in self.registry.rooms().items():
            for form in (room, *aliases):
                rooms.setdefault(form, room)
                matcher.add(f"room\t{room}", [self.text.doc(form)])
        type_nouns: dict[str, list[str]] = {}
        for dtype, nouns in self.config.device_nouns.items():
            for noun in nouns:
                lemma = " ".join(self.text.lemmas(noun))
                matcher.add(f"noun\t{lemma}", [self.text.doc(noun)])
                ids = type_nouns.setdefault(lemma, [])
                ids.extend(d.id for d in devices.values() if d.type == dtype and d.id not in ids)
        head_nouns: dict[str, list[str]] = {}
        for device in devices.values():
            head = self.text.lemmas(device.name)[-1]
            matcher.add(f"noun\t{head}", [self.text.doc(head)])
            head_nouns.setdefault(head, []).append(device.id)
        protected = set()
        for pair in self.config.language.fixed_pairs:
            matcher.add("pair\t" + pair, [self.text.doc(pair)])
            protected.add(pair)
        for form in (*device_forms, *rooms):
            if any(w in self._conj_words for w in form.split()):
                protected.add(form)
        choices = [(f, "device", i) for f, i in device_forms.items()]
        choices += [(f, "room", r) for f, r in rooms.items()]
        return _Compiled(
            matcher, devices, rooms, device_forms, type_nouns, head_nouns, protected, choices
        )

    # ------------------------------------------------------------------ lookups

    @property
    def devices(self) -> dict[str, Device]:
        return self._compiled.devices

    def device(self, device_id: str) -> Device | None:
        return self._compiled.devices.get(device_id)

    def devices_for_noun(
        self, noun: str, types: set[str] | None = None, every: bool = False
    ) -> list[Device]:
        """Devices a generic noun can mean: those named with it ("the blinds" -> the
        living room blinds) first, else every device of a type it names; with
        ``every`` ("all the lights") the type comes first."""
        c = self._compiled
        tables = (c.type_nouns, c.head_nouns) if every else (c.head_nouns, c.type_nouns)
        for table in tables:
            found = [c.devices[i] for i in table.get(noun, []) if i in c.devices]
            if types:
                found = [d for d in found if d.type in types]
            if found:
                return found
        return []

    def devices_in_room(self, room: str) -> list[Device]:
        return [d for d in self._compiled.devices.values() if d.room == room]

    def find(self, doc: Doc) -> list[NameHit]:
        """Every exact name in ``doc`` (overlaps included; callers pick the longest)."""
        c = self._compiled
        hits = []
        strings = self.text.vocab.strings
        for match_id, start, end in c.matcher(doc):
            kind, key = strings[match_id].split("\t", 1)
            hits.append(NameHit(kind, key, start, end))
        return hits

    def fuzzy(self, tokens: Sequence[Token], start: int, end: int, skip: set[int]) -> list[NameHit]:
        """Device and room names heard slightly wrong, in tokens[start:end]."""
        c = self._compiled
        if not c.choices:
            return []
        forms = [f for f, _, _ in c.choices]
        hits: list[NameHit] = []
        taken: set[int] = set(skip)
        for size in (3, 2, 1):
            for s in range(start, end - size + 1):
                span = range(s, s + size)
                if any(i in taken for i in span) or any(tokens[i].is_punct for i in span):
                    continue
                words = [tokens[i].lower for i in span]
                if words[0] in self.config.language.stop_words:
                    continue
                phrase = " ".join(words)
                if len(phrase) < 5:
                    continue
                found = process.extractOne(
                    phrase, forms, scorer=fuzz.ratio, score_cutoff=self.fuzzy_cutoff
                )
                if found is None:
                    continue
                form, score, index = found
                if len(form.split()) != size and abs(len(form) - len(phrase)) > 2:
                    continue
                _, kind, key = c.choices[index]
                hits.append(NameHit(kind, key, s, s + size, float(score)))
                taken.update(span)
        return hits

    def is_protected(self, phrase: str) -> bool:
        """True when ``phrase`` (lower-case) is a name that contains a conjunction."""
        if phrase in self._compiled.protected:
            return True
        return any(source.is_name(phrase) for source in self.name_sources)
