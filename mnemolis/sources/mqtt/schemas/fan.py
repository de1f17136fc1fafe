"""Home Assistant's MQTT fan: on/off, percentage, preset modes, oscillation, direction.

A percentage becomes a speed within ``speed_range_min``..``speed_range_max``
rounded up (``math.ceil``), as ``homeassistant/components/mqtt/fan.py`` does;
``payload_reset_percentage`` and ``payload_reset_preset_mode`` ("None") mean
"unknown" in a state.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import (
    Options,
    Platform,
    command,
    on_off_state,
    one_of,
    require,
    value,
)
from mnemolis.sources.mqtt.wire import (
    PAYLOAD_NONE,
    Act,
    Command,
    Unsupported,
    percentage_to_ranged,
    ranged_to_percentage,
)

PARTS = ("percentage", "preset_mode", "oscillation", "direction")


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a fan")
    options.topic("state_topic", subscribe=True)
    options.template("state_value_template")
    options.template("command_template")
    for part in PARTS:
        options.topic(f"{part}_command_topic")
        options.topic(f"{part}_state_topic", subscribe=True)
        options.template(f"{part}_command_template")
        options.template(f"{part}_value_template")
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    options.text("payload_oscillation_on", "oscillate_on")
    options.text("payload_oscillation_off", "oscillate_off")
    options.text("payload_reset_percentage", PAYLOAD_NONE)
    reset = options.text("payload_reset_preset_mode", PAYLOAD_NONE)
    low = options.integer("speed_range_min", 1, 1) or 1
    high = options.integer("speed_range_max", 100, 1) or 100
    if low >= high:
        raise BadConfig("speed_range_max must be more than speed_range_min")
    presets = options.strings("preset_modes")
    if options.config.get("preset_mode_command_topic") and not presets:
        raise BadConfig("preset_mode_command_topic needs preset_modes")
    if reset in presets:
        raise BadConfig("preset_modes must not contain payload_reset_preset_mode")
    options.qos()
    config = options.config
    device.features = [
        feature
        for feature, key in (
            ("percentage", "percentage_command_topic"),
            ("preset", "preset_mode_command_topic"),
            ("oscillate", "oscillation_command_topic"),
            ("direction", "direction_command_topic"),
        )
        if config.get(key)
    ]
    if config.get("percentage_command_topic"):
        device.caps.speed_count = min(high - low + 1, 100)
    device.caps.preset_modes = tuple(presets) if config.get("preset_mode_command_topic") else ()


def _percentage(device: Device, percentage: float) -> Command:
    config = device.config
    if not config.get("percentage_command_topic"):
        raise Unsupported("no_percentage")
    speed_range = (config["speed_range_min"], config["speed_range_max"])
    speed = math.ceil(percentage_to_ranged(speed_range, percentage))
    return command(device, "percentage_command_topic", speed, "percentage_command_template")


def _preset(device: Device, preset: str | None) -> Command:
    if not device.config.get("preset_mode_command_topic"):
        raise Unsupported("no_preset")
    chosen = one_of(preset, device.caps.preset_modes, "preset")
    return command(device, "preset_mode_command_topic", chosen, "preset_mode_command_template")


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    action = act.action
    if action == "turn_off":
        return [command(device, "command_topic", config["payload_off"], "command_template")]
    if action == "turn_on":
        out = [command(device, "command_topic", config["payload_on"], "command_template")]
        if act.percentage:
            out.append(_percentage(device, act.percentage))
        if act.preset:
            out.append(_preset(device, act.preset))
        return out
    if action == "set_percentage":
        if act.percentage is None:
            raise Unsupported("no_value")
        return [_percentage(device, act.percentage)]
    if action == "set_preset":
        return [_preset(device, act.preset)]
    if action == "oscillate":
        if not config.get("oscillation_command_topic"):
            raise Unsupported("no_oscillation")
        word = config[
            "payload_oscillation_on" if act.oscillating is not False else "payload_oscillation_off"
        ]
        return [command(device, "oscillation_command_topic", word, "oscillation_command_template")]
    if action == "set_direction":
        if not config.get("direction_command_topic"):
            raise Unsupported("no_direction")
        direction = one_of(act.direction, ("forward", "reverse"), "direction")
        return [command(device, "direction_command_topic", direction, "direction_command_template")]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    if role == "state":
        return on_off_state(device, payload)
    part = role.removesuffix("_state")
    text = value(device, f"{part}_value_template", payload)
    if not text:
        return {}
    if part == "percentage":
        if text == config["payload_reset_percentage"]:
            return {"percentage": None}
        speed_range = (config["speed_range_min"], config["speed_range_max"])
        try:
            percentage = ranged_to_percentage(speed_range, int(float(text)))
        except (ValueError, OverflowError):
            raise ValueError(f"{text[:40]!r} is not a fan speed") from None
        if not 0 <= percentage <= 100:
            raise ValueError(f"fan speed {text[:40]!r} is out of range")
        return {"percentage": percentage}
    if part == "preset_mode":
        if text == config["payload_reset_preset_mode"]:
            return {"preset": None}
        if text not in device.caps.preset_modes:
            raise ValueError(f"{text[:40]!r} is not one of the fan's presets")
        return {"preset": text}
    if part == "oscillation":
        if text == config["payload_oscillation_on"]:
            return {"oscillating": True}
        if text == config["payload_oscillation_off"]:
            return {"oscillating": False}
        return {}
    if part == "direction":
        return {"direction": text}
    return {}


PLATFORM = Platform("fan", "default", load, encode, decode)
