"""A device the reading cannot read, said with a class word: its sensor of that class.

"what's the battery of the front door lock", "how much power is the espresso
machine using": the lock and the plug are no sensors (nor is the porch's motion
sensor a battery), but the class word
("battery", "power") with their name is the sensor of that class whose name
holds every word of theirs ("Front Door Lock Battery", "Espresso Machine
Power"). Only one such sensor answers; else the named device stays, and the
part is declined or asked about as before (`device_sets.py` tries the class).
"""

from __future__ import annotations

from mnemolis.understand.class_words import ClassHit, ClassWords
from mnemolis.understand.fills import SlotFill, SlotResult
from mnemolis.understand.names import NameIndex


def unread(names: NameIndex, words: ClassWords, out: SlotResult, hits: list[ClassHit]) -> bool:
    """The device named cannot be read (a lock), or is of none of the classes said ("how
    much battery does the porch sensor have" asks a battery, not the sensor's motion)."""
    named = out.fills.get("device")
    if named is None or out.wrong_type:
        return named is not None
    device = names.device(str(named.value)) or names.registry.by_name(str(named.value))
    return device is not None and not any(
        words.members([device], h.device_class, also) for h in hits for also in (False, True)
    )


def holds(names: NameIndex, out: SlotResult, named: SlotFill) -> bool:
    """The one device chosen has every word of the name said in one of its names."""
    chosen = out.fills.get("device")
    if chosen is None or not isinstance(chosen.value, str) or out.options:
        return False
    device = names.device(chosen.value) or names.registry.by_name(chosen.value)
    said = set(str(named.value).lower().split())
    return device is not None and any(said <= set(form.split()) for form in device.names)
