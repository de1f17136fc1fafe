"""Where a question looks and what its words name, as the name index resolves them.

The area a question narrows to (a room, a floor, "upstairs"), what a type
word means ("the lights": every light, not a sensor called "light") and the
label a device gets in the device slot are the name index's business
(`names.py`, `areas.py`); the questions' code asks them through this one
small interface.
"""

from __future__ import annotations

from collections.abc import Iterable

from mnemolis.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import scope_of
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.slots import SlotResult

FLOOR_PREFIX = "floor:"
AREA_MARK = "@"


class Scope:
    """Areas, type words and labels for one name index."""

    def __init__(self, names: NameIndex) -> None:
        self.names = names

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
        scope = scope_of(hit, self.names.floors, self.names.canonical_room(spoken_in))
        if scope is None or scope.rooms is None:
            return None  # "everywhere", or "in here" with no origin: no narrowing
        return set(scope.rooms)

    # ------------------------------------------------------------------ type words

    def is_type_word(self, noun: NameHit) -> bool:
        return bool(self.names.noun_types(noun.key))

    def noun_types(self, noun: NameHit) -> set[str]:
        return self.names.noun_types(noun.key)

    def typed(self, noun: str) -> list[Device]:
        """Every device a type word means ("lights"), most likely first."""
        found = self.names.noun_tiers(noun)
        return list(found[0]) if found else []

    # ------------------------------------------------------------------ labels

    def labels(self, devices: Iterable[Device]) -> list[str]:
        """What the device slot says of each, sorted: the index's label (the name, or
        area + name or the id where another device has the same name)."""
        return sorted(self.names.label(d) for d in devices)

    def device_of(self, value: object) -> Device | None:
        """The device a slot value stands for (an id first, else a name)."""
        if not isinstance(value, str):
            return None
        # the registry's name table, not a scan: a set question over 2,000 devices asks
        # this of every one of them
        return self.names.devices.get(value) or self.names.device_named(value)
