"""Known names: devices, areas, floors, fixed pairs and titles offered by sources.

Names are matched the way they are spoken: case, underscores, hyphens, a leading "the" and
number words ("lamp two" is "lamp 2") do not matter, in the index and in the query alike.
Exact matches come first (on lemmas, so "kitchen lights" is the "kitchen light"); fuzzy
matching (rapidfuzz) is for speech errors only ("kitchen lite") and is careful: it never
hears a name in a word that means something of its own ("halfway", "hot") nor with other
numbers ("lamp 3" is not "lamp 1"), never replaces a span that is (the start of) a known
name with another name, and needs a margin over the next name, else the hit carries the
close calls so that a "which one" question is asked. The index is rebuilt when the registry
changes, so a device announced by discovery is understood at once.

Areas that are not one room's name are room hits with a marked key (`AREA_MARK`): a
floor (``floor:<name>``), ``@upstairs``, ``@downstairs``, ``@everywhere``, ``@here``,
resolved by `mnemolis.understand.areas`.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry, Floor, name_key
from mnemolis.understand.lookup import NameSource
from mnemolis.understand.meaningful_words import meaningful_words
from mnemolis.understand.name_memo import NameMemo, alias_index, device_named, of_type
from mnemolis.understand.name_spans import fuzzy_spans
from mnemolis.understand.normalize import Normalizer
from mnemolis.understand.spacy_lite import Doc, PhraseMatcher
from mnemolis.understand.text import TextPipeline, Token

#: Room keys that are not one room: floors and the relative area words.
FLOOR_PREFIX = "floor:"
AREA_MARK = "@"
RELATIVE_AREAS = ("upstairs", "downstairs", "everywhere", "here")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class NameHit:
    """A name found in the query: a device, a room, a type noun or a fixed pair."""

    kind: str  # device | room | noun | pair
    key: str  # device id, room name (or floor / relative area), device type or the pair
    start: int
    end: int
    score: float = 100.0
    #: Fuzzy only: other names (same kind) that scored too close to tell apart.
    alternatives: tuple[str, ...] = ()

    @property
    def how(self) -> str:
        return "exact" if self.score >= 100 else f"fuzzy:{self.score / 100:.2f}"

    @property
    def is_area(self) -> bool:
        """A room hit that names one room (not a floor or "upstairs")."""
        return self.kind == "room" and not self.key.startswith((FLOOR_PREFIX, AREA_MARK))


@dataclass
class _Compiled:
    matcher: PhraseMatcher
    devices: dict[str, Device]
    rooms: dict[str, str]  # every spoken form -> canonical room
    floors: dict[str, Floor]
    device_forms: dict[str, list[str]]  # every spoken form -> device ids
    type_nouns: dict[str, set[str]]  # type noun lemma -> the device types it names
    head_nouns: dict[str, list[str]]  # last word of a device name -> device ids
    protected: set[str]  # lower-case names that contain a conjunction
    forms: list[str]  # every spoken form, once, shortest first, for fuzzy matching
    form_keys: list[list[tuple[str, str]]]  # what each of those forms names: (kind, key)
    continuations: dict[str, list[tuple[str, str]]]  # a name's start -> (next word, id)
    name_words: dict[str, set[str]]  # device id -> the lemmas of its name's words
    word_index: dict[str, set[str]]  # a lemma -> the devices whose names have it
    vocabulary: set[str]  # every word of every spoken form
    lengths: list[int]  # len() of each of ``forms``
    memo: NameMemo = field(default_factory=NameMemo)  # answers asked again of this snapshot


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
        routing = config.language.routing
        self.fuzzy_cutoff = routing.get("fuzzy_name_cutoff", 84.0)
        self.fuzzy_margin = routing.get("fuzzy_name_margin", 6.0)
        self._normalizer = Normalizer(config.language)
        lang = config.language
        self._number_tokens = {*lang.numbers, *lang.multipliers}
        self._number_words: dict[str, str] = {}
        for word, value in config.language.numbers.items():  # the file's first word per value
            if value < 100 and " " not in word:
                self._number_words.setdefault(str(value), word)
        self._conj_words = {c for c in config.language.conjunctions if " " not in c} | {"&"}
        self._meaningful = meaningful_words(config)
        self._noun_groups = [
            [" ".join(text.lemmas(n)) for n in group] for group in config.noun_groups
        ]
        self._lock = threading.Lock()
        self._compiled = self._compile()
        registry.subscribe(self._on_registry_change)

    def add_name_source(self, source: NameSource) -> None:
        self.name_sources.append(source)

    def _on_registry_change(self, _registry: DeviceRegistry) -> None:
        compiled = self._compile()
        with self._lock:
            self._compiled = compiled

    def spoken_forms(self, name: str) -> list[str]:
        """A name as typed and as said: "Lamp-2" -> "lamp-2", "lamp 2"; "lamp two" -> "lamp 2"."""
        forms = [" ".join(name.lower().split()), name_key(name)]
        if any(w in self._number_tokens for w in forms[-1].split()):
            forms.append(self._normalizer.normalize(forms[-1]).text.lower())
        if any(w in self._number_words for w in forms[-1].split()):
            said = [self._number_words.get(w, w) for w in forms[-1].split()]
            forms.append(" ".join(said))  # "lamp 1" is also "lamp one" (kept as a word)
        if len(first := forms[1].split(" ", 1)) > 1 and not first[0].endswith("'s"):
            forms.append(f"{first[0]}'s {first[1]}")  # "the modem's upload rate"
        return [f for i, f in enumerate(forms) if f and f not in forms[:i]]

    def _compile(self) -> _Compiled:
        matcher = PhraseMatcher(self.text.vocab, attr="LEMMA")
        docs: dict[str, Doc] = {}

        def doc(text: str) -> Doc:
            found = docs.get(text)
            if found is None:
                found = docs[text] = self.text.doc(text)
            return found

        devices = {d.id: d for d in self.registry.devices()}
        canonical = {name_key(d.name) for d in devices.values()}
        device_forms: dict[str, list[str]] = {}
        for device in devices.values():
            patterns: dict[str, Doc] = {}
            # its area + its name ("kitchen ceiling light") is a room hit then a device
            # hit: the area narrows the devices that share the name (targets.py); an
            # alias that is another device's name is that device's
            own = name_key(device.name)
            names = [
                device.name,
                *(a for a in device.aliases if name_key(a) not in canonical - {own}),
            ]
            for name in names:
                for form in self.spoken_forms(name):
                    ids = device_forms.setdefault(form, [])
                    if device.id not in ids:
                        ids.append(device.id)
                        pattern = doc(form)
                        patterns.setdefault(" ".join(t.lemma_ for t in pattern), pattern)
            matcher.add(f"device\t{device.id}", list(patterns.values()))
        rooms: dict[str, str] = {}
        for room, aliases in self.registry.rooms().items():
            for name in (room, *aliases):
                for form in self.spoken_forms(name):
                    rooms.setdefault(form, room)
                    matcher.add(f"room\t{room}", [doc(form)])
        floors = self.registry.floors()
        self._add_areas(matcher, floors)
        type_nouns: dict[str, set[str]] = {}
        for dtype, nouns in self.config.device_nouns.items():
            for noun in nouns:
                lemma = " ".join(self.text.lemmas(noun))
                matcher.add(f"noun\t{lemma}", [doc(noun)])
                type_nouns.setdefault(lemma, set()).add(dtype)
        head_nouns: dict[str, list[str]] = {}
        name_words: dict[str, set[str]] = {}
        word_index: dict[str, set[str]] = {}
        room_heads: set[str] = set()
        kept_heads: set[str] = set()  # a device called "Kitchen" keeps its noun
        for device in devices.values():
            # the last word of its own name (an alias's is not: "coffee machine" makes
            # no "x-ray machine" a coffee maker)
            lemmas = [t.lemma_ for t in doc(name_key(device.name))]
            head_nouns.setdefault(lemmas[-1], []).append(device.id)
            if len(lemmas) > 1 and lemmas[-1] in rooms:
                # "shelly1pm-kitchen", "esp32 garage": named by its room, and "in the
                # kitchen" is that room, not a noun for the one device
                room_heads.add(lemmas[-1])
            else:
                kept_heads.add(lemmas[-1])
            name_words[device.id] = set(lemmas)
            for lemma in lemmas:
                word_index.setdefault(lemma, set()).add(device.id)
        day = self.config.slots.get("day")
        days = set(day.values) if day is not None else set()
        states = {s for words in self.config.device_states.values() for s in words}
        for head in head_nouns:  # "light 2", "grid energy today", "All Off": no noun
            if head.isdigit() or head in days or head in states or head in room_heads - kept_heads:
                continue
            matcher.add(f"noun\t{head}", [doc(head)])
        protected = set()
        for pair in self.config.language.fixed_pairs:
            matcher.add("pair\t" + pair, [doc(pair)])
            protected.add(pair)
        for form in (*device_forms, *rooms):
            if any(w in self._conj_words for w in form.split()):
                protected.add(form)
        keys: dict[str, list[tuple[str, str]]] = {}
        for form, ids in device_forms.items():
            keys.setdefault(form, []).extend(("device", i) for i in ids)
        for form, room in rooms.items():
            keys.setdefault(form, []).append(("room", room))
        continuations: dict[str, list[tuple[str, str]]] = {}
        for form, ids in device_forms.items():
            words = form.split()
            for n in range(1, len(words)):
                lead = continuations.setdefault(" ".join(words[:n]), [])
                lead.extend((words[n], i) for i in ids)
        return _Compiled(
            matcher,
            devices,
            rooms,
            floors,
            device_forms,
            type_nouns,
            head_nouns,
            protected,
            sorted(keys, key=len),  # by length: a fuzzy match only looks at similar lengths
            [keys[f] for f in sorted(keys, key=len)],
            continuations,
            name_words,
            word_index,
            {w for form in keys for w in form.split()},
            sorted(len(f) for f in keys),
        )

    def _add_areas(self, matcher: PhraseMatcher, floors: dict[str, Floor]) -> None:
        """Floors by name, alias and ordinal ("the first floor"), and the relative words.
        A floor's own name or alias ("downstairs", a US "first floor") is that floor only."""
        words = self.config.language.areas
        named = {
            floor.name: [f for n in (floor.name, *floor.aliases) for f in self.spoken_forms(n)]
            for floor in floors.values()
        }
        own = {f for forms in named.values() for f in forms}
        for floor in floors.values():
            key = f"room\t{FLOOR_PREFIX}{floor.name}"
            phrases = named[floor.name] + [
                p
                for p, level in words.floor_phrases().items()
                if level == floor.level and p not in own
            ]
            for phrase in phrases:
                # "on the first floor": the preposition belongs to the floor, not to "turn
                # on"; "on upstairs" is the state "on" then the floor ("what is on upstairs")
                leads = words.floor_leads if phrase.split()[-1] in words.floor_nouns else []
                for lead in ("", *leads):
                    matcher.add(key, [self.text.doc(f"{lead} {phrase}".strip())])
        for relative in RELATIVE_AREAS:
            for phrase in getattr(words, relative):
                if any(form in own for form in self.spoken_forms(phrase)):
                    continue  # "downstairs" in a home with a floor of that name
                matcher.add(f"room\t{AREA_MARK}{relative}", [self.text.doc(phrase)])

    # ------------------------------------------------------------------ lookups

    @property
    def devices(self) -> dict[str, Device]:
        return self._compiled.devices

    @property
    def floors(self) -> dict[str, Floor]:
        return self._compiled.floors

    def canonical_room(self, room: str | None) -> str | None:
        """The room a front-end's area name means ("Lounge" -> living room), or None."""
        if not room:
            return None
        rooms = self._compiled.rooms
        for form in self.spoken_forms(room):
            if form in rooms:
                return rooms[form]
        return " ".join(room.lower().split())

    def device(self, device_id: str) -> Device | None:
        return self._compiled.devices.get(device_id)

    def label(self, device: Device) -> str:
        """The slot value for ``device``: a name that leads back to it alone (or its id)."""
        return self.registry.label(device)

    def noun_types(self, noun: str) -> set[str]:
        """The device types a type noun names ("lights" -> light), empty for other nouns."""
        return self._compiled.type_nouns.get(noun, set())

    def device_named(self, label: str) -> Device | None:
        """The device a slot's label names (`DeviceRegistry.by_name`), remembered."""
        return device_named(self._compiled.memo, self.registry, label)

    def of_type(self, device_type: str) -> list[Device]:
        return list(of_type(self._compiled.memo, self._compiled.devices.values(), device_type))

    def noun_tiers(self, noun: str) -> list[list[Device]]:
        """`_noun_tiers`, worked out once per noun for this snapshot of the registry."""
        memo = self._compiled.memo.tiers
        if (found := memo.get(noun)) is None:
            found = memo[noun] = self._noun_tiers(noun)
        return [list(tier) for tier in found]

    def _noun_tiers(self, noun: str) -> list[list[Device]]:
        """Devices a generic noun can mean, most likely first.

        A type word means the devices of its types, even where a device of another
        type is *named* like it (a binary sensor called "light"), but not those of
        another device class when classes tell them apart ("the blinds" are not the
        awning or the garage door, unless named with the word). The type's own word
        ("the lights") means all of them; another ("the lamps") those named with it
        first; then other types' devices whose name ends in it ("the lamp": the switch
        "floor lamp"). A brand ("the sonoff") is first every device named with it."""
        c = self._compiled
        noun_types = c.type_nouns.get(noun, set())
        classes = {noun, self.text.lemma(noun), noun.removesuffix("s")}
        by_type = [d for d in c.devices.values() if d.type in noun_types]
        with_word = {i for w in classes for i in c.word_index.get(w, ())}
        for same in self._same_nouns(noun):  # "air conditioner", or "ac" for it
            with_word |= self.named_with(same.split())
        class_used = any(d.device_class in classes for d in by_type)

        def other_class(d: Device) -> bool:
            if d.device_class is None or d.device_class in classes:
                return False
            return class_used or d.device_class in c.type_nouns

        meant = [d for d in by_type if d.id in with_word or not other_class(d)]
        named = [d for d in meant if d.id in with_word or d.device_class in classes]
        named_ids = {d.id for d in named}
        generic = bool(classes & noun_types)
        tiers = [meant] if generic else [named, [d for d in meant if d.id not in named_ids]]
        if not generic and not self.text.is_dictionary_word(noun):
            tiers[0] = [c.devices[i] for i in sorted(with_word) if i in c.devices] or named
        # "the lamp" for a switch called "floor lamp", not "the water" for the water heater
        heads = {i for w in classes for i in c.head_nouns.get(w, ())}
        others = [c.devices[i] for i in sorted(with_word & heads) if i in c.devices]
        tiers.append([d for d in others if d.type not in noun_types])
        return [tier for tier in tiers if tier]

    def _same_nouns(self, noun: str) -> list[str]:
        """The lemmas of the nouns that mean what ``noun`` does (itself among them)."""
        return [n for g in self._noun_groups if noun in g for n in g] or [noun]

    def is_noun(self, word: str) -> bool:
        """True when ``word`` names a kind of device (a type word or a name's last word)."""
        return word in self._compiled.type_nouns or word in self._compiled.head_nouns

    def is_name_word(self, lemma: str) -> bool:
        """True when some device's own name has this word."""
        return lemma in self._compiled.word_index

    def named_with(self, lemmas: list[str], aliases: bool = False) -> set[str]:
        """The ids of the devices whose own names (``aliases``: or one) have every word."""
        c = self._compiled
        index = alias_index(c.memo, c.devices, self.text.lemmas) if aliases else c.word_index
        found: set[str] | None = None
        for lemma in lemmas:
            ids = index.get(lemma, set())
            found = set(ids) if found is None else found & ids
            if not found:
                return set()
        return found or set()

    def name_words(self, device: Device) -> set[str]:
        """The lemmas of a device's own name's words."""
        return self._compiled.name_words.get(device.id, set())

    def find(self, doc: Doc) -> list[NameHit]:
        """Every exact name in ``doc`` (overlaps included; callers pick the longest)."""
        c = self._compiled
        hits = []
        strings = self.text.vocab.strings
        for match_id, start, end in c.matcher(doc):
            kind, key = strings[match_id].split("\t", 1)
            hits.append(NameHit(kind, key, start, end))
        return hits

    def starts_a_name(self, phrase: str) -> bool:
        """True when ``phrase`` is the first word(s) of a longer known name."""
        return phrase in self._compiled.continuations

    def continued(self, phrase: str, following: str) -> list[str]:
        """Devices whose name is ``phrase`` then a word ``following`` begins ("bulb" +
        "end" -> the "bulb enddevice"): the words said may be a longer name cut short."""
        if len(following) < 2:
            return []
        found = self._compiled.continuations.get(phrase, [])
        return list(dict.fromkeys(i for word, i in found if word.startswith(following)))

    def fuzzy(
        self,
        tokens: Sequence[Token],
        start: int,
        end: int,
        skip: set[int],
        whole: bool = False,
        known: set[int] | None = None,
        memo: dict[Any, Any] | None = None,
        sizes: Sequence[int] = (3, 2, 1),
    ) -> list[NameHit]:
        """Device and room names heard slightly wrong, in tokens[start:end], spans of
        ``sizes`` words; with ``whole``, only spans from ``start``, including those that
        start a known name (the caller knows the words after them were meant as the
        rest of a name). A span made only of ``known`` tokens (type words, areas:
        understood exactly) is never tried."""
        c = self._compiled
        if not c.forms:
            return []
        memo = {} if memo is None else memo
        stop = self.config.language.stop_words
        hits: list[NameHit] = []
        taken: set[int] = set(skip)
        for s, size, words in fuzzy_spans(tokens, start, end, whole, known, sizes, stop, memo):
            if not taken.isdisjoint(range(s, s + size)):
                continue
            key = ("fuzzy", id(c), words, whole)
            if key not in memo:
                memo[key] = self._fuzzy_span(c, c.forms, list(words), 0, size, whole)
            if (found := memo[key]) is not None:
                hits.append(dataclasses.replace(found, start=s, end=s + size))
                taken.update(range(s, s + size))
        return hits

    def _fuzzy_span(
        self, c: _Compiled, forms: list[str], words: list[str], s: int, size: int, whole: bool
    ) -> NameHit | None:
        phrase = " ".join(words)
        if len(phrase) < 5 or phrase in c.device_forms or phrase in c.rooms:
            return None
        if phrase in c.continuations and not whole:
            return None  # the start of a known name is not another name heard wrong
        if any(w in self._meaningful and w not in c.vocabulary for w in words):
            return None  # "halfway" means half way, not "hallway"
        # a ratio of at least the cutoff needs a length within these bounds
        cut = self.fuzzy_cutoff / 100
        low = bisect.bisect_left(c.lengths, int(len(phrase) * cut / (2 - cut)))
        high = bisect.bisect_right(c.lengths, int(len(phrase) * (2 - cut) / cut) + 1)
        near = forms[low:high]
        found = process.extract(
            phrase, near, scorer=fuzz.ratio, score_cutoff=self.fuzzy_cutoff, limit=12
        )
        if size > 1 and not found:
            # "the right bedside lamp" is the "bedside lamp right": words in another order
            found += process.extract(
                phrase,
                near,
                scorer=fuzz.token_sort_ratio,
                score_cutoff=self.fuzzy_cutoff,
                limit=12,
            )
        best: dict[tuple[str, str], float] = {}
        numbers = _DIGITS.findall(phrase)
        for form, score, offset in found:
            index = low + offset
            if len(form.split()) != size and abs(len(form) - len(phrase)) > 2:
                continue
            form_words = set(form.split())
            if any(w in self._meaningful and w not in form_words for w in words):
                continue  # "halfway" means half way, not "hallway"
            if _DIGITS.findall(form) != numbers:
                continue  # "lamp 3" is never "lamp 1" heard wrong: numbers are said exactly
            for kind, key in c.form_keys[index]:
                best[(kind, key)] = max(best.get((kind, key), 0.0), float(score))
        if not best:
            return None
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        (kind, key), score = ranked[0]
        close = [k for k, other in ranked[1:] if score - other < self.fuzzy_margin]
        if any(other_kind != kind for other_kind, _ in close):
            return None  # a device or a room, too close to tell: neither is guessed
        return NameHit(kind, key, s, s + size, score, tuple(k for _, k in close))

    def is_protected(self, phrase: str) -> bool:
        """True when ``phrase`` (lower-case) is a name that contains a conjunction."""
        if phrase in self._compiled.protected:
            return True
        return any(source.is_name(phrase) for source in self.name_sources)
