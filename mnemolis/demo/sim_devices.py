"""One simulated device: its state as it would publish it, and how it reacts to commands.

Written independently of the MQTT source's codec on purpose, so the tests
compare two readings of the same protocol rather than one with itself.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.z2m_json import JSON_KEYS  # the wire contract, not the logic

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
    qos: int = 0  # as delivered: the lower of the publish's and the subscription's (1)


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
