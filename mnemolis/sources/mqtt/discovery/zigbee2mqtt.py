"""zigbee2mqtt's ``bridge/devices`` (retained, every device and what it exposes) -> devices.

Each actuator expose (light, switch, fan, lock, cover, climate) becomes a
device speaking zigbee2mqtt's JSON (`schemas.z2m_json`): state on
``<base>/<friendly_name>``, commands on ``.../set``, property names from
the expose's features, so an endpoint's ``state_left`` and a composite's
``color`` are addressed as zigbee2mqtt names them. Numeric and binary
exposes named in `sources/mqtt.yaml` become sensors of their own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from mnemolis.core.devices import Device, slugify
from mnemolis.sources.mqtt.announced import (
    DEVICE_IDS,
    NAME_MAX,
    BadConfig,
    Discovered,
    Refusal,
    check_topic,
    infer_room,
    words,
)

#: zigbee2mqtt expose types that are one controllable thing.
ACTUATORS = ("light", "switch", "lock", "cover", "climate", "fan")


def _features(expose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An expose's features by name."""
    out: dict[str, dict[str, Any]] = {}
    for feature in expose.get("features") or []:
        if isinstance(feature, dict) and isinstance(feature.get("name"), str):
            out.setdefault(feature["name"], feature)
    return out


def _prop(feature: dict[str, Any] | None) -> str | None:
    if feature and isinstance(feature.get("property"), str) and feature["property"]:
        return str(feature["property"])
    return None


def _values(feature: dict[str, Any] | None) -> list[str]:
    found = (feature or {}).get("values")
    return [str(v) for v in found] if isinstance(found, list) else []


class Zigbee2MqttParser:
    """``zigbee2mqtt/bridge/devices`` -> devices."""

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
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            found.problems.append(f"bridge/devices is not JSON: {exc}"[:200])
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
                found.refused.append(
                    Refusal(
                        f"{self.devices_topic}#{label}",
                        str(exc),
                        words(label) or None,
                        None,
                        "zigbee2mqtt",
                    )
                )
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
        effects = next((_values(e) for e in exposes if e.get("name") == "effect"), [])
        made: list[tuple[Device, str]] = []  # device, name suffix when several
        for i, expose in enumerate(exposes):
            kind = expose.get("type")
            if kind in ACTUATORS:
                device = self._actuator(str(kind), expose, effects)
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
            # the identifier zigbee2mqtt gives the same device in its Home Assistant discovery
            device.extra[DEVICE_IDS] = [f"zigbee2mqtt_{entry.get('ieee_address') or friendly}"]
            devices.append(device)
        return devices

    def _actuator(self, kind: str, expose: dict[str, Any], effects: list[str]) -> Device | None:
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
            self._light(features, keys, device, effects)
        elif kind == "fan":
            mode = features.get("mode") or features.get("fan_mode")
            if _prop(mode):
                keys["fan_mode"] = _prop(mode) or "fan_mode"
                presets = [v for v in _values(mode) if v not in ("off", "on")]
                device.caps.preset_modes = tuple(presets)
                device.features = ["preset", "percentage"]
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
            self._cover(features, state, keys, device)
        elif kind == "climate":
            self._climate(features, keys, device)
        device.payloads["keys"] = keys
        return device

    @staticmethod
    def _light(
        features: dict[str, dict[str, Any]],
        keys: dict[str, str],
        device: Device,
        effects: list[str],
    ) -> None:
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
        temp = features.get("color_temp")
        if _prop(temp):
            keys["color_temp"] = _prop(temp) or "color_temp"
            device.features.append("color_temp")
            modes.append("color_temp")
            low, high = (temp or {}).get("value_min"), (temp or {}).get("value_max")
            if isinstance(high, int | float) and high > 0:
                device.caps.min_kelvin = int(1_000_000 // high)
            if isinstance(low, int | float) and low > 0:
                device.caps.max_kelvin = int(1_000_000 // low)
        if effects:
            device.features.append("effect")
            device.caps.effects = tuple(effects)
        device.extra["color_modes"] = modes
        device.caps.color_modes = tuple(modes or (["brightness"] if brightness else ["onoff"]))

    @staticmethod
    def _cover(
        features: dict[str, dict[str, Any]],
        state: dict[str, Any] | None,
        keys: dict[str, str],
        device: Device,
    ) -> None:
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
        for name in ("position", "tilt"):
            if _prop(features.get(name)):
                keys[name] = _prop(features.get(name)) or name
                device.features.append(name)
        if upper.get("STOP"):
            device.features.append("stop")

    @staticmethod
    def _climate(features: dict[str, dict[str, Any]], keys: dict[str, str], device: Device) -> None:
        for name in ("occupied_heating_setpoint", "current_heating_setpoint"):
            setpoint = features.get(name)
            if _prop(setpoint):
                keys["target_temperature"] = _prop(setpoint) or name
                device.features.append("target_temperature")
                low, high = (setpoint or {}).get("value_min"), (setpoint or {}).get("value_max")
                if isinstance(low, int | float) and isinstance(high, int | float):
                    device.caps.minimum, device.caps.maximum = float(low), float(high)
                break
        if _prop(features.get("local_temperature")):
            keys["current_temperature"] = _prop(features.get("local_temperature")) or ""
        system_mode = features.get("system_mode")
        if system_mode is not None and _prop(system_mode):
            keys["mode"] = _prop(system_mode) or "system_mode"
            device.extra["modes"] = _values(system_mode)
            device.caps.modes = tuple(device.extra["modes"])
        for name, cap in (("preset", "preset_modes"), ("fan_mode", "fan_modes")):
            feature = features.get(name)
            if _prop(feature):
                keys[name] = _prop(feature) or name
                setattr(device.caps, cap, tuple(_values(feature)))
                device.features.append("preset" if name == "preset" else "fan_mode")
        if _prop(features.get("running_state")):
            device.payloads["action_key"] = _prop(features.get("running_state")) or ""
        device.unit = "°C"

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
