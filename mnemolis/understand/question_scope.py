"""Where a question looks and what its words name, as the name index resolves them.

The area a question narrows to (a room, a floor, "upstairs"), what a type
word means ("the lights": every light, not a sensor called "light") and the
label a device gets in the device slot are the name index's business
(`names.py`, `areas.py`); the questions' code asks them through this one
small interface.
"""

from __future__ import annotations

from collections.abc import Iterable

from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import scope_of, union
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.slots import SlotResult


class Scope:
    """Areas, type words and labels for one name index."""

    def __init__(self, names: NameIndex) -> None:
        self.names = names

    # ------------------------------------------------------------------ areas

    def areas(self, a: Analysis, start: int, end: int, out: SlotResult) -> frozenset[str] | None:
        """The areas the part names (a room, a floor's rooms, a room on a floor), or
        None when it names none."""
        spoken_in = self.names.canonical_room(a.origin_room)
        scopes = []
        for hit in a.names:
            if hit.kind != "room" or not (start <= hit.start and hit.end <= end):
                continue
            scope = scope_of(hit, self.names.floors, spoken_in)
            if scope is not None:
                scopes.append(scope)
        scope = union(scopes)
        said = scope is not None and scope.rooms is not None
        rooms: set[str] = set(scope.rooms) if scope is not None and scope.rooms else set()
        room = out.fills.get("room")
        if room is not None and isinstance(room.value, str):
            said = True
            rooms.add(room.value)
        return frozenset(rooms) if said else None

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
