"""Devices of the whole home, as against those named for a room.

"I'm cold" said in a living room with no radiator of its own is about the flat's
thermostat (named "Thermostat", "the heating"), not the "Bedroom Radiator": a device
whose own name says a room is that room's, so where the area spoken in has none of
the kind implied, the devices not named for a room are meant first. Several such
left, or none, is still a "which one" question.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mnemolis.core.devices import Device, name_key


def room_bound(device: Device, rooms: Iterable[str]) -> bool:
    """Whether the device's own name has a room's name in it ("Bedroom Radiator")."""
    key = f" {name_key(device.name)} "
    return any(f" {room} " in key for room in rooms)


def house_wide(candidates: Sequence[Device], rooms: dict[str, list[str]]) -> list[Device]:
    """The candidates not named for a room (``rooms``: each room and its aliases)."""
    forms = [name_key(form) for room, aliases in rooms.items() for form in (room, *aliases)]
    return [d for d in candidates if not room_bound(d, forms)]
