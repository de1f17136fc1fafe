"""Home Assistant MQTT discovery: ``<prefix>/<component>/[<node>/]<object>/config`` -> devices.

Read as Home Assistant reads it (``homeassistant/components/mqtt/discovery.py``
and ``entity.py``): every abbreviation expanded, ``~`` replaced at the start
or end of a topic, device-based discovery (``<prefix>/device/<id>/config``
with ``cmps``, shared options merged into each component, a component of
only ``platform`` removed), entity names joined to the device name (``name:
null`` is the device's own name; a config whose ``device`` gives only its
``identifiers`` or ``connections`` takes the name another config gave that
device, as Home Assistant's device registry does), an empty retained payload
removing the config. Pure parsing, no I/O: a config that cannot be a device
becomes a `Refusal` with its reason, never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mnemolis.core.devices import Device, slugify
from mnemolis.sources.mqtt import availability
from mnemolis.sources.mqtt.announced import (
    DEVICE_IDS,
    BadConfig,
    Discovered,
    Refusal,
    infer_room,
    spoken,
    words,
)
from mnemolis.sources.mqtt.discovery.abbreviations import expand
from mnemolis.sources.mqtt.schemas import platform_named
from mnemolis.sources.mqtt.schemas.base import STATE_ROLES, Options

COMPONENT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Platforms that are no device a request can reach (events, updates, triggers ...).
IGNORED = frozenset(
    {
        "device_automation",
        "tag",
        "event",
        "update",
        "camera",
        "image",
        "text",
        "date",
        "time",
        "datetime",
        "notify",
        "infrared",
        "remote",
    }
)
#: Platforms whose unnamed entity Home Assistant names after its device class.
#: How many device names (and configs waiting for one) the parser remembers.
REMEMBERED = 4096
DEVICE_CLASS_NAMES = frozenset(
    {"sensor", "binary_sensor", "button", "number", "cover", "event", "update", "valve"}
)


@dataclass(frozen=True)
class HomeAssistantTopic:
    component: str
    node_id: str | None
    object_id: str


def _replace_base(config: dict[str, Any], base: str | None) -> dict[str, Any]:
    """``~`` at the start or the end of a ``*topic`` value, and in availability topics."""
    base = config.pop("~", base) if isinstance(config.get("~", base), str | None) else base
    if not base:
        return config
    for key, value in list(config.items()):
        if isinstance(value, str) and value and key.endswith("topic"):
            if value.startswith("~"):
                config[key] = base + value[1:]
            elif value.endswith("~"):
                config[key] = value[:-1] + base
    listed = config.get("availability")
    if isinstance(listed, list):
        for item in listed:
            topic = item.get("topic") if isinstance(item, dict) else None
            if isinstance(topic, str) and topic:
                if topic.startswith("~"):
                    item["topic"] = base + topic[1:]
                elif topic.endswith("~"):
                    item["topic"] = topic[:-1] + base
    return config


def _identifiers(dev: dict[str, Any]) -> list[str]:
    """A device's ``identifiers`` and ``connections``, as registry keys."""
    ids = dev.get("identifiers")
    out = [str(i) for i in (ids if isinstance(ids, list) else [ids]) if isinstance(i, str | int)]
    connections = dev.get("connections")
    if isinstance(connections, list):
        out += [
            f"{pair[0]}:{str(pair[1]).lower()}"
            for pair in connections
            if isinstance(pair, list | tuple) and len(pair) == 2
        ]
    return out[:16]


class HomeAssistantParser:
    """Discovery configs -> devices, with Home Assistant's rules."""

    def __init__(
        self, prefix: str, max_topic_chars: int, rooms: Callable[[], Iterable[str]]
    ) -> None:
        self.prefix = prefix.rstrip("/")
        self.max_topic_chars = max_topic_chars
        self.rooms = rooms
        self._device_names: dict[str, str] = {}  # identifier -> the name a config gave
        self._waiting: dict[str, dict[str, bytes]] = {}  # identifier -> nameless configs

    def match(self, topic: str) -> HomeAssistantTopic | None:
        if not topic.startswith(self.prefix + "/") or not topic.endswith("/config"):
            return None
        middle = topic[len(self.prefix) + 1 : -len("/config")].split("/")
        if len(middle) not in (2, 3) or not all(COMPONENT.match(p) for p in middle):
            return None
        node = middle[1] if len(middle) == 3 else None
        return HomeAssistantTopic(middle[0], node, middle[-1])

    def parse(self, topic: str, payload: bytes) -> Discovered:
        found = Discovered(topic)
        where = self.match(topic)
        if where is None:
            found.problems.append("not a discovery config topic")
            return found
        if not payload.strip():
            return found  # an empty retained config removes the device
        try:
            raw = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self._refuse(found, topic, f"not JSON: {exc}"[:200], None, where.component)
            return found
        if not isinstance(raw, dict):
            self._refuse(
                found, topic, "a discovery config must be a JSON object", None, where.component
            )
            return found
        config = expand(raw)
        self._share_device_name(topic, payload, config, found)
        if where.component == "device":
            self._device_based(where, config, found)
        else:
            config = _replace_base(config, None)
            self._one(where.component, where, where.object_id, config, found, topic)
        return found

    def _share_device_name(
        self, topic: str, payload: bytes, config: dict[str, Any], found: Discovered
    ) -> None:
        """The registry's view of a device: one config names it, the others that share
        its identifiers get that name (re-read when the name comes later)."""
        dev = config.get("device")
        if not isinstance(dev, dict):
            return
        ids = _identifiers(dev)
        name = dev.get("name")
        if isinstance(name, str) and name.strip():
            for ident in ids:
                if ident in self._device_names or len(self._device_names) < REMEMBERED:
                    self._device_names[ident] = name
                for other, waiting in self._waiting.pop(ident, {}).items():
                    if other != topic:
                        found.also.append(self.parse(other, waiting))
            return
        known = next((self._device_names[i] for i in ids if i in self._device_names), None)
        if known is not None:
            config["device"] = {**dev, "name": known}
        elif ids and len(self._waiting) < REMEMBERED:
            self._waiting.setdefault(ids[0], {})[topic] = payload

    def _refuse(
        self, found: Discovered, key: str, reason: str, name: str | None, component: str
    ) -> None:
        found.problems.append(f"{component} {key.rsplit('/', 2)[-2]}: {reason}")
        found.refused.append(Refusal(key, reason, name, component, "homeassistant"))

    def _device_based(
        self, where: HomeAssistantTopic, config: dict[str, Any], found: Discovered
    ) -> None:
        components = config.get("components")
        if not isinstance(components, dict):
            self._refuse(
                found, found.key, "a device config needs a components mapping", None, "device"
            )
            return
        shared = {k: v for k, v in config.items() if k != "components"}
        taken: set[str] = set()
        for object_id, comp in components.items():
            key = f"{found.key}#{object_id}"
            if not isinstance(comp, dict) or not COMPONENT.match(str(object_id)):
                found.problems.append(f"component {str(object_id)[:40]!r} is not a mapping")
                continue
            platform = comp.get("platform")
            if not isinstance(platform, str):
                self._refuse(
                    found, key, f"component {object_id!r} names no platform", None, "device"
                )
                continue
            if len(comp) == 1:
                continue  # only the platform: Home Assistant's way of removing one component
            merged = _replace_base({**shared, **comp}, None)
            before = len(found.devices)
            self._one(platform, where, str(object_id), merged, found, key)
            for device in found.devices[before:]:
                if device.name in taken:
                    device.name = f"{device.name} {words(str(object_id))}"
                taken.add(device.name)

    def _one(
        self,
        component: str,
        where: HomeAssistantTopic,
        object_id: str,
        config: dict[str, Any],
        found: Discovered,
        key: str,
    ) -> None:
        if component in IGNORED:
            return
        if config.get("enabled_by_default") is False:
            return  # Home Assistant adds it disabled: nothing a request can reach
        name: str | None = None
        try:
            name = self.name(config, object_id, component)
            device = self._device(component, where, object_id, config, name)
        except BadConfig as exc:
            self._refuse(found, key, str(exc), name, component)
            return
        if device is not None:
            found.devices.append(device)

    def name(self, config: dict[str, Any], object_id: str, component: str) -> str:
        """Home Assistant's friendly name, as people say it: the device name, then the
        entity name (unless it repeats the device name); ``name: null`` is the device."""
        dev: dict[str, Any] = config["device"] if isinstance(config.get("device"), dict) else {}
        dev_name = dev.get("name") if isinstance(dev.get("name"), str) else None
        entity = config.get("name", ...)
        if entity is not ... and entity is not None and not isinstance(entity, str):
            raise BadConfig("name must be text")
        device_class = config.get("device_class")
        if (
            entity is ...
            and dev_name
            and component in DEVICE_CLASS_NAMES
            and isinstance(device_class, str)
        ):
            entity = words(device_class)  # Home Assistant names it after its device class
        if entity is ... and dev_name and words(object_id) not in words(dev_name):
            name = f"{dev_name} {words(object_id)}"  # no name: its object id tells it apart
        elif entity is ... or not entity:
            name = dev_name or words(object_id)
        elif dev_name and spoken(dev_name).endswith(spoken(entity)):
            name = dev_name  # "Kitchen Kettle" + "Kettle" is said "kitchen kettle"
        elif dev_name and not spoken(entity).startswith(spoken(dev_name)):
            name = f"{dev_name} {entity}"
        else:
            name = entity
        spoken_name = words(spoken(name))
        if not any(c.isalpha() for c in spoken_name):
            spoken_name = words(object_id)
        if not spoken_name:
            raise BadConfig("no usable name")
        return spoken_name

    def _device(
        self,
        component: str,
        where: HomeAssistantTopic,
        object_id: str,
        config: dict[str, Any],
        name: str,
    ) -> Device | None:
        schema = str(config.get("schema", "default")).lower()
        platform = platform_named(component, schema)
        if platform is None:
            if component == "light":
                raise BadConfig(f"light schema {schema!r} is not one of default, json, template")
            return None
        dev: dict[str, Any] = config["device"] if isinstance(config.get("device"), dict) else {}
        area = dev.get("suggested_area")
        room = words(area) if isinstance(area, str) and area.strip() else None
        unique = config.get("unique_id")
        unique_id = str(unique) if isinstance(unique, str | int) and str(unique) else None
        ident = unique_id or "_".join(p for p in (component, where.node_id, object_id) if p)
        device = Device(
            name=name,
            type=component,
            room=room or infer_room(name, self.rooms()),
            aliases=_part_names(config, name, self.rooms()),
            id="ha_" + slugify(ident),
            origin="homeassistant",
            schema=platform.schema,
        )
        options = Options(config, self.max_topic_chars)
        options.topic("json_attributes_topic", subscribe=True)
        options.template("json_attributes_template")
        platform.load(options, device)
        options.config["schema"] = platform.schema
        options.finish(device)
        reads = device.extra.get(STATE_ROLES)
        writes = [k for k in options.config if k.endswith("_topic") and k not in options.subscribed]
        if options.refused and not reads and not writes:
            raise BadConfig(next(iter(options.refused.values())))
        specs = availability.read_config(config, self.max_topic_chars)
        if specs:
            device.extra["availability"] = specs
            device.extra["availability_mode"] = availability.mode_of(config)
            for i, spec in enumerate(specs):
                device.topics["availability" if i == 0 else f"availability_{i}"] = spec["topic"]
        device_class = config.get("device_class")
        if isinstance(device_class, str):
            device.device_class = device_class.lower()
        unit = config.get("unit_of_measurement")
        if isinstance(unit, str) and unit:
            device.unit = unit
        ids = _identifiers(dev)
        if ids:
            device.extra[DEVICE_IDS] = ids
        if unique_id:
            device.extra["unique_id"] = unique_id
        origin = config.get("origin")
        if isinstance(origin, dict) and isinstance(origin.get("name"), str):
            device.extra["announced_by"] = origin["name"][:60]
        object_name = config.get("default_entity_id") or config.get("object_id")
        if isinstance(object_name, str):
            device.extra["object_id"] = object_name[:120]
        return device


def _part_names(config: dict[str, Any], name: str, rooms: Iterable[str]) -> list[str]:
    """The device's name and the entity's own name, each said alone ("the kitchen
    sensor", "the ceiling light"): aliases, so that a name two entities share
    leads to the area that tells them apart, or to "which one". Never an area's
    name, and an entity name of one word ("temperature", "power") is no name."""
    dev: dict[str, Any] = config["device"] if isinstance(config.get("device"), dict) else {}
    areas = set(rooms)
    out: list[str] = []
    for part, least in ((dev.get("name"), 1), (config.get("name"), 2)):
        said = words(spoken(part)) if isinstance(part, str) else ""
        if len(said.split()) >= least and said != name and said not in areas and said not in out:
            out.append(said)
    return out
