"""What understanding works out again and again from one snapshot of the registry.

A question over a 2,000-entity home asks, for every candidate intent of
every part, which devices a type word means, which device a slot's label
stands for, which devices are binary sensors: the same answers each time
until the registry changes. They are kept here, one `NameMemo` per
compiled snapshot of the name index (`names.py` builds a new snapshot, and
so a new memo, whenever the registry tells it of a change), so a change to
the home is never answered from an older one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mnemolis.core.devices import Device, DeviceRegistry, name_key


@dataclass
class NameMemo:
    """The answers remembered for one snapshot."""

    tiers: dict[str, list[list[Device]]] = field(default_factory=dict)  # noun -> tiers
    labels: dict[str, str | None] = field(default_factory=dict)  # label -> id, or None
    types: dict[str, list[Device]] = field(default_factory=dict)  # type -> its devices
    #: a lemma -> the devices whose name or an alias has it (worked out when first asked)
    aliased: dict[str, set[str]] | None = None


def device_named(memo: NameMemo, registry: DeviceRegistry, label: str) -> Device | None:
    """``registry.by_name(label)``: the name table's first id for it, remembered (the
    table changes only with the registry, and with it the snapshot and its memo)."""
    if label in memo.labels:
        found = memo.labels[label]
        return registry.get(found) if found is not None else None
    device = registry.by_name(label)
    memo.labels[label] = device.id if device is not None else None
    return device


def of_type(memo: NameMemo, devices: Iterable[Device], device_type: str) -> list[Device]:
    """The snapshot's devices of one type, in the snapshot's order."""
    found = memo.types.get(device_type)
    if found is None:
        found = memo.types[device_type] = [d for d in devices if d.type == device_type]
    return found


def alias_index(
    memo: NameMemo, devices: dict[str, Device], lemmas: Callable[[str], list[str]]
) -> dict[str, set[str]]:
    """Each word of a device's name or of an alias (``lemmas``: a name's lemmas) to the
    devices that have it: "ceiling" is the "Bedroom Ceiling"'s and the kitchen light's
    aliased "kitchen ceiling light"."""
    if memo.aliased is None:
        index: dict[str, set[str]] = {}
        for device in devices.values():
            for name in (device.name, *device.aliases):
                for lemma in lemmas(name_key(name)):
                    index.setdefault(lemma, set()).add(device.id)
        memo.aliased = index
    return memo.aliased
