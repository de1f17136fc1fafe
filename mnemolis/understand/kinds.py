"""The device acted on must be of a kind that can do what is asked.

A request says the kind it means in three ways: a type word ("the living room
ceiling *fan*"), the intent's verb ("*lock* the front door": a lock) and, for a
question, its state word ("is the front door *locked*"). A device of another
kind is never chosen for it, even when its name overlaps more words:

- a device named just before a type word of another type is a modifier of that
  word, when another name said there covers the word and is of its type
  ("living room ceiling" + "fan", where "ceiling fan" is a fan's name);
- a device named exactly but of the wrong kind stands for the one device of the
  right kind whose own name starts with the words said ("front door" for a lock is
  the "front door lock", "sound machine" for a select its "sound machine track");
- a device whose whole name is another type's word (a switch called "Dehumidifier")
  is meant by that word when no device of that type has it in its name.

(targets.py also never implies a type's devices for a noun that names devices of
another kind only: "set the feeder portions to five" is no brightness of the lights.)
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.core.devices import Device, name_key
from mnemolis.understand.names import NameHit, NameIndex


@dataclass
class KindFilter:
    """Kind checks over one name index (no I/O: names, types and classes only)."""

    config: Config
    names: NameIndex

    def states_of(self, device: Device) -> set[str]:
        """The state words a device can be asked about: its type's, and for a sensor
        with a class, the class's on and off words ("open" for a door contact)."""
        states = set(self.config.device_states.get(device.type, ()))
        for dc in self.config.device_classes.classes:
            if dc.domain == device.type and dc.covers(device.device_class):
                states.update(dc.on)
                states.update(dc.off)
        return states

    def drop_modifiers(self, device_hits: list[NameHit], nouns: list[NameHit]) -> list[NameHit]:
        """Device hits that are not a modifier of a type word of another type said
        right after them, when another device hit covers that word with its type."""
        kept = []
        for hit in device_hits:
            device = self.names.device(hit.key)
            after = [n for n in nouns if n.start == hit.end]
            if device is not None and any(
                self._other_kind(device, noun, device_hits) for noun in after
            ):
                continue
            kept.append(hit)
        return kept

    def _other_kind(self, device: Device, noun: NameHit, device_hits: list[NameHit]) -> bool:
        kinds = self.names.noun_types(noun.key)
        if not kinds or device.type in kinds:
            return False
        for other in device_hits:
            if not other.start <= noun.start < other.end:
                continue
            found = self.names.device(other.key)
            if found is not None and found.type in kinds:
                return True
        return False

    def stand_in(
        self, said: list[str], types: set[str], found: list[Device], states: set[str]
    ) -> list[Device]:
        """The devices of ``types`` whose own names start with the words ``said`` (lemmas),
        for a name said that names only devices of another kind; with ``states`` (a
        question's state words), only when none of ``found`` can be in such a state.
        Empty when none, or when the name said has no content word."""
        if not types or not said:
            return []
        if states and any(states & self.states_of(d) for d in found):
            return []
        ids = self.names.named_with(said)
        known = {d.id for d in found}
        return [
            d
            for i in sorted(ids - known)
            if (d := self.names.device(i)) is not None and d.type in types and self._leads(said, d)
        ]

    def _leads(self, said: list[str], device: Device) -> bool:
        """True when the device's own name starts with the words said: an entity of the
        device named ("front door" + "lock"), not another one ("garage side door" is
        no "garage door")."""
        words = self.names.text.lemmas(name_key(device.name))
        return words[: len(said)] == said


def names_it(names: NameIndex, noun: str, device: Device) -> bool:
    """ "is the dehumidifier running", a switch called "Dehumidifier": a device whose
    whole name is a type word of another type is meant by it, when that word is not
    the type's own ("light", "fan") and no device of that type is named with it."""
    kinds = names.noun_types(noun)
    if not kinds or device.type in kinds or {noun, noun.removesuffix("s")} & kinds:
        return False
    named = names.named_with([noun])
    return not any((d := names.device(i)) is not None and d.type in kinds for i in named)
