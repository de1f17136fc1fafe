"""Simulated MQTT devices that behave the way real ones do.

Each `SimulatedDevice` speaks the wire format its `Device` describes
(``schema: json`` like zigbee2mqtt, or Home Assistant's plain topics). The
`Simulator` connects to a broker, announces the devices by Home Assistant
MQTT discovery or as a zigbee2mqtt bridge (``announce``), publishes their
retained availability and state, and answers every command by publishing
the new state, as a real device does. A device can be told not to echo (to
exercise the "did not confirm" path) or to go unavailable.

Tests use it against a real Mosquitto; the demo home runs the default
registry of `sources/mqtt.yaml` through it. It is written independently of
the MQTT source's codec on purpose, so the tests compare two readings of
the same protocol rather than one with itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from mnemolis.devices import Device, slugify
from mnemolis.mqtt_connection.link import no_delay
from mnemolis.sources.mqtt.schemas.z2m_json import JSON_KEYS  # the wire contract, not the logic

log = logging.getLogger(__name__)

Announce = Literal["none", "homeassistant", "zigbee2mqtt"]

SENSOR_START = {"temperature": 21.5, "humidity": 45, "pressure": 1013, "illuminance": 120}
VACUUM_AFTER = {
    "start": "cleaning",
    "stop": "idle",
    "pause": "paused",
    "return_to_base": "returning",
}


@dataclass
class ReceivedCommand:
    """One command a simulated device received, byte for byte."""

    device: str
    topic: str
    payload: str
    at: float = field(default_factory=time.monotonic)


def _words(device: Device) -> dict[str, Any]:
    """Command and state words, with YAML's true/false keys read back as on/off."""
    raw: dict[Any, Any] = dict(device.payloads)
    for flag, word in ((True, "on"), (False, "off")):
        if flag in raw:
            raw[word] = raw.pop(flag)
    words: dict[str, Any] = {
        "on": "ON",
        "off": "OFF",
        "lock": "LOCK",
        "unlock": "UNLOCK",
        "state_locked": "LOCKED",
        "state_unlocked": "UNLOCKED",
        "open": "OPEN",
        "close": "CLOSE",
        "stop": "STOP",
        "state_open": "open",
        "state_closed": "closed",
        "state_stopped": "stopped",
        "start": "start",
        "return_to_base": "return_to_base",
        "pause": "pause",
        "available": "online",
        "not_available": "offline",
    }
    if device.type == "vacuum":
        words["stop"] = "stop"
    words.update({k: v for k, v in raw.items() if isinstance(k, str) and k != "keys"})
    words.setdefault("state_on", words["on"])
    words.setdefault("state_off", words["off"])
    return words


def _same(a: Any, b: Any) -> bool:
    return str(a).lower() == str(b).lower()


class SimulatedDevice:
    """One device: its state as it would publish it, and how it reacts to commands."""

    def __init__(self, device: Device, zigbee2mqtt_base: str | None = None) -> None:
        self.device = device
        self.echo = True
        self.available = True
        self.words = _words(device)
        custom = device.payloads.get("keys")
        self.keys = {**JSON_KEYS, **(custom if isinstance(custom, dict) else {})}
        if device.type == "sensor":
            self.keys.setdefault("value", device.device_class or "value")
        self.z2m_base = zigbee2mqtt_base
        self.state: dict[str, Any] = self._initial()

    @property
    def name(self) -> str:
        return self.device.name

    @property
    def json(self) -> bool:
        return self.device.schema == "json"

    def command_topics(self) -> dict[str, str]:
        return {t: r for r, t in self.device.topics.items() if r.endswith("command")}

    # ------------------------------------------------------------------ state

    def _initial(self) -> dict[str, Any]:
        kind, w, k = self.device.type, self.words, self.keys
        scale = int(w.get("brightness_scale", 255))
        if not self.json:
            return self._initial_plain(scale)
        if kind == "light":
            out: dict[str, Any] = {k["state"]: w["state_off"]}
            if "brightness" in self.device.features:
                out[k["brightness"]] = scale
            return out
        if kind in ("switch", "fan"):
            return {k["state"]: w["state_off"]}
        if kind == "lock":
            out = {k["state"]: w["state_locked"]}
            if "lock_state" in k:
                out[k["lock_state"]] = "locked"
            return out
        if kind == "cover":
            return {k["state"]: w["state_closed"], k["position"]: 0}
        if kind == "climate":
            return {k["mode"]: "heat", k["target_temperature"]: 20, k["current_temperature"]: 19.5}
        if kind == "vacuum":
            return {k["state"]: "docked"}
        if kind == "sensor":
            return {k["value"]: SENSOR_START.get(self.device.device_class or "", 1)}
        return {k["state"]: w["state_off"]}

    def _initial_plain(self, scale: int) -> dict[str, Any]:
        kind, w, roles = self.device.type, self.words, self.device.topics
        start: dict[str, Any] = {
            "state": {
                "lock": w["state_locked"],
                "cover": w["state_closed"],
                "vacuum": json.dumps({"state": "docked"}),
                "sensor": SENSOR_START.get(self.device.device_class or "", 1),
            }.get(kind, w["state_off"]),
            "brightness_state": scale,
            "rgb_state": "255,255,255",
            "position_state": 0,
            "temperature_state": 20,
            "current_temperature": 19.5,
            "mode_state": "heat",
        }
        return {role: value for role, value in start.items() if role in roles}

    def state_messages(self) -> list[tuple[str, str]]:
        topics = self.device.topics
        if self.json:
            return [(topics["state"], json.dumps(self.state))] if "state" in topics else []
        return [(topics[role], str(value)) for role, value in self.state.items()]

    def availability_messages(self) -> list[tuple[str, str]]:
        topic = self.device.topics.get("availability")
        if not topic:
            return []
        if self.z2m_base is not None:
            return [(topic, json.dumps({"state": "online" if self.available else "offline"}))]
        word = self.words["available" if self.available else "not_available"]
        return [(topic, str(word))]

    # ------------------------------------------------------------------ commands

    def handle(self, role: str, payload: str) -> None:
        """Change state as the real device would; the caller publishes the echo."""
        if self.json and role == "command":
            try:
                body: Any = json.loads(payload)
            except json.JSONDecodeError:
                body = payload.strip()
            if isinstance(body, dict):
                self._apply(body)
            elif isinstance(body, str | int | float):  # a plain word on a JSON device's topic
                self._apply_word(str(body))
            return
        self._apply_plain(role, payload.strip())

    def _apply_word(self, word: str) -> None:
        key = {"vacuum": "command", "climate": "mode"}.get(self.device.type, "state")
        self._apply({self.keys[key]: word})

    def _apply(self, body: dict[str, Any]) -> None:
        kind, w, k, s = self.device.type, self.words, self.keys, self.state
        if kind in ("light", "switch", "fan"):
            if k["state"] in body:
                value = body[k["state"]]
                if _same(value, "TOGGLE"):
                    value = w["off"] if _same(s.get(k["state"]), w["state_on"]) else w["on"]
                s[k["state"]] = w["state_on"] if _same(value, w["on"]) else w["state_off"]
            for key in ("brightness", "color", "color_temp"):
                if k[key] in body and kind == "light":
                    s[k[key]] = body[k[key]]
                    s[k["state"]] = w["state_on"]
        elif kind == "lock" and k["state"] in body:
            locked = _same(body[k["state"]], w["lock"])
            s[k["state"]] = w["state_locked"] if locked else w["state_unlocked"]
            if "lock_state" in k:
                s[k["lock_state"]] = "locked" if locked else "unlocked"
        elif kind == "cover":
            value = body.get(k["state"])
            if value is not None and _same(value, w["open"]):
                s[k["state"]], s[k["position"]] = w["state_open"], 100
            elif value is not None and _same(value, w["close"]):
                s[k["state"]], s[k["position"]] = w["state_closed"], 0
            elif value is not None and _same(value, w["stop"]):
                s[k["state"]] = w["state_stopped"]
            if isinstance(body.get(k["position"]), int | float):
                s[k["position"]] = body[k["position"]]
                s[k["state"]] = w["state_closed"] if body[k["position"]] == 0 else w["state_open"]
        elif kind == "climate":
            if isinstance(body.get(k["target_temperature"]), int | float):
                s[k["target_temperature"]] = body[k["target_temperature"]]
            if isinstance(body.get(k["mode"]), str):
                s[k["mode"]] = body[k["mode"]]
        elif kind == "vacuum":
            command = str(body.get(k["command"], ""))
            for action, after in VACUUM_AFTER.items():
                if _same(command, w[action]):
                    s[k["state"]] = after

    def _apply_plain(self, role: str, payload: str) -> None:
        kind, w, s = self.device.type, self.words, self.state
        if role == "command":
            if kind in ("light", "switch", "fan"):
                s["state"] = w["state_on"] if _same(payload, w["on"]) else w["state_off"]
            elif kind == "lock":
                locked = _same(payload, w["lock"])
                s["state"] = w["state_locked"] if locked else w["state_unlocked"]
            elif kind == "cover":
                if _same(payload, w["open"]):
                    s["state"], position = w["state_open"], 100
                elif _same(payload, w["close"]):
                    s["state"], position = w["state_closed"], 0
                else:
                    s["state"], position = w["state_stopped"], s.get("position_state", 50)
                if "position_state" in self.device.topics:
                    s["position_state"] = position
            elif kind == "vacuum":
                for action, after in VACUUM_AFTER.items():
                    if _same(payload, w[action]):
                        s["state"] = json.dumps({"state": after})
        elif role == "brightness_command":
            s["brightness_state"] = payload
            if "state" in self.device.topics:
                s["state"] = w["state_on"]
        elif role == "rgb_command":
            s["rgb_state"] = payload
            if "state" in self.device.topics:
                s["state"] = w["state_on"]
        elif role == "position_command":
            s["position_state"] = payload
        elif role == "temperature_command":
            s["temperature_state"] = payload
        elif role == "mode_command":
            s["mode_state"] = payload
        elif role == "power_command":
            s["mode_state"] = "heat" if _same(payload, w["on"]) else "off"
        elif role in ("xy_command", "hs_command", "color_temp_command") and "state" in s:
            s["state"] = w["state_on"]


# --------------------------------------------------------------------------- announcements

#: Device topic role -> Home Assistant's abbreviated discovery key.
HA_TOPIC_KEYS = {
    "state": "stat_t",
    "command": "cmd_t",
    "brightness_state": "bri_stat_t",
    "brightness_command": "bri_cmd_t",
    "rgb_state": "rgb_stat_t",
    "rgb_command": "rgb_cmd_t",
    "position_state": "pos_t",
    "position_command": "set_pos_t",
    "temperature_state": "temp_stat_t",
    "temperature_command": "temp_cmd_t",
    "current_temperature": "curr_temp_t",
    "mode_state": "mode_stat_t",
    "mode_command": "mode_cmd_t",
    "power_command": "pow_cmd_t",
    "availability": "avty_t",
}
HA_WORD_KEYS = {
    "on": "pl_on",
    "off": "pl_off",
    "lock": "pl_lock",
    "unlock": "pl_unlk",
    "state_locked": "stat_locked",
    "state_unlocked": "stat_unlocked",
    "open": "pl_open",
    "close": "pl_cls",
    "stop": "pl_stop",
    "state_open": "stat_open",
    "state_closed": "stat_clsd",
    "state_stopped": "stat_stopped",
    "start": "pl_strt",
    "return_to_base": "pl_ret",
    "available": "pl_avail",
    "not_available": "pl_not_avail",
}
HA_WORDS_BY_TYPE = {
    "light": ("on", "off"),
    "switch": ("on", "off"),
    "fan": ("on", "off"),
    "lock": ("lock", "unlock", "state_locked", "state_unlocked"),
    "cover": ("open", "close", "stop", "state_open", "state_closed", "state_stopped"),
    "vacuum": ("start", "stop", "return_to_base"),
    "binary_sensor": (),
}


def _with_base(config: dict[str, Any]) -> dict[str, Any]:
    """Use the ``~`` shorthand for topics under the state topic, as many devices do."""
    base = config.get("stat_t")
    if not isinstance(base, str):
        return config
    out: dict[str, Any] = {"~": base}
    for key, value in config.items():
        if key.endswith("_t") and isinstance(value, str) and value.startswith(base):
            value = "~" + value[len(base) :]
        out[key] = value
    return out


def homeassistant_config(sim: SimulatedDevice) -> dict[str, Any]:
    """The retained discovery config a device of this kind would publish."""
    device, w = sim.device, sim.words
    config: dict[str, Any] = {
        "name": None,
        "uniq_id": f"sim_{device.id}",
        "dev": {
            "ids": [f"sim_{device.id}"],
            "name": device.name.title(),
            "mf": "Mnemolis",
            "mdl": f"simulated {device.type}",
        },
        "o": {"name": "mnemolis simulator"},
    }
    if device.room:
        config["dev"]["sa"] = device.room.title()
    for role, topic in device.topics.items():
        if role in HA_TOPIC_KEYS:
            config[HA_TOPIC_KEYS[role]] = topic
    if device.device_class:
        config["dev_cla"] = device.device_class
    if device.unit:
        config["unit_of_meas"] = device.unit
    if device.type == "light" and sim.json:
        config["schema"] = "json"
        modes = ["rgb"] if "color" in device.features else []
        if not modes:
            modes = ["brightness"] if "brightness" in device.features else ["onoff"]
        config["sup_clrm"] = modes
        if "brightness" in device.features:
            config["bri_scl"] = int(w.get("brightness_scale", 255))
    elif sim.json:
        _json_templates(sim, config)
    for word in HA_WORDS_BY_TYPE.get(device.type, ()):
        config[HA_WORD_KEYS[word]] = w[word]
    if device.type == "binary_sensor":
        config["pl_on"], config["pl_off"] = w["state_on"], w["state_off"]
    if device.type == "climate":
        config["modes"] = ["off", "heat", "auto"]
    if "availability" in device.topics and sim.z2m_base is None:
        config["pl_avail"], config["pl_not_avail"] = w["available"], w["not_available"]
    return _with_base(config)


def _json_templates(sim: SimulatedDevice, config: dict[str, Any]) -> None:
    """Describe a JSON device to Home Assistant with value and command templates."""
    kind, k, topics = sim.device.type, sim.keys, sim.device.topics

    def pick(key: str) -> str:
        return "{{ value_json." + key + " }}"

    if kind in ("switch", "lock", "binary_sensor", "cover"):
        config["val_tpl"] = pick(k["state"])
    if kind == "fan":
        config["stat_val_tpl"] = pick(k["state"])
    if kind in ("switch", "lock", "fan"):
        config["cmd_tpl"] = '{"' + k["state"] + '": "{{ value }}"}'
    if kind == "cover":
        config["pos_t"] = topics["state"]
        config["pos_tpl"] = pick(k["position"])
    if kind == "sensor":
        config["val_tpl"] = pick(k["value"])
    if kind == "climate":
        state, command = topics.get("state"), topics.get("command")
        config.pop("stat_t", None)
        config.pop("cmd_t", None)
        config.update(
            {
                "temp_stat_t": state,
                "temp_stat_tpl": pick(k["target_temperature"]),
                "curr_temp_t": state,
                "curr_temp_tpl": pick(k["current_temperature"]),
                "mode_stat_t": state,
                "mode_stat_tpl": pick(k["mode"]),
                "temp_cmd_t": command,
                "temp_cmd_tpl": '{"' + k["target_temperature"] + '": {{ value }}}',
                "mode_cmd_t": command,
                "mode_cmd_tpl": '{"' + k["mode"] + '": "{{ value }}"}',
            }
        )


def _z2m_expose(sim: SimulatedDevice) -> list[dict[str, Any]]:
    device, w, k = sim.device, sim.words, sim.keys
    kind = device.type

    def binary(name: str, prop: str, on: Any, off: Any) -> dict[str, Any]:
        return {
            "type": "binary",
            "name": name,
            "property": prop,
            "value_on": on,
            "value_off": off,
            "access": 7,
        }

    def numeric(name: str, prop: str, **more: Any) -> dict[str, Any]:
        return {"type": "numeric", "name": name, "property": prop, "access": 7, **more}

    if kind in ("light", "switch", "fan"):
        features = [binary("state", k["state"], w["on"], w["off"])]
        if kind == "light" and "brightness" in device.features:
            features.append(numeric("brightness", k["brightness"], value_min=0, value_max=254))
        if kind == "light" and "color" in device.features:
            xy = [numeric("x", "x"), numeric("y", "y")]
            features.append(
                {"type": "composite", "name": "color_xy", "property": k["color"], "features": xy}
            )
        return [
            {"type": kind, "features": features},
            numeric("linkquality", "linkquality", access=1),
        ]
    if kind == "lock":
        lock_state = {
            "type": "enum",
            "name": "lock_state",
            "property": k.get("lock_state", "lock_state"),
            "values": ["not_fully_locked", "locked", "unlocked"],
            "access": 1,
        }
        return [
            {
                "type": "lock",
                "features": [binary("state", k["state"], w["lock"], w["unlock"]), lock_state],
            }
        ]
    if kind == "cover":
        state = {
            "type": "enum",
            "name": "state",
            "property": k["state"],
            "values": [w["open"], w["close"], w["stop"]],
            "access": 7,
        }
        return [
            {
                "type": "cover",
                "features": [state, numeric("position", k["position"], value_min=0, value_max=100)],
            }
        ]
    if kind == "climate":
        mode = {
            "type": "enum",
            "name": "system_mode",
            "property": k["mode"],
            "values": ["off", "auto", "heat"],
            "access": 7,
        }
        return [
            {
                "type": "climate",
                "features": [
                    numeric(
                        "occupied_heating_setpoint",
                        k["target_temperature"],
                        value_min=5,
                        value_max=30,
                    ),
                    numeric("local_temperature", k["current_temperature"], access=1),
                    mode,
                ],
            }
        ]
    if kind == "sensor":
        return [
            numeric(
                str(device.device_class or "value"), k["value"], access=1, unit=device.unit or ""
            )
        ]
    if kind == "binary_sensor":
        return [binary(k["state"], k["state"], w["state_on"], w["state_off"])]
    return []


def zigbee2mqtt_entry(sim: SimulatedDevice, base: str) -> dict[str, Any]:
    """The device's entry in ``zigbee2mqtt/bridge/devices``."""
    friendly = sim.device.topics["state"][len(base) + 1 :]
    ieee = "0x" + hashlib.sha1(sim.device.id.encode()).hexdigest()[:16]
    return {
        "ieee_address": ieee,
        "type": "EndDevice" if sim.device.type in ("sensor", "binary_sensor") else "Router",
        "friendly_name": friendly,
        "supported": True,
        "disabled": False,
        "interview_completed": True,
        "definition": {
            "model": f"SIM-{sim.device.type.upper()}",
            "vendor": "Mnemolis",
            "description": f"simulated {sim.device.type}",
            "exposes": _z2m_expose(sim),
        },
    }


def zigbee2mqtt_device(
    name: str,
    type: str,
    *,
    features: Iterable[str] = (),
    room: str | None = None,
    device_class: str | None = None,
    unit: str | None = None,
    base: str = "zigbee2mqtt",
    friendly_name: str | None = None,
) -> Device:
    """A device wired the zigbee2mqtt way: state on ``<base>/<name>``, JSON on ``.../set``."""
    friendly = friendly_name or name
    state = f"{base}/{friendly}"
    topics = {"state": state, "availability": f"{state}/availability"}
    if type not in ("sensor", "binary_sensor"):
        topics["command"] = f"{state}/set"
    payloads: dict[str, Any] = {"keys": {}}
    if type == "light":
        payloads["brightness_scale"] = 254
    elif type == "fan":
        payloads["keys"] = {"state": "fan_state"}
    elif type == "lock":
        payloads.update(
            {
                "keys": {"lock_state": "lock_state"},
                "state_locked": "LOCK",
                "state_unlocked": "UNLOCK",
            }
        )
    elif type == "cover":
        payloads.update({"state_open": "OPEN", "state_closed": "CLOSE", "state_stopped": "STOP"})
    elif type == "climate":
        payloads["keys"] = {
            "target_temperature": "occupied_heating_setpoint",
            "current_temperature": "local_temperature",
            "mode": "system_mode",
        }
    elif type == "sensor":
        payloads["keys"] = {"value": device_class or "value"}
    elif type == "binary_sensor":
        expose = {"motion": "occupancy", "door": "contact", "moisture": "water_leak"}.get(
            device_class or "", "occupancy"
        )
        payloads.update(
            {
                "keys": {"state": expose},
                "state_on": expose != "contact",
                "state_off": expose == "contact",
            }
        )
    return Device(
        name=name,
        type=type,
        room=room,
        features=list(features),
        id="sim_" + slugify(friendly),
        origin="zigbee2mqtt",
        topics=topics,
        payloads=payloads,
        schema="json",
        device_class=device_class,
        unit=unit,
    )


# --------------------------------------------------------------------------- the simulator


class Simulator:
    """Devices on a broker: they announce themselves, report state and obey commands."""

    def __init__(
        self,
        host: str,
        port: int,
        devices: Iterable[Device],
        announce: Announce = "none",
        homeassistant_prefix: str = "homeassistant",
        zigbee2mqtt_base: str = "zigbee2mqtt",
        client_id: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.announce = announce
        self.homeassistant_prefix = homeassistant_prefix.rstrip("/")
        self.zigbee2mqtt_base = zigbee2mqtt_base.rstrip("/")
        z2m = zigbee2mqtt_base if announce == "zigbee2mqtt" else None
        self.devices = {d.name: SimulatedDevice(d, z2m) for d in devices}
        self.commands: list[ReceivedCommand] = []
        self._routes: dict[str, tuple[SimulatedDevice, str]] = {}
        for sim in self.devices.values():
            for topic, role in sim.command_topics().items():
                self._routes[topic] = (sim, role)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._connected = threading.Event()
        self._pending: list[mqtt.MQTTMessageInfo] = []
        self._subscribing: set[int] = set()
        self.client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id or f"mnemolis-simulator-{time.monotonic_ns() % 10**9}",
        )
        self.client.reconnect_delay_set(1, 2)
        self.client.max_inflight_messages_set(1000)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_a: self._connected.clear()
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_socket_open = lambda _c, _u, sock: no_delay(sock)

    # ------------------------------------------------------------------ life

    def start(self, timeout_s: float = 10.0) -> Simulator:
        """Connect, announce, publish availability and state; returns once they are stored."""
        self.client.connect(self.host, self.port, keepalive=30)
        self.client.loop_start()
        if not self._connected.wait(timeout_s):
            self.stop()
            raise TimeoutError(f"the simulator could not connect to {self.host}:{self.port}")
        self.flush(timeout_s)
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """True once connected (again, after the broker came back) and re-announced."""
        return self._connected.wait(timeout_s)

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("simulator: the broker refused us: %s", reason)
            return
        topics = [(t, 1) for t in sorted(self._routes)]
        self._subscribing = set()
        for i in range(0, len(topics), 64):
            _rc, mid = client.subscribe(topics[i : i + 64])
            if mid is not None:
                self._subscribing.add(mid)
        self._pending = self._publish_everything()  # a real device re-announces after a restart
        if not self._subscribing:
            self._connected.set()

    def _on_subscribe(self, _c: mqtt.Client, _u: Any, mid: int, _codes: Any, _p: Any) -> None:
        """Connected for real once the broker confirmed every subscription: a command
        published before that would never reach the device."""
        self._subscribing.discard(mid)
        if not self._subscribing:
            self._connected.set()

    def _publish_everything(self) -> list[mqtt.MQTTMessageInfo]:
        infos = []
        for topic, payload in self.announcements():
            infos.append(self.client.publish(topic, payload, qos=1, retain=True))
        with self._lock:
            messages = [
                m
                for s in self.devices.values()
                for m in s.availability_messages() + s.state_messages()
            ]
        for topic, payload in messages:
            infos.append(self.client.publish(topic, payload, qos=1, retain=True))
        return infos

    def flush(self, timeout_s: float = 10.0) -> None:
        """Wait until everything published so far reached the broker."""
        deadline = time.monotonic() + timeout_s
        for info in list(self._pending):
            if info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
                info.wait_for_publish(max(0.01, deadline - time.monotonic()))

    def announcements(self) -> list[tuple[str, str]]:
        if self.announce == "homeassistant":
            return [self._ha_message(sim) for sim in self.devices.values()]
        if self.announce == "zigbee2mqtt":
            return [
                self._bridge_message(),
                (f"{self.zigbee2mqtt_base}/bridge/state", json.dumps({"state": "online"})),
            ]
        return []

    def _ha_message(self, sim: SimulatedDevice) -> tuple[str, str]:
        topic = f"{self.homeassistant_prefix}/{sim.device.type}/{sim.device.id}/config"
        return topic, json.dumps(homeassistant_config(sim))

    def _bridge_message(self) -> tuple[str, str]:
        entries: list[dict[str, Any]] = [
            {
                "ieee_address": "0x0000000000000000",
                "type": "Coordinator",
                "friendly_name": "Coordinator",
                "definition": None,
                "supported": True,
                "disabled": False,
                "interview_completed": True,
            }
        ]
        entries += [zigbee2mqtt_entry(s, self.zigbee2mqtt_base) for s in self.devices.values()]
        return f"{self.zigbee2mqtt_base}/bridge/devices", json.dumps(entries)

    # ------------------------------------------------------------------ commands

    def _on_message(self, client: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        route = self._routes.get(msg.topic)
        if route is None:
            return
        sim, role = route
        payload = msg.payload.decode("utf-8", errors="replace")
        with self._lock:
            self.commands.append(ReceivedCommand(sim.name, msg.topic, payload))
            sim.handle(role, payload)
            echo = sim.echo and sim.available
            messages = sim.state_messages() if echo else []
            self._changed.notify_all()
        for topic, body in messages:
            client.publish(topic, body, qos=1, retain=True)

    def received(self, name: str | None = None) -> list[ReceivedCommand]:
        with self._lock:
            return [c for c in self.commands if name is None or c.device == name]

    def wait_for_commands(self, count: int, timeout_s: float = 5.0) -> list[ReceivedCommand]:
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while len(self.commands) < count and time.monotonic() < deadline:
                self._changed.wait(max(0.0, deadline - time.monotonic()))
            return list(self.commands)

    def clear(self) -> None:
        with self._lock:
            self.commands.clear()

    # ------------------------------------------------------------------ behaviour

    def sim(self, name: str) -> SimulatedDevice:
        return self.devices[" ".join(name.lower().split())]

    def set_echo(self, name: str, echo: bool) -> None:
        """A device that obeys but never reports back, like one with a broken state topic."""
        with self._lock:
            self.sim(name).echo = echo

    def set_available(self, name: str, available: bool) -> None:
        """Go offline (or come back), announcing it on the availability topic."""
        sim = self.sim(name)
        with self._lock:
            sim.available = available
            messages = sim.availability_messages()
        self._publish(messages, retain=True)

    def report(self, name: str, **values: Any) -> None:
        """Publish a new reading, as a sensor does on its own: ``report("x", temperature=22)``."""
        sim = self.sim(name)
        with self._lock:
            sim.state.update(values)
            messages = sim.state_messages()
        self._publish(messages, retain=True)

    def state(self, name: str) -> dict[str, Any]:
        with self._lock:
            return dict(self.sim(name).state)

    def remove(self, name: str) -> None:
        """Withdraw a device the way Home Assistant does: an empty retained config."""
        sim = self.sim(name)
        if self.announce == "homeassistant":
            topic, _ = self._ha_message(sim)
            self._publish([(topic, "")], retain=True)
        with self._lock:
            del self.devices[sim.name]
        if self.announce == "zigbee2mqtt":
            self._publish([self._bridge_message()], retain=True)

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        """Publish anything (tests use it for malformed configs and floods)."""
        self._publish([(topic, payload)], retain)

    def _publish(self, messages: Sequence[tuple[str, str | bytes]], retain: bool) -> None:
        infos = [self.client.publish(t, p, qos=1, retain=retain) for t, p in messages]
        for info in infos:
            try:
                info.wait_for_publish(5.0)
            except (RuntimeError, ValueError) as exc:  # the broker is down: a device just waits
                log.debug("simulator: publish not confirmed: %s", exc)
