"""Home Assistant's MQTT water heater: a target temperature, operation modes, power.

Shares the climate's topic pairs (``homeassistant/components/mqtt/water_heater.py``);
Home Assistant's default range is 110-140 °F (43.3-60 °C).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas import temperature_control as tc
from mnemolis.sources.mqtt.schemas.base import Options, Platform, any_topic, value
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported

DEFAULT_MODES = ["off", "eco", "electric", "gas", "heat_pump", "high_demand", "performance"]


def load(options: Options, device: Device) -> None:
    tc.load_parts(options, ("mode", "temperature", "power"))
    options.topic("current_temperature_topic", subscribe=True)
    options.template("current_temperature_template")
    options.default_template(
        [f"{part}_state_template" for part in ("mode", "temperature", "power")]
        + ["current_temperature_template"]
    )
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    modes = options.strings("modes", DEFAULT_MODES)
    tc.load_range(options, 43.3, 60.0, device)
    options.qos()
    config = options.config
    any_topic(options)
    device.caps.modes = tc.announced_modes(config, modes)
    device.features = [
        f
        for f, key in (
            ("target_temperature", "temperature_command_topic"),
            ("mode", "mode_command_topic"),
            ("power", "power_command_topic"),
        )
        if config.get(key)
    ]


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    if act.action in ("turn_on", "turn_off"):
        on = act.action == "turn_on"
        powered = tc.power(device, on)
        if powered is not None:
            return [powered]
        return [
            tc.choice(device, "mode", tc.modes_on(device, on, state), device.caps.modes, "mode")
        ]
    if act.action == "set_temperature":
        return [tc.temperature(device, "temperature", act.temperature)]
    if act.action == "set_mode":
        return [tc.choice(device, "mode", act.mode, device.caps.modes, "mode")]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    if role == "current_temperature":
        text = value(device, "current_temperature_template", payload)
        return {"current_temperature": tc.reading(text)} if text else {}
    part = role.removesuffix("_state")
    text = value(device, f"{part}_state_template", payload)
    if not text:
        return {}
    if part == "mode":
        if device.caps.modes and text not in device.caps.modes:
            raise ValueError(f"{text[:40]!r} is not one of its modes")
        return {"mode": text, "state": "off" if text == "off" else "on"}
    if part == "temperature":
        return {"target_temperature": tc.reading(text)}
    if part == "power":
        config = device.config
        if text == config["payload_on"]:
            return {"state": "on"}
        if text == config["payload_off"]:
            return {"state": "off"}
    return {}


PLATFORM = Platform("water_heater", "default", load, encode, decode)
