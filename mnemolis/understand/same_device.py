"""A part made only of values takes the device the part before it named.

"set the office air conditioner to cool and 20 degrees": the second part says
a value and no device, so it is about the air conditioner, as "... and set it
to 20 degrees" would be. Only when the part names no device, type word or
area of its own, reads a value, and every device the earlier part named can
do what it asks; otherwise it is resolved (or asked about) on its own.
"""

from __future__ import annotations

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.understand.analysis import Analysis

#: Slots that are no value of their own ("which ones", "are any on").
NOT_VALUES = frozenset({"device", "room", "quantifier", "state"})


def takes_previous_device(
    a: Analysis,
    part: Part,
    start: int,
    end: int,
    previous: object,
    config: Config,
    registry: DeviceRegistry,
) -> bool:
    """Whether ``part`` (tokens[start:end]) is a bare value for the ``previous`` device(s)."""
    if not previous or part.intent is None or "device" in part.slots:
        return False
    if not set(part.slots) - NOT_VALUES:
        return False
    if any(h.kind in ("device", "noun", "room") and start <= h.start < end for h in a.names):
        return False
    intent = config.intents.get(part.intent)
    if intent is None or not intent.device_types:
        return False
    values = previous if isinstance(previous, list) else [previous]
    for value in values:
        device = registry.get(str(value)) or registry.by_name(str(value))
        if device is None or device.type not in intent.device_types:
            return False
    return True
