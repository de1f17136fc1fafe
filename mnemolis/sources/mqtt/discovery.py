"""Devices announced on the broker: Home Assistant MQTT discovery and zigbee2mqtt.

Pure parsing, no I/O: a config message in, `Device`s out, plus the problems
found on the way (a bad topic, an unsupported template), which the caller
logs. Every topic is checked here, so nothing with a wildcard, a NUL or an
absurd length ever reaches a subscription or a publish. A malformed config
gives a `Discovered` with no devices and a problem, never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.devices import Device, slugify
from mnemolis.sources.mqtt import templates as tpl
from mnemolis.sources.mqtt.codec import COMMAND_ROLES

#: Home Assistant's abbreviated discovery keys that Mnemolis reads (a subset).
ABBREVIATIONS = {
    "avty": "availability",
    "avty_mode": "availability_mode",
    "avty_t": "availability_topic",
    "avty_tpl": "availability_template",
    "bri_cmd_t": "brightness_command_topic",
    "bri_cmd_tpl": "brightness_command_template",
    "bri_scl": "brightness_scale",
    "bri_stat_t": "brightness_state_topic",
    "bri_val_tpl": "brightness_value_template",
    "clr_temp_cmd_t": "color_temp_command_topic",
    "clr_temp_cmd_tpl": "color_temp_command_template",
    "cmd_t": "command_topic",
    "cmd_tpl": "command_template",
    "cmps": "components",
    "curr_temp_t": "current_temperature_topic",
    "curr_temp_tpl": "current_temperature_template",
    "dev": "device",
    "dev_cla": "device_class",
    "hs_cmd_t": "hs_command_topic",
    "mode_cmd_t": "mode_command_topic",
    "mode_cmd_tpl": "mode_command_template",
    "mode_stat_t": "mode_state_topic",
    "mode_stat_tpl": "mode_state_template",
    "o": "origin",
    "obj_id": "object_id",
    "p": "platform",
    "pl_avail": "payload_available",
    "pl_cls": "payload_close",
    "pl_lock": "payload_lock",
    "pl_not_avail": "payload_not_available",
    "pl_off": "payload_off",
    "pl_on": "payload_on",
    "pl_open": "payload_open",
    "pl_paus": "payload_pause",
    "pl_ret": "payload_return_to_base",
    "pl_stop": "payload_stop",
    "pl_strt": "payload_start",
    "pl_unlk": "payload_unlock",
    "pos_clsd": "position_closed",
    "pos_open": "position_open",
    "pos_t": "position_topic",
    "pos_tpl": "position_template",
    "pow_cmd_t": "power_command_topic",
    "pow_cmd_tpl": "power_command_template",
    "rgb_cmd_t": "rgb_command_topic",
    "rgb_cmd_tpl": "rgb_command_template",
    "rgb_stat_t": "rgb_state_topic",
    "rgb_val_tpl": "rgb_value_template",
    "set_pos_t": "set_position_topic",
    "set_pos_tpl": "set_position_template",
    "stat_clsd": "state_closed",
    "stat_closing": "state_closing",
    "stat_jam": "state_jammed",
    "stat_locked": "state_locked",
    "stat_locking": "state_locking",
    "stat_off": "state_off",
    "stat_on": "state_on",
    "stat_open": "state_open",
    "stat_opening": "state_opening",
    "stat_stopped": "state_stopped",
    "stat_t": "state_topic",
    "stat_tpl": "state_template",
    "stat_unlocked": "state_unlocked",
    "stat_unlocking": "state_unlocking",
    "stat_val_tpl": "state_value_template",
    "sup_clrm": "supported_color_modes",
    "sup_feat": "supported_features",
    "t": "topic",
    "temp_cmd_t": "temperature_command_topic",
    "temp_cmd_tpl": "temperature_command_template",
    "temp_stat_t": "temperature_state_topic",
    "temp_stat_tpl": "temperature_state_template",
    "temp_unit": "temperature_unit",
    "uniq_id": "unique_id",
    "unit_of_meas": "unit_of_measurement",
    "val_tpl": "value_template",
    "xy_cmd_t": "xy_command_topic",
}
DEVICE_ABBREVIATIONS = {
    "cns": "connections",
    "ids": "identifiers",
    "mdl": "model",
    "mf": "manufacturer",
    "sa": "suggested_area",
    "sw": "sw_version",
}

#: Discovery topic -> (role, template key): where each device topic comes from.
TOPIC_KEYS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "light": (
        ("state", "state_topic", "state_value_template"),
        ("command", "command_topic", None),
        ("brightness_state", "brightness_state_topic", "brightness_value_template"),
        ("brightness_command", "brightness_command_topic", "brightness_command_template"),
        ("rgb_state", "rgb_state_topic", "rgb_value_template"),
        ("rgb_command", "rgb_command_topic", "rgb_command_template"),
        ("xy_command", "xy_command_topic", None),
        ("hs_command", "hs_command_topic", None),
        ("color_temp_command", "color_temp_command_topic", "color_temp_command_template"),
    ),
    "switch": (
        ("state", "state_topic", "value_template"),
        ("command", "command_topic", "command_template"),
    ),
    "fan": (
        ("state", "state_topic", "state_value_template"),
        ("command", "command_topic", "command_template"),
    ),
    "lock": (
        ("state", "state_topic", "value_template"),
        ("command", "command_topic", "command_template"),
    ),
    "cover": (
        ("state", "state_topic", "value_template"),
        ("command", "command_topic", None),
        ("position_state", "position_topic", "position_template"),
        ("position_command", "set_position_topic", "set_position_template"),
    ),
    "climate": (
        ("temperature_state", "temperature_state_topic", "temperature_state_template"),
        ("temperature_command", "temperature_command_topic", "temperature_command_template"),
        ("current_temperature", "current_temperature_topic", "current_temperature_template"),
        ("mode_state", "mode_state_topic", "mode_state_template"),
        ("mode_command", "mode_command_topic", "mode_command_template"),
        ("power_command", "power_command_topic", "power_command_template"),
    ),
    "vacuum": (
        ("state", "state_topic", None),
        ("command", "command_topic", None),
    ),
    "sensor": (("state", "state_topic", "value_template"),),
    "binary_sensor": (("state", "state_topic", "value_template"),),
}

#: Discovery payload key -> Device.payloads key, per component.
PAYLOAD_KEYS: dict[str, dict[str, str]] = {
    "light": {"payload_on": "on", "payload_off": "off", "brightness_scale": "brightness_scale"},
    "switch": {
        "payload_on": "on",
        "payload_off": "off",
        "state_on": "state_on",
        "state_off": "state_off",
    },
    "fan": {"payload_on": "on", "payload_off": "off"},
    "lock": {
        "payload_lock": "lock",
        "payload_unlock": "unlock",
        "state_locked": "state_locked",
        "state_unlocked": "state_unlocked",
        "state_locking": "state_locking",
        "state_unlocking": "state_unlocking",
        "state_jammed": "state_jammed",
    },
    "cover": {
        "payload_open": "open",
        "payload_close": "close",
        "payload_stop": "stop",
        "state_open": "state_open",
        "state_closed": "state_closed",
        "state_opening": "state_opening",
        "state_closing": "state_closing",
        "state_stopped": "state_stopped",
        "position_open": "position_open",
        "position_closed": "position_closed",
    },
    "climate": {"payload_on": "on", "payload_off": "off"},
    "vacuum": {
        "payload_start": "start",
        "payload_stop": "stop",
        "payload_return_to_base": "return_to_base",
        "payload_pause": "pause",
    },
    "sensor": {},
    "binary_sensor": {"payload_on": "state_on", "payload_off": "state_off"},
}

COLOR_MODES = ("rgb", "rgbw", "rgbww", "xy", "hs")
COMPONENT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NAME_MAX = 80


class BadConfig(ValueError):
    """One config (or one component of it) that cannot become a device."""


@dataclass
class Discovered:
    """The devices one retained config announces; an empty list removes them."""

    key: str
    devices: list[Device] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def check_topic(topic: Any, max_chars: int) -> str:
    """A topic that is safe to subscribe and publish to, or BadConfig."""
    if not isinstance(topic, str) or not topic:
        raise BadConfig("a topic must be non-empty text")
    if len(topic) > max_chars:
        raise BadConfig(f"topic longer than {max_chars} characters")
    if "+" in topic or "#" in topic:
        raise BadConfig(f"topic {topic[:60]!r} has a wildcard")
    if topic.startswith("$") or any(ord(c) < 32 or c == "\x7f" for c in topic):
        raise BadConfig(f"topic {topic[:60]!r} is reserved or has control characters")
    return topic


def words(identifier: str) -> str:
    """ "porch_light", "Porch-Light", "kitchen/ceiling" -> "porch light", "kitchen ceiling"."""
    text = re.sub(r"[_/\-.]+", " ", identifier)
    text = "".join(c for c in text if c.isprintable())
    return " ".join(text.lower().split())[:NAME_MAX]


def infer_room(name: str, rooms: Iterable[str]) -> str | None:
    """The longest known room the name starts with: "kitchen ceiling light" -> kitchen."""
    best = None
    for room in rooms:
        if (name == room or name.startswith(room + " ")) and (
            best is None or len(room) > len(best)
        ):
            best = room
    return best


def _expand(data: Any, table: dict[str, str]) -> Any:
    if isinstance(data, list):
        return [_expand(item, table) for item in data]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        full: str = table.get(key) or key
        if full == "device" and isinstance(value, dict):
            out[full] = {DEVICE_ABBREVIATIONS.get(k, k): v for k, v in value.items()}
        elif full == "components" and isinstance(value, dict):
            out[full] = {k: _expand(v, table) for k, v in value.items()}
        else:
            out[full] = _expand(value, table)
    return out


def _base_topics(data: Any, base: str | None) -> Any:
    """Replace the ``~`` shorthand at the start or end of every topic value."""
    if isinstance(data, list):
        return [_base_topics(item, base) for item in data]
    if not isinstance(data, dict):
        return data
    base = data.get("~", base) if isinstance(data.get("~", base), str | None) else base
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "~":
            continue
        if isinstance(value, str) and (key == "topic" or key.endswith("_topic")) and base:
            if value.startswith("~"):
                value = base + value[1:]
            elif value.endswith("~"):
                value = value[:-1] + base
        elif isinstance(value, dict | list) and key != "device":
            value = _base_topics(value, base)
        out[key] = value
    return out


def _path(template: Any, what: str) -> tuple[str | int, ...]:
    if not isinstance(template, str):
        raise BadConfig(f"{what} must be text")
    try:
        return tpl.parse_value_template(template)
    except tpl.UnsupportedTemplate as exc:
        raise BadConfig(str(exc)) from exc


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


# --------------------------------------------------------------------------- Home Assistant


@dataclass(frozen=True)
class HomeAssistantTopic:
    component: str
    node_id: str | None
    object_id: str


class HomeAssistantParser:
    """``<prefix>/<component>/[<node_id>/]<object_id>/config`` -> devices."""

    def __init__(
        self, prefix: str, max_topic_chars: int, rooms: Callable[[], Iterable[str]]
    ) -> None:
        self.prefix = prefix.rstrip("/")
        self.max_topic_chars = max_topic_chars
        self.rooms = rooms

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
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            found.problems.append(f"not JSON: {exc}")
            return found
        if not isinstance(raw, dict):
            found.problems.append("a discovery config must be a JSON object")
            return found
        config = _base_topics(_expand(raw, ABBREVIATIONS), None)
        if where.component == "device":
            self._device_based(where, config, found)
        else:
            try:
                device = self._component(where.component, where, where.object_id, config)
            except BadConfig as exc:
                found.problems.append(f"{where.component} {where.object_id}: {exc}")
            else:
                if device is not None:
                    found.devices.append(device)
        return found

    def _device_based(
        self, where: HomeAssistantTopic, config: dict[str, Any], found: Discovered
    ) -> None:
        components = config.get("components")
        if not isinstance(components, dict):
            found.problems.append("a device config needs a components mapping")
            return
        shared = {k: v for k, v in config.items() if k not in ("components", "origin")}
        taken: set[str] = set()
        for object_id, comp in components.items():
            if not isinstance(comp, dict) or not COMPONENT.match(str(object_id)):
                found.problems.append(f"component {str(object_id)[:40]!r} is not a mapping")
                continue
            platform = comp.get("platform")
            if not isinstance(platform, str):
                found.problems.append(f"component {object_id!r} names no platform")
                continue
            if len(comp) == 1:
                continue  # only the platform: Home Assistant's way of removing one component
            merged = {**shared, **comp}
            try:
                device = self._component(platform, where, str(object_id), merged)
            except BadConfig as exc:
                found.problems.append(f"{platform} {object_id}: {exc}")
                continue
            if device is None:
                continue
            if device.name in taken:
                device.name = f"{device.name} {words(str(object_id))}"
            taken.add(device.name)
            found.devices.append(device)

    def _name(self, config: dict[str, Any], object_id: str) -> str:
        dev = _mapping(config.get("device"))
        dev_name = dev.get("name") if isinstance(dev.get("name"), str) else None
        entity = config.get("name")
        if entity is not None and not isinstance(entity, str):
            raise BadConfig("name must be text")
        if not entity:
            name = dev_name or words(object_id)
        elif dev_name and dev_name.lower().endswith(entity.lower()):
            name = dev_name  # "Kitchen Kettle" + "Kettle" is said "kitchen kettle"
        elif dev_name and not entity.lower().startswith(dev_name.lower()):
            name = f"{dev_name} {entity}"
        else:
            name = entity
        name = " ".join("".join(c for c in name if c.isprintable()).lower().split())[:NAME_MAX]
        if not any(c.isalpha() for c in name):
            name = words(object_id)
        if not name:
            raise BadConfig("no usable name")
        return name

    def _component(
        self, component: str, where: HomeAssistantTopic, object_id: str, config: dict[str, Any]
    ) -> Device | None:
        if component not in TOPIC_KEYS:
            return None  # buttons, numbers, selects ...: nothing Mnemolis asks about
        schema = str(config.get("schema", "default")).lower()
        if component == "light" and schema not in ("default", "basic", "json"):
            raise BadConfig(f"light schema {schema!r} is not supported")
        if component == "vacuum" and schema == "legacy":
            raise BadConfig("the legacy vacuum schema is not supported")
        name = self._name(config, object_id)
        dev = _mapping(config.get("device"))
        area = dev.get("suggested_area")
        room = words(area) if isinstance(area, str) and area.strip() else None
        room = room or infer_room(name, self.rooms())
        unique = config.get("unique_id")
        ident = str(unique) if isinstance(unique, str | int) and str(unique) else None
        ident = ident or "_".join(p for p in (component, where.node_id, object_id) if p)
        device = Device(
            name=name,
            type=component,
            room=room,
            id="ha_" + slugify(ident),
            origin="homeassistant",
            schema="json" if schema == "json" else "default",
        )
        self._topics(component, config, device)
        self._payloads(component, config, device)
        self._availability(config, device)
        device_class = config.get("device_class")
        if isinstance(device_class, str):
            device.device_class = device_class.lower()
        unit = config.get("unit_of_measurement", config.get("temperature_unit"))
        if isinstance(unit, str):
            device.unit = "°" + unit if unit in ("C", "F") else unit
        if component == "light":
            self._light_features(config, device)
        if component == "climate" and isinstance(config.get("modes"), list):
            device.extra["modes"] = [str(m) for m in config["modes"] if _scalar(m)]
        for key in ("min_temp", "max_temp"):
            if component == "climate" and isinstance(config.get(key), int | float):
                device.extra[key] = float(config[key])
        if "state" not in device.topics and not set(device.topics) & {
            "temperature_state",
            "mode_state",
            "command",
            "temperature_command",
            "mode_command",
        }:
            raise BadConfig("it has neither a state topic nor a command topic")
        return device

    def _topics(self, component: str, config: dict[str, Any], device: Device) -> None:
        values: dict[str, tuple[str | int, ...]] = {}
        commands: dict[str, str] = {}
        for role, key, template_key in TOPIC_KEYS[component]:
            topic = config.get(key)
            if topic is None:
                continue
            device.topics[role] = check_topic(topic, self.max_topic_chars)
            template = config.get(template_key) if template_key else None
            if template is None:
                continue
            if role in COMMAND_ROLES:
                try:
                    commands[role] = tpl.check_command_template(str(template))
                except tpl.UnsupportedTemplate:
                    del device.topics[role]  # only this command is lost, not the device
                    device.extra.setdefault("dropped", []).append(role)
            else:
                values[role] = _path(template, template_key or "template")
        if values:
            device.extra["value_templates"] = {k: list(v) for k, v in values.items()}
        if commands:
            device.extra["command_templates"] = commands

    def _payloads(self, component: str, config: dict[str, Any], device: Device) -> None:
        for key, target in PAYLOAD_KEYS[component].items():
            if key in config:
                value = config[key]
                if not _scalar(value):
                    raise BadConfig(f"{key} must be a plain value")
                device.payloads[target] = value
        if component == "switch":
            for word in ("on", "off"):
                if word in device.payloads:
                    device.payloads.setdefault(f"state_{word}", device.payloads[word])

    def _availability(self, config: dict[str, Any], device: Device) -> None:
        specs: list[dict[str, Any]] = []
        items: list[Any] = []
        if config.get("availability_topic") is not None:
            items.append(
                {
                    "topic": config["availability_topic"],
                    "payload_available": config.get("payload_available"),
                    "payload_not_available": config.get("payload_not_available"),
                    "value_template": config.get("availability_template"),
                }
            )
        listed = config.get("availability")
        if isinstance(listed, list):
            items.extend(listed)
        elif listed is not None:
            raise BadConfig("availability must be a list")
        for i, item in enumerate(items[:8]):
            if not isinstance(item, dict):
                raise BadConfig("an availability entry must be a mapping")
            spec: dict[str, Any] = {
                "topic": check_topic(item.get("topic"), self.max_topic_chars),
                "available": item.get("payload_available") or "online",
                "not_available": item.get("payload_not_available") or "offline",
            }
            if item.get("value_template") is not None:
                spec["path"] = list(_path(item["value_template"], "availability template"))
            specs.append(spec)
            device.topics["availability" if i == 0 else f"availability_{i}"] = spec["topic"]
        if specs:
            device.extra["availability"] = specs
            mode = config.get("availability_mode", "all")
            device.extra["availability_mode"] = mode if mode in ("all", "any", "latest") else "all"

    def _light_features(self, config: dict[str, Any], device: Device) -> None:
        modes = config.get("supported_color_modes")
        modes = [str(m) for m in modes] if isinstance(modes, list) else []
        if device.schema == "json":
            if config.get("brightness") is True or any(m != "onoff" for m in modes):
                device.features.append("brightness")
            if set(modes) & set(COLOR_MODES) or config.get("rgb") is True:
                device.features.append("color")
            if "color_temp" in modes:
                device.features.append("color_temp")
            device.extra["color_modes"] = modes or (["rgb"] if config.get("rgb") else [])
        else:
            if "brightness_command" in device.topics:
                device.features.append("brightness")
            if {"rgb_command", "xy_command", "hs_command"} & set(device.topics):
                device.features.append("color")
            if "color_temp_command" in device.topics:
                device.features.append("color_temp")


# --------------------------------------------------------------------------- zigbee2mqtt

#: zigbee2mqtt expose types that are one controllable thing.
Z2M_ACTUATORS = ("light", "switch", "lock", "cover", "climate", "fan")


def _features(expose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An expose's features by name (and by property, for climate set points)."""
    out: dict[str, dict[str, Any]] = {}
    for feature in expose.get("features") or []:
        if isinstance(feature, dict) and isinstance(feature.get("name"), str):
            out.setdefault(feature["name"], feature)
    return out


def _prop(feature: dict[str, Any] | None) -> str | None:
    if feature and isinstance(feature.get("property"), str) and feature["property"]:
        return str(feature["property"])
    return None


class Zigbee2MqttParser:
    """``zigbee2mqtt/bridge/devices`` (retained, the whole list) -> devices."""

    def __init__(
        self,
        base: str,
        max_topic_chars: int,
        rooms: Callable[[], Iterable[str]],
        sensors: Iterable[str] = (),
        binary_sensors: dict[str, str] | None = None,
    ) -> None:
        self.base = base.rstrip("/")
        self.max_topic_chars = max_topic_chars
        self.rooms = rooms
        self.sensors = set(sensors)
        self.binary_sensors = dict(binary_sensors or {})

    @property
    def devices_topic(self) -> str:
        return f"{self.base}/bridge/devices"

    @property
    def bridge_state_topic(self) -> str:
        return f"{self.base}/bridge/state"

    def parse(self, payload: bytes, limit: int = 5000) -> Discovered:
        found = Discovered(self.devices_topic)
        if not payload.strip():
            return found
        try:
            raw = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            found.problems.append(f"bridge/devices is not JSON: {exc}")
            return found
        if not isinstance(raw, list):
            found.problems.append("bridge/devices must be a JSON list")
            return found
        for entry in raw:
            if len(found.devices) >= limit:
                found.problems.append(f"more than {limit} devices; the rest are ignored")
                break
            if not isinstance(entry, dict):
                found.problems.append("a bridge/devices entry is not an object")
                continue
            try:
                found.devices.extend(self._entry(entry))
            except BadConfig as exc:
                label = str(entry.get("friendly_name", "?"))[:40]
                found.problems.append(f"zigbee2mqtt device {label!r}: {exc}")
        return found

    def _entry(self, entry: dict[str, Any]) -> list[Device]:
        if entry.get("type") == "Coordinator" or entry.get("disabled") is True:
            return []
        definition = entry.get("definition")
        if not isinstance(definition, dict):
            return []  # unsupported or not interviewed yet: nothing to act on
        friendly = entry.get("friendly_name")
        if not isinstance(friendly, str) or not friendly.strip():
            raise BadConfig("no friendly_name")
        state_topic = check_topic(f"{self.base}/{friendly}", self.max_topic_chars)
        check_topic(f"{state_topic}/availability", self.max_topic_chars)
        segments = [words(s) for s in friendly.split("/") if s.strip()]
        name = " ".join(s for s in segments if s)[:NAME_MAX] or words(friendly)
        if not any(c.isalpha() for c in name):
            raise BadConfig("no usable name")
        room = infer_room(name, self.rooms())
        ident = slugify(str(entry.get("ieee_address") or friendly))
        exposes = [e for e in definition.get("exposes") or [] if isinstance(e, dict)]
        made: list[tuple[Device, str]] = []  # device, name suffix when several
        for i, expose in enumerate(exposes):
            kind = expose.get("type")
            if kind in Z2M_ACTUATORS:
                device = self._actuator(str(kind), expose)
                suffix = str(expose.get("endpoint") or "") or (str(i) if made else "")
            elif kind == "numeric" and expose.get("name") in self.sensors:
                device = self._sensor(expose)
                suffix = words(str(expose["name"]))
            elif kind == "binary" and expose.get("name") in self.binary_sensors:
                device = self._binary(expose)
                suffix = words(str(expose["name"]))
            else:
                continue
            if device is not None:
                made.append((device, suffix))
        devices = []
        for n, (device, suffix) in enumerate(made):
            full = name if len(made) == 1 or (n == 0 and not suffix) else f"{name} {suffix}"
            device.name = " ".join(full.split())
            device.id = f"z2m_{ident}" + (f"_{slugify(suffix)}" if device.name != name else "")
            device.room = room
            device.origin = "zigbee2mqtt"
            device.schema = "json"
            device.topics["state"] = state_topic
            if device.type not in ("sensor", "binary_sensor"):
                device.topics["command"] = f"{state_topic}/set"
            device.topics["availability"] = f"{state_topic}/availability"
            device.topics["availability_1"] = self.bridge_state_topic
            device.extra["availability"] = [
                {"topic": f"{state_topic}/availability"},
                {"topic": self.bridge_state_topic},
            ]
            device.extra["availability_mode"] = "all"
            devices.append(device)
        return devices

    def _actuator(self, kind: str, expose: dict[str, Any]) -> Device | None:
        features = _features(expose)
        keys: dict[str, str] = {}
        device = Device(name="zigbee device", type=kind)
        state = features.get("state")
        if _prop(state):
            keys["state"] = _prop(state) or "state"
        if kind in ("light", "switch", "fan"):
            if not state:
                return None
            on, off = state.get("value_on", "ON"), state.get("value_off", "OFF")
            device.payloads.update({"on": on, "off": off, "state_on": on, "state_off": off})
        if kind == "light":
            brightness = features.get("brightness")
            if brightness is not None and _prop(brightness):
                keys["brightness"] = _prop(brightness) or "brightness"
                device.features.append("brightness")
                device.payloads["brightness_scale"] = brightness.get("value_max", 254)
            modes = []
            for feature_name, mode in (("color_xy", "xy"), ("color_hs", "hs")):
                if _prop(features.get(feature_name)):
                    keys["color"] = _prop(features.get(feature_name)) or "color"
                    modes.append(mode)
            if modes:
                device.features.append("color")
            if _prop(features.get("color_temp")):
                keys["color_temp"] = _prop(features.get("color_temp")) or "color_temp"
                device.features.append("color_temp")
                modes.append("color_temp")
            device.extra["color_modes"] = modes
        elif kind == "lock":
            if not state:
                return None
            lock, unlock = state.get("value_on", "LOCK"), state.get("value_off", "UNLOCK")
            device.payloads.update(
                {"lock": lock, "unlock": unlock, "state_locked": lock, "state_unlocked": unlock}
            )
            if _prop(features.get("lock_state")):
                keys["lock_state"] = _prop(features.get("lock_state")) or "lock_state"
        elif kind == "cover":
            values = [str(v) for v in (state or {}).get("values") or ["OPEN", "CLOSE", "STOP"]]
            upper = {v.upper(): v for v in values}
            device.payloads.update(
                {
                    "open": upper.get("OPEN", "OPEN"),
                    "close": upper.get("CLOSE", "CLOSE"),
                    "stop": upper.get("STOP"),
                    "state_open": upper.get("OPEN", "OPEN"),
                    "state_closed": upper.get("CLOSE", "CLOSE"),
                }
            )
            if _prop(features.get("position")):
                keys["position"] = _prop(features.get("position")) or "position"
        elif kind == "climate":
            for name in ("occupied_heating_setpoint", "current_heating_setpoint"):
                if _prop(features.get(name)):
                    keys["target_temperature"] = _prop(features.get(name)) or name
                    break
            if _prop(features.get("local_temperature")):
                keys["current_temperature"] = _prop(features.get("local_temperature")) or ""
            system_mode = features.get("system_mode")
            if system_mode is not None and _prop(system_mode):
                keys["mode"] = _prop(system_mode) or "system_mode"
                device.extra["modes"] = [str(v) for v in system_mode.get("values") or []]
            device.unit = "°C"
        device.payloads["keys"] = keys
        return device

    def _sensor(self, expose: dict[str, Any]) -> Device | None:
        prop = _prop(expose)
        if not prop:
            return None
        unit = expose.get("unit")
        device = Device(name="zigbee sensor", type="sensor", device_class=str(expose["name"]))
        device.unit = str(unit) if isinstance(unit, str) else None
        device.payloads["keys"] = {"value": prop}
        return device

    def _binary(self, expose: dict[str, Any]) -> Device | None:
        prop = _prop(expose)
        if not prop:
            return None
        device = Device(
            name="zigbee sensor",
            type="binary_sensor",
            device_class=self.binary_sensors.get(str(expose["name"])),
        )
        device.payloads.update(
            {
                "keys": {"state": prop},
                "state_on": expose.get("value_on", True),
                "state_off": expose.get("value_off", False),
            }
        )
        return device
