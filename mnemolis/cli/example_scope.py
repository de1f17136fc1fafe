"""What a shipped example can say about an owner's home.

The shipped examples (``intents/en/*.yaml``) are written for the shipped demo
home: "turn on the kitchen light" expects the demo's "kitchen light". Over an
owner's own home, with other devices, such an expectation is not a fault of
the owner's files, and `check` must not fail on it. So each shipped example is
checked as far as it does not depend on the home:

- in full when every device it expects is in the owner's home and named in
  the example (a name said exactly is that device whatever else the home
  holds), and every area it expects is an area of the owner's home;
- on its intent (and its value slots) only when the devices it expects are in
  the owner's home but not named: the set it gets hangs on the rest of the home
  ("are all the doors locked", "raise the blinds");
- not at all, "written for the demo home", when it expects a device or area the
  owner's home lacks, or has as another kind of thing (the demo's "front door"
  is a lock, an owner's may be the door's contact): even its intent may need
  that device ("start the robot vacuum" with no vacuum); likewise an example
  that expects no intent but says a name only the owner's home has ("what's on
  tv tonight" where a device is called "TV").

The owner's own examples, and every example over the demo home itself, are
checked in full.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config, bundled_config_dir, load_config
from mnemolis.config.intents import Example
from mnemolis.core.devices import Device, DeviceRegistry, name_key

#: Slot types whose values are the home's own devices and areas.
HOME_SLOT_TYPES = ("device", "room")


class Scope(enum.Enum):
    FULL = "in full"
    INTENT = "on intent only"
    DEMO = "written for the demo home"
    #: a shipped decline's example that says a phrase the decline gave up to the owner's
    #: own intents (`config.owner_words`): "order a pizza" is the owner's now
    OWNER = "given up to the owner's intents"


HomeKey = frozenset[tuple[str, str, str | None]]


def home_key(devices: Iterable[Device]) -> HomeKey:
    """A home told apart by its devices: name, type and area of each."""
    return frozenset((name_key(d.name), d.type, d.room) for d in devices)


@dataclass
class HomeScope:
    """The owner's home against the demo home the shipped examples were written for."""

    config: Config
    registry: DeviceRegistry
    demo: bool  # the owner's home is the demo home: every example is checked in full
    #: the demo home's devices: spoken name -> type
    shipped_types: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, config: Config, registry: DeviceRegistry) -> HomeScope:
        shipped_root = config.layers[0].root if config.layers else bundled_config_dir()
        if len(config.layers) < 2:
            return cls(config, registry, demo=True)
        shipped = load_config(str(shipped_root))
        demo = home_key(registry.devices()) == home_key(shipped.devices)
        types = {name_key(n): d.type for d in shipped.devices for n in d.names}
        return cls(config, registry, demo=demo, shipped_types=types)

    def shipped(self, example: Example, fallback: str) -> bool:
        """Whether the example was written in a shipped file, not the owner's."""
        if len(self.config.layers) < 2:
            return True
        path = example.path or fallback
        return path.startswith(str(self.config.layers[0].root) + "/")

    def scope(self, example: Example, fallback: str, spoken: str) -> Scope:
        """How far the example is checked over this home (``spoken``: its normalized text)."""
        if self.demo or not self.shipped(example, fallback):
            return Scope.FULL
        said = f" {name_key(spoken)} "
        areas = self.registry.rooms().items()
        rooms = {name_key(room) for room, _ in areas}
        aliases = {name_key(n) for _, names in areas for n in names} - rooms
        if example.intent is None and self._names_only_the_owner_has(said):
            return Scope.DEMO
        scope = Scope.FULL
        for slot, value in example.slots.items():
            spec = self.config.slots.get(slot)
            kind = spec.type if spec is not None else None
            if kind not in HOME_SLOT_TYPES:
                continue
            for name in _names(value):
                key = name_key(name)
                if kind == "room":
                    if key in aliases:
                        scope = Scope.INTENT  # another name of an owner's area: its own is said
                    elif key not in rooms:
                        return Scope.DEMO
                elif (found := self.registry.by_name(name)) is None:
                    return Scope.DEMO
                elif self.shipped_types.get(key, found.type) != found.type:
                    return Scope.DEMO  # the same name for another kind of thing
                elif f" {key} " not in said:
                    scope = Scope.INTENT
        return scope

    def given_up(self, intent: str, spoken: str) -> bool:
        """A shipped example of a decline that says a phrase it gave up to the owner."""
        said = f" {name_key(spoken)} "
        return any(f" {name_key(p)} " in said for p in self.config.yielded.get(intent, ()))

    def _names_only_the_owner_has(self, said: str) -> bool:
        return any(
            f" {key} " in said and key not in self.shipped_types
            for d in self.registry.devices()
            for key in (name_key(n) for n in d.names)
        )


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []
