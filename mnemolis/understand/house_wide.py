"""The device of the whole home of a kind, as against those named for a room.

"I'm cold" said in a living room with no radiator of its own is about the flat's
thermostat (named "Thermostat", "the heating": the kind's own word), not the
"Bedroom Radiator": a device whose own name says a room is that room's. So where the
area spoken in has none of the kind implied, a device named by nothing but a word of
its kind and not for a room is meant. Several such, or none, is still a "which one"
question, and so is a request whose room is not known (a part of values alone then
takes the device the part before it named: `same_device`). "in here" is the area spoken
in said aloud: "make it 21 in here" in the living room is the thermostat's too.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemolis.core.devices import Device, name_key
from mnemolis.understand.names import AREA_MARK, NameHit, NameIndex


def house_wide(candidates: Sequence[Device], names: NameIndex) -> list[Device]:
    """The one candidate named by its kind's word and not for a room, else none."""
    rooms = names.registry.rooms()
    forms = [name_key(form) for room, aliases in rooms.items() for form in (room, *aliases)]

    def home_wide(d: Device) -> bool:
        key = f" {name_key(d.name)} "
        if any(f" {room} " in key for room in forms):
            return False  # "Bedroom Radiator"
        return any(d.type in names.noun_types(name_key(n)) for n in (d.name, *d.aliases))

    found = [d for d in candidates if home_wide(d)]
    return found if len(found) == 1 else []


def spoken_here(rooms: Sequence[NameHit]) -> bool:
    """ "in here": the area spoken in, said aloud."""
    return any(r.key == AREA_MARK + "here" for r in rooms)
