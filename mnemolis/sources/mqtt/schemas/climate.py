"""Home Assistant's MQTT climate: modes, targets (single or low/high), fans, swing, presets.

One topic pair per part (``homeassistant/components/mqtt/climate.py``):
mode, temperature, temperature_low, temperature_high, fan_mode, swing_mode,
preset_mode, target_humidity, power; read-only current temperature, current
humidity and action (what it is doing: heating, idle ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas import temperature_control as tc
from mnemolis.sources.mqtt.schemas.base import Options, Platform, any_topic, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported

PARTS = (
    "mode",
    "temperature",
    "temperature_low",
    "temperature_high",
    "fan_mode",
    "swing_mode",
    "power",
)
ACTIONS = ("off", "heating", "cooling", "drying", "idle", "fan", "preheating", "defrosting")
DEFAULT_MODES = ["auto", "off", "cool", "heat", "dry", "fan_only"]


def load(options: Options, device: Device) -> None:
    tc.load_parts(options, PARTS)
    options.topic("preset_mode_command_topic")
    options.topic("preset_mode_state_topic", subscribe=True)
    options.template("preset_mode_command_template")
    options.template("preset_mode_value_template")
    options.topic("target_humidity_command_topic")
    options.topic("target_humidity_state_topic", subscribe=True)
    options.template("target_humidity_command_template")
    options.template("target_humidity_state_template")
    for part in ("current_temperature", "current_humidity", "action"):
        options.topic(f"{part}_topic", subscribe=True)
        options.template(f"{part}_template")
    options.default_template(
        [
            *(f"{part}_state_template" for part in PARTS),
            "preset_mode_value_template",
            "target_humidity_state_template",
            *(f"{part}_template" for part in ("current_temperature", "current_humidity", "action")),
        ]
    )
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    modes = options.strings("modes", DEFAULT_MODES)
    fan_modes = options.strings("fan_modes", ["auto", "low", "medium", "high"])
    swing_modes = options.strings("swing_modes", ["on", "off"])
    presets = options.strings("preset_modes")
    if "none" in presets:
        raise BadConfig("preset_modes must not include none")
    options.number("min_humidity", 30)
    options.number("max_humidity", 99)
    tc.load_range(options, 7, 35, device)
    options.qos()
    config = options.config
    any_topic(options)
    device.caps.modes = tc.announced_modes(config, modes)
    device.caps.fan_modes = tuple(fan_modes) if config.get("fan_mode_command_topic") else ()
    device.caps.swing_modes = tuple(swing_modes) if config.get("swing_mode_command_topic") else ()
    device.caps.preset_modes = tuple(presets) if config.get("preset_mode_command_topic") else ()
    device.features = [
        feature
        for feature, key in (
            ("target_temperature", "temperature_command_topic"),
            ("target_temperature_range", "temperature_low_command_topic"),
            ("fan_mode", "fan_mode_command_topic"),
            ("swing_mode", "swing_mode_command_topic"),
            ("preset", "preset_mode_command_topic"),
            ("humidity", "target_humidity_command_topic"),
            ("power", "power_command_topic"),
        )
        if config.get(key)
    ]
    device.extra["modes"] = list(device.caps.modes)


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    action = act.action
    if action in ("turn_on", "turn_off"):
        on = action == "turn_on"
        powered = tc.power(device, on)
        if powered is not None:
            return [powered]
        mode = act.mode or tc.modes_on(device, on, state)
        return [tc.choice(device, "mode", mode, device.caps.modes, "mode")]
    if action == "set_mode":
        return [tc.choice(device, "mode", act.mode, device.caps.modes, "mode")]
    if action == "set_temperature":
        out: list[Command] = []
        if act.mode:
            out.append(tc.choice(device, "mode", act.mode, device.caps.modes, "mode"))
        if act.target_low is not None or act.target_high is not None:
            if act.target_low is not None:
                out.append(tc.temperature(device, "temperature_low", act.target_low))
            if act.target_high is not None:
                out.append(tc.temperature(device, "temperature_high", act.target_high))
            return out
        if not config.get("temperature_command_topic") and config.get(
            "temperature_low_command_topic"
        ):
            raise Unsupported("needs_range")
        out.append(tc.temperature(device, "temperature", act.temperature))
        return out
    if action == "set_fan_mode":
        return [tc.choice(device, "fan_mode", act.fan_mode, device.caps.fan_modes, "fan_mode")]
    if action == "set_swing_mode":
        return [
            tc.choice(device, "swing_mode", act.swing_mode, device.caps.swing_modes, "swing_mode")
        ]
    if action == "set_preset":
        return [tc.choice(device, "preset_mode", act.preset, device.caps.preset_modes, "preset")]
    if action == "set_humidity":
        config = device.config
        return [tc.humidity(device, act.humidity, config["min_humidity"], config["max_humidity"])]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    if role in ("current_temperature", "current_humidity", "action"):
        text = value(device, f"{role}_template", payload)
        if not text:
            return {}
        if role == "action":
            if text == PAYLOAD_NONE:
                return {"action": None}
            if text not in ACTIONS:
                raise ValueError(f"{text[:40]!r} is not a climate action")
            return {"action": text}
        return {role: tc.reading(text)}
    if role == "preset_mode_state":
        text = value(device, "preset_mode_value_template", payload)
        if not text:
            return {}
        if text in ("none", PAYLOAD_NONE):
            return {"preset": None}
        if text not in device.caps.preset_modes:
            raise ValueError(f"{text[:40]!r} is not one of its presets")
        return {"preset": text}
    part = role.removesuffix("_state")
    text = value(device, f"{part}_state_template", payload)
    if not text:
        return {}
    if part == "mode":
        if text not in device.caps.modes:
            raise ValueError(f"{text[:40]!r} is not one of its modes")
        return {
            "mode": text,
            "state": "off" if text == "off" else "on",
            **({"last_mode": text} if text != "off" else {}),
        }
    if part in ("temperature", "temperature_low", "temperature_high"):
        name = {
            "temperature": "target_temperature",
            "temperature_low": "target_temperature_low",
            "temperature_high": "target_temperature_high",
        }[part]
        return {name: tc.reading(text)}
    if part == "target_humidity":
        return {"target_humidity": tc.reading(text)}
    if part in ("fan_mode", "swing_mode"):
        return {part: text}
    if part == "power":
        return {}
    return {}


PLATFORM = Platform("climate", "default", load, encode, decode)
