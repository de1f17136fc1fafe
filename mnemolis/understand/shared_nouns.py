"""A type word several kinds share, said bare, where the home names another kind with it.

"open the door" in a home with a garage door and locks called "Front Door" and "Back
Door Lock": only the garage door can open, but the speaker may well mean the front
door, and a wrong door opened is worse than a question. So a type word that several
kinds share (devices.yaml: "door" is a lock's and a cover's), said in the singular and
not with an all-word, is about no one device when the home names devices with that very
word of a kind the intent's words may also mean (its ``also_means``: a door is opened
by unlocking it) but it cannot act on: the part asks which one rather than acting.
"""

from __future__ import annotations

from mnemolis.core.devices import Device
from mnemolis.understand.areas import AreaScope
from mnemolis.understand.names import NameIndex


def rivals(
    names: NameIndex, noun: str, types: set[str], also: list[str], scope: AreaScope | None
) -> list[Device]:
    """The devices of a kind in ``also`` that the shared type word ``noun`` names, named
    with it (in the area asked about, if one is), when the intent acts on its others."""
    kinds = names.noun_types(noun)
    others = (kinds - types) & set(also)
    if not others or not kinds & types:
        return []
    found = [names.device(i) for i in sorted(names.named_with([noun]))]
    return [
        d
        for d in found
        if d is not None
        and d.type in others
        and (scope is None or scope.everywhere or scope.holds(d, frozenset()))
    ]
