"""Where a question looks and what its words name, as the name index resolves them.

The area a question narrows to (a room, a floor, "upstairs"), what a type
word means ("the lights": every light, not a sensor called "light") and the
label a device gets in the device slot are the name index's business
(`names.py`, `areas.py`). This module asks it, and falls back to the
registry's own data where an older index does not say (a room's name, the
types of a type noun, a device's name unless another has it too), so the
questions' code works over both.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from mnemolis.config import Config
from mnemolis.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.slots import SlotResult
from mnemolis.understand.text import TextPipeline

FLOOR_PREFIX = "floor:"
AREA_MARK = "@"


def _optional(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


class Scope:
    """Areas, type words and labels for one name index."""

    def __init__(self, config: Config, text: TextPipeline, names: NameIndex) -> None:
        self.names = names
        self.type_nouns: dict[str, set[str]] = {}
        for dtype, nouns in config.device_nouns.items():
            for noun in nouns:
                self.type_nouns.setdefault(" ".join(text.lemmas(noun)), set()).add(dtype)
        self._scope_of: Callable[..., Any] | None = _optional(
            "mnemolis.understand.areas", "scope_of"
        )
        self._counted: tuple[object, dict[str, int]] = (None, {})

    # ------------------------------------------------------------------ areas

    def areas(self, a: Analysis, start: int, end: int, out: SlotResult) -> frozenset[str] | None:
        """The areas the part names (a room, a floor's rooms), or None when it names none."""
        rooms: set[str] = set()
        said = False
        for hit in a.names:
            if hit.kind != "room" or not (start <= hit.start and hit.end <= end):
                continue
            found = self._areas_of(hit, a.origin_room)
            if found is None:
                continue
            said = True
            rooms |= found
        room = out.fills.get("room")
        if room is not None and isinstance(room.value, str):
            said = True
            rooms.add(room.value)
        return frozenset(rooms) if said else None

    def _areas_of(self, hit: NameHit, spoken_in: str | None) -> set[str] | None:
        if not hit.key.startswith((FLOOR_PREFIX, AREA_MARK)):
            return {hit.key}
        if self._scope_of is None:
            return None
        floors = getattr(self.names, "floors", {})
        canonical = getattr(self.names, "canonical_room", None)
        origin = canonical(spoken_in) if callable(canonical) else spoken_in
        scope = self._scope_of(hit, floors, origin)
        if scope is None or getattr(scope, "rooms", None) is None:
            return None  # "everywhere", or "in here" with no origin: no narrowing
        return {str(r) for r in scope.rooms}

    # ------------------------------------------------------------------ type words

    def is_type_word(self, noun: NameHit) -> bool:
        return noun.key in self.type_nouns

    def noun_types(self, noun: NameHit) -> set[str]:
        return self.type_nouns.get(noun.key, set())

    def typed(self, noun: str) -> list[Device]:
        """Every device a type word means ("lights"), most likely first."""
        tiers = getattr(self.names, "noun_tiers", None)
        if callable(tiers):
            found: list[list[Device]] = tiers(noun)
            return list(found[0]) if found else []
        older = getattr(self.names, "devices_for_noun", None)
        if callable(older):
            return list(older(noun, None, every=True))
        types = self.type_nouns.get(noun, set())
        return [d for d in self.names.devices.values() if d.type in types]

    # ------------------------------------------------------------------ labels

    def labels(self, devices: Iterable[Device]) -> list[str]:
        """What the device slot says of each, sorted: the index's label, else the name,
        or the id where another device has the same name ("ceiling light" twice)."""
        label = getattr(self.names, "label", None)
        if callable(label):
            return sorted(str(label(d)) for d in devices)
        known = self.names.devices
        if self._counted[0] is not known:
            counts: dict[str, int] = {}
            for d in known.values():
                counts[d.name] = counts.get(d.name, 0) + 1
            self._counted = (known, counts)
        counts = self._counted[1]
        return sorted(d.name if counts.get(d.name, 0) <= 1 else d.id for d in devices)

    def device_of(self, value: object) -> Device | None:
        """The device a slot value stands for (an id first, else a name)."""
        if not isinstance(value, str):
            return None
        # the registry's name table, not a scan: a set question over 2,000 devices asks
        # this of every one of them
        return self.names.devices.get(value) or self.names.registry.by_name(value)
