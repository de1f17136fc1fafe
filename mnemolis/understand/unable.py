"""A command never goes to a device that only reports.

"lock the back door" in a home whose only "back door" is a door sensor: the lock
intent is understood, but no lock is there; the part keeps its intent, loses the
device and says which kind is missing, as "there is no vacuum there" does. A device
that does act, but not this way ("set the desk fan to 22 degrees", "close" a lock),
stays: the source declines it by name, which says more than "no climate here". Run
after `fit_to_device`, which first moves a value to the intent of the device's
own type ("radiator up a bit": a temperature step, not a brightness).
"""

from __future__ import annotations

from mnemolis.config import Config
from mnemolis.core.devices import READ_ACTION, TYPE_ACTIONS, DeviceRegistry
from mnemolis.core.plan import Part

#: Actions that only read: a question may name a device of any kind.
READS = frozenset({READ_ACTION})


def drop_unable(part: Part, config: Config, registry: DeviceRegistry) -> None:
    """Take the device out of a command none of whose devices can do it."""
    spec = config.intent(part.intent)
    raw = part.slots.get("device")
    if spec is None or spec.source is None or not raw or not spec.device_types:
        return
    if spec.action is None or spec.action in READS:
        return
    names = raw if isinstance(raw, list) else [raw]
    found = [registry.get(str(n)) or registry.by_name(str(n)) for n in names]
    if not found or any(d is None or d.type in spec.device_types for d in found):
        return
    if any(set(TYPE_ACTIONS.get(d.type, ())) - READS for d in found if d is not None):
        return  # it acts, only not so: said by name
    del part.slots["device"]
    part.provenance.pop("options", None)
    part.provenance["missing"] = spec.implies or min(spec.device_types)
