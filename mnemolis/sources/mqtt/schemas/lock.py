"""Home Assistant's MQTT lock: lock, unlock and (when announced) open, through ``command_template``.

The template sees ``value`` (the payload) and ``code``. A lock with a
``code_format`` wants a code with every command; Mnemolis does not take
codes by voice, so such a lock is only read (``homeassistant/components/mqtt/lock.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, require, value
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported

STATES = {
    "locked": "LOCKED",
    "locking": "LOCKING",
    "unlocked": "UNLOCKED",
    "unlocking": "UNLOCKING",
    "jammed": "JAMMED",
    "open": "OPEN",
    "opening": "OPENING",
}
ACTIONS = {"lock": "payload_lock", "unlock": "payload_unlock", "open": "payload_open"}


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a lock")
    options.topic("state_topic", subscribe=True)
    options.template("command_template", "{{ value }}")
    options.template("value_template")
    options.text("payload_lock", "LOCK")
    options.text("payload_unlock", "UNLOCK")
    if "payload_open" in options.raw:
        options.text("payload_open")
    options.text("payload_reset", "None")
    for state, default in STATES.items():
        options.text(f"state_{state}", default)
    options.text("code_format", None)
    options.qos()
    features = ["open"] if options.config.get("payload_open") else []
    if options.config.get("code_format"):
        features.append("code")
    device.features = features


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    key = ACTIONS.get(act.action)
    if key is None:
        raise Unsupported("cannot")
    if config.get("code_format"):
        raise Unsupported("needs_code")
    if config.get(key) is None:
        raise Unsupported("no_open" if act.action == "open" else "cannot")
    return [command(device, "command_topic", config[key], "command_template", {"code": None})]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == config["payload_reset"]:
        return {"state": None}
    for state in STATES:
        if text == config[f"state_{state}"]:
            return {"state": state}
    raise ValueError(f"{text[:40]!r} is not a lock state")


PLATFORM = Platform("lock", "default", load, encode, decode)
