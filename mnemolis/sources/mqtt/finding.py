"""Which devices a part names: the registry's device for each name understanding gave,
or the answer that says which name it could not find (and the names it knows).

Apart from `source` so that the source's wiring and its lookups read one at a time.
"""

from __future__ import annotations

from rapidfuzz import fuzz, process

from mnemolis.config import Config
from mnemolis.core.devices import TYPE_ACTIONS, Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Status
from mnemolis.sources.mqtt.answers import Answers
from mnemolis.sources.mqtt.known import KnownDevices
from mnemolis.sources.mqtt.replies import Phrasebook

SOURCE = "mqtt"


def command_topics(device: Device) -> set[str]:
    """Every topic a device takes commands on: its YAML ``topics`` of a command role and
    the ``*command_topic`` keys of its platform config."""
    found = {t for role, t in device.topics.items() if "command" in role or role == "set"}
    found.update(
        t
        for key, t in device.config.items()
        if key.endswith("command_topic") and isinstance(t, str) and t
    )
    return found


class Finder:
    """Names to devices for one source: its configuration, registry and known configs."""

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry,
        known: KnownDevices,
        answers: Answers,
        words: Phrasebook,
    ) -> None:
        self.config = config
        self.registry = registry
        self.known = known
        self.answers = answers
        self.words = words

    def devices_for(self, part: Part) -> tuple[list[Device], PartAnswer | None]:
        """The devices a part names, or the answer saying which it could not find."""
        raw = part.slots.get("device")
        if isinstance(raw, str):
            names = [raw]
        elif isinstance(raw, list | tuple):
            names = [n for n in raw if isinstance(n, str)]
        else:
            names = []
        everyone = sorted(d.name for d in self.registry.devices() if d.refused is None)
        if not names:
            return [], self.answers.none_named(part, everyone)
        found: list[Device] = []
        spec = self.config.intents.get(part.intent) if part.intent else None
        action = spec.action if spec is not None else None
        for name in names:
            device = self.named(name, action)
            if device is None:
                refusal = self.known.refusal_for(name)
                if refusal is not None:
                    return [], self.answers.refused(name, refusal.reason)
                close = [
                    c for c, _s, _i in process.extract(name, everyone, scorer=fuzz.WRatio, limit=8)
                ]
                text = self.words.say(
                    "unknown_device", name=name[:60], names=self.words.names(close or everyone)
                )
                return [], PartAnswer(
                    text, Status.ERROR, SOURCE, {"unknown": name[:60], "known": everyone}, {}
                )
            if device not in found:
                found.append(device)
        return found, None

    def named(self, name: str, action: str | None) -> Device | None:
        """The device called ``name``; of several (a sensor and a select Home Assistant
        both call "idle brightness"), the one that can do ``action``. Understanding
        names a device by a label only it has (its name, its area + name, or its id:
        `DeviceRegistry.label`), so an id is looked up as one."""
        same = [d for d in self.registry.devices() if d.name == name and d.refused is None]
        able = [d for d in same if action in TYPE_ACTIONS.get(d.type, ())]
        if able or same:
            return (able or same)[0]
        return self.registry.get(name) or self.registry.by_name(name)
