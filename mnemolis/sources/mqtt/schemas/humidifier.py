"""Home Assistant's MQTT humidifier: on/off, a target humidity, modes.

``target_humidity_command_topic`` is required; the humidity goes out as a
whole number through its template (``homeassistant/components/mqtt/humidifier.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas import temperature_control as tc
from mnemolis.sources.mqtt.schemas.base import (
    Options,
    Platform,
    command,
    on_off_state,
    one_of,
    value,
)
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported

ACTIONS = ("off", "humidifying", "drying", "idle")


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("target_humidity_command_topic")
    if "command_topic" not in options.config:
        raise BadConfig("a humidifier needs a command_topic")
    if "target_humidity_command_topic" not in options.config:
        raise BadConfig("a humidifier needs a target_humidity_command_topic")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("state_value_template")
    options.template("target_humidity_command_template")
    options.topic("target_humidity_state_topic", subscribe=True)
    options.template("target_humidity_state_template")
    options.topic("mode_command_topic")
    options.topic("mode_state_topic", subscribe=True)
    options.template("mode_command_template")
    options.template("mode_state_template")
    for part in ("action", "current_humidity"):
        options.topic(f"{part}_topic", subscribe=True)
        options.template(f"{part}_template")
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    options.text("payload_reset_humidity", PAYLOAD_NONE)
    options.text("payload_reset_mode", PAYLOAD_NONE)
    modes = options.strings("modes")
    device.caps.minimum = options.number("min_humidity", 0)
    device.caps.maximum = options.number("max_humidity", 100)
    options.qos()
    device.caps.modes = tuple(modes) if options.config.get("mode_command_topic") else ()
    device.features = ["humidity"] + (["mode"] if device.caps.modes else [])
    device.unit = "%"


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action in ("turn_on", "turn_off"):
        word = config["payload_on" if act.action == "turn_on" else "payload_off"]
        return [command(device, "command_topic", word, "command_template")]
    if act.action == "set_humidity":
        low, high = device.caps.minimum or 0, device.caps.maximum or 100
        return [tc.humidity(device, act.humidity, low, high)]
    if act.action == "set_mode":
        if not config.get("mode_command_topic"):
            raise Unsupported("no_mode")
        mode = one_of(act.mode, device.caps.modes, "mode")
        return [command(device, "mode_command_topic", mode, "mode_command_template")]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    if role == "state":
        return on_off_state(device, payload)
    if role == "target_humidity_state":
        text = value(device, "target_humidity_state_template", payload)
        if not text:
            return {}
        if text == config["payload_reset_humidity"]:
            return {"target_humidity": None}
        found = tc.reading(text)
        return {"target_humidity": round(found) if found is not None else None}
    if role == "mode_state":
        text = value(device, "mode_state_template", payload)
        if not text:
            return {}
        if text == config["payload_reset_mode"]:
            return {"mode": None}
        if device.caps.modes and text not in device.caps.modes:
            raise ValueError(f"{text[:40]!r} is not one of its modes")
        return {"mode": text}
    if role == "action":
        text = value(device, "action_template", payload)
        if text not in ACTIONS:
            raise ValueError(f"{text[:40]!r} is not a humidifier action")
        return {"action": text}
    if role == "current_humidity":
        text = value(device, "current_humidity_template", payload)
        return {"current_humidity": tc.reading(text)} if text else {}
    return {}


PLATFORM = Platform("humidifier", "default", load, encode, decode)
