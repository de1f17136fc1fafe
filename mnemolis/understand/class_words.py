"""The words of device classes, found in a request: which class, and which state.

`intents/en/device_classes.yaml` says, per binary-sensor and sensor device
class, the words people use for it ("co", "leak", "humidity") and for its
states ("low", "detected", "going off"). This module finds them in the
analysed tokens and says which entities are of a class. A word matches as
written, or by its lemma when it is a plural ("windows"), so a verb
("powered", "opening") never names a class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.config.questions import DeviceClass
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.slots import SlotFill
from mnemolis.understand.text import TextPipeline, Token


@dataclass(frozen=True)
class ClassHit:
    """Words of a device class found in the request."""

    device_class: DeviceClass
    start: int
    end: int


def _norm(lower: str, lemma: str) -> str:
    """A word as class words are matched: its lemma when it is a plural, else as written."""
    return lemma if lower != lemma and lower.endswith("s") else lower


def word_form(token: Token) -> str:
    return _norm(token.lower, token.lemma)


def class_forms(words: list[str], text: TextPipeline) -> list[tuple[str, ...]]:
    return [tuple(_norm(w, text.lemma(w)) for w in text.words(word)) for word in words]


class ClassWords:
    """Every class word and state word of the configuration, compiled once."""

    def __init__(self, config: Config, text: TextPipeline) -> None:
        self.classes = config.device_classes.classes
        # word sequence -> the classes it names; longest forms first when matching
        self.words: dict[tuple[str, ...], list[DeviceClass]] = {}
        self.states: dict[str, dict[tuple[str, ...], str]] = {}
        for dc in self.classes:
            for form in class_forms(dc.words, text):
                found = self.words.setdefault(form, [])
                if dc not in found:
                    found.append(dc)
            table = self.states.setdefault(f"{dc.domain}:{dc.name}", {})
            for value, words in (("on", dc.on), ("off", dc.off)):
                for form in class_forms(words, text):
                    table.setdefault(form, value)
        self.longest = max((len(f) for f in self.words), default=0)
        # state word form -> {class key: value}: one look-up per span for every class
        self.state_index: dict[tuple[str, ...], dict[str, str]] = {}
        for key, table in self.states.items():
            for form, value in table.items():
                self.state_index.setdefault(form, {})[key] = value
        state_slot = config.slots.get("state")
        self.state_forms = dict(state_slot.values) if state_slot is not None else {}
        self.binary = {c.name: c for c in self.classes if c.domain == "binary_sensor"}
        #: `members_of`, for one snapshot of the devices (a new mapping: a new memo)
        self._memo: tuple[Mapping[str, Device], dict[tuple[str, str, bool], list[Device]]] = (
            {},
            {},
        )

    def hits(self, tokens: Sequence[Token], start: int, end: int) -> list[ClassHit]:
        """Every device-class word in tokens[start:end], longest first, no overlaps."""
        hits: list[ClassHit] = []
        taken: set[int] = set()
        for size in range(min(self.longest, end - start), 0, -1):
            for s in range(start, end - size + 1):
                span = range(s, s + size)
                if any(i in taken for i in span):
                    continue
                found = self.words.get(tuple(word_form(tokens[i]) for i in span))
                if found:
                    hits.extend(ClassHit(dc, s, s + size) for dc in found)
                    taken.update(span)
        return hits

    def binary_class(self, device: Device) -> DeviceClass | None:
        """The class of a binary sensor, when the configuration has words for it."""
        if device.type != "binary_sensor" or device.device_class is None:
            return None
        return next((c for c in self.binary.values() if c.covers(device.device_class)), None)

    def state_word(
        self, a: Analysis, dc: DeviceClass, start: int, end: int, skip: frozenset[int] = frozenset()
    ) -> SlotFill | None:
        """A binary sensor's state in the words of its class ("low", "going off"), outside
        the words that name it ("smoke" in "are the smoke detectors clear")."""
        key = f"{dc.domain}:{dc.name}"
        for s, size, entries in self._state_spans(a, start, end, skip):
            value = entries.get(key)
            if value is not None:
                # a word the state slot knows keeps its value ("open"); the class's
                # own words are on or off ("low", "detected", "going off")
                spoken = " ".join(a.tokens[i].lower for i in range(s, s + size))
                value = self.state_forms.get(spoken, value)
                return SlotFill("state", value, s, s + size, "class")
        return None

    def _state_spans(
        self, a: Analysis, start: int, end: int, skip: frozenset[int]
    ) -> list[tuple[int, int, dict[str, str]]]:
        """The spans of tokens[start:end] that are a state word of some class, in the
        order `state_word` tries them (3 words, then 2, then 1; left to right); found once
        per analysis and range, whichever class is asked."""
        memo_key = ("state_spans", start, end, skip)
        cached: list[tuple[int, int, dict[str, str]]] | None = a.memo.get(memo_key)
        if cached is not None:
            return cached
        forms = [word_form(t) for t in a.tokens[start:end]]
        spans: list[tuple[int, int, dict[str, str]]] = []
        for size in (3, 2, 1):
            for s in range(start, end - size + 1):
                if any(i in skip for i in range(s, s + size)):
                    continue
                entries = self.state_index.get(tuple(forms[s - start : s - start + size]))
                if entries is not None:
                    spans.append((s, size, entries))
        a.memo[memo_key] = spans
        return spans

    def can_be(self, dc: DeviceClass, state: str) -> bool:
        """Whether an entity of the class can be in ``state`` (a sensor is in none)."""
        if dc.domain != "binary_sensor":
            return False
        table = self.states.get(f"{dc.domain}:{dc.name}") or {}
        return state in ("on", "off") or (state,) in table

    def members_of(
        self, devices: Mapping[str, Device], dc: DeviceClass, also: bool
    ) -> list[Device]:
        """`members` of the name index's ``devices``, worked out once per snapshot: the
        index builds a new mapping whenever the registry changes, never edits one."""
        snapshot, memo = self._memo
        if snapshot is not devices:
            snapshot, memo = self._memo = (devices, {})
        key = (dc.domain, dc.name, also)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self.members(devices.values(), dc, also)
        return found

    def members(self, devices: Iterable[Device], dc: DeviceClass, also: bool) -> list[Device]:
        """The entities of the class, or (``also``) the others that answer for it."""
        out = []
        for d in devices:
            if d.refused is not None:
                continue
            if not also:
                unit = d.unit.lower() if d.unit else None
                unclassed = dc.domain == "sensor" and d.device_class is None
                if d.type == dc.domain and (
                    dc.covers(d.device_class)
                    or (unclassed and unit in dc.units)
                    # "garage am2301 temperature": a sensor announced with neither says it
                    or (unclassed and unit is None and dc.name in d.name.split())
                ):
                    out.append(d)
                continue
            for other in dc.also:
                kind, _, cls = other.partition(":")
                if d.type == kind and (not cls or d.device_class == cls):
                    out.append(d)
        return out
