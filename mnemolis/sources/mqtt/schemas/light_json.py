"""Home Assistant's JSON light schema: one JSON object per command and per state.

``{"state": "ON", "brightness": 128, "color": {"x": 0.7, "y": 0.3}}`` on
``command_topic``, the same shape (with ``color_mode``) on ``state_topic``,
as zigbee2mqtt and ESPHome lights speak (``light/schema_json.py``). Colour
modes come from ``supported_color_modes``; without them a light with
``brightness: true`` dims and any other only switches. The flags Home
Assistant 2025.3 removed (``color_mode``, ``color_temp``, ``hs``, ``rgb``,
``xy``) are dropped from a discovered config without refusing it, as Home
Assistant drops them (``cv.removed(..., raise_if_present=False)``), so an
older ESPHome light still works. Payloads are compact JSON in Home
Assistant's key order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import colors
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas import light_common as common
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, require
from mnemolis.sources.mqtt.wire import Act, Command, json_dumps, number, value_to_brightness

VALID_MODES = ("onoff", "brightness", "color_temp", "hs", "xy", "rgb", "rgbw", "rgbww", "white")


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a light")
    options.topic("state_topic", subscribe=True)
    brightness = options.flag("brightness", False)
    options.integer("brightness_scale", 255, 1)
    options.integer("white_scale", 255, 1)
    options.flag("color_temp_kelvin", False)
    options.flag("effect", False)
    effects = options.strings("effect_list")
    options.integer("flash_time_long", 10, 0)
    options.integer("flash_time_short", 2, 0)
    options.qos()
    low, high = common.kelvin_range(options)
    modes = options.strings("supported_color_modes")
    if modes:
        unknown = [m for m in modes if m not in VALID_MODES]
        if unknown:
            raise BadConfig(f"unknown colour mode {unknown[0]!r}")
    else:
        modes = ["brightness"] if brightness else ["onoff"]
    if not options.config["effect"]:
        effects = []
    common.describe(device, modes, low, high, effects)


def _scale(device: Device, channels: tuple[int, ...], level: int | None) -> tuple[int, ...]:
    """Home Assistant's ``_scale_rgbxx``: lights without brightness get it in the colour."""
    scale_to = 255 if device.config.get("brightness") else (level or 255)
    return tuple(round(c / 255 * scale_to) for c in channels)


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action == "turn_off":
        return [command(device, "command_topic", json_dumps({"state": "OFF"}))]
    request = common.prepare(device, act, state)
    if request is None:
        return [command(device, "command_topic", json_dumps({"state": "OFF"}))]
    message: dict[str, Any] = {"state": "ON"}
    level = request.brightness
    color = request.color
    if color is not None and color.mode != "color_temp":
        if color.mode in ("rgb", "rgbw", "rgbww"):
            channels = _scale(device, tuple(int(c) for c in color.value), level)
            if not config.get("brightness"):
                level = None
            message["color"] = dict(
                zip("rgbcw" if color.mode == "rgbww" else "rgbw", channels, strict=False)
            )
        elif color.mode == "hs":
            message["color"] = {"h": color.value[0], "s": color.value[1]}
        elif color.mode == "xy":
            message["color"] = {"x": color.value[0], "y": color.value[1]}
    if level is not None and set(device.caps.color_modes) & common.DIMMABLE:
        scale = config["brightness_scale"]
        message["brightness"] = max(round(level * scale / 255), 1)
    if color is not None and color.mode == "color_temp":
        kelvin = int(color.value[0])
        message["color_temp"] = (
            kelvin if config.get("color_temp_kelvin") else colors.kelvin_to_mired(kelvin)
        )
    if request.effect is not None:
        message["effect"] = request.effect
    return [command(device, "command_topic", json_dumps(message))]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    try:
        values = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("the payload is not JSON") from exc
    if not isinstance(values, dict):
        raise ValueError("a JSON light state must be an object")
    config = device.config
    out: dict[str, Any] = {}
    if "state" in values:
        state = values["state"]
        if state in ("ON", "OFF"):
            out["state"] = state.lower()
        elif state is None:
            out["state"] = None
    modes = set(device.caps.color_modes)
    level = number(values.get("brightness"))
    if level and modes & common.DIMMABLE:
        out.update(common.brightness_values(value_to_brightness(config["brightness_scale"], level)))
    color = values.get("color")
    mode = values.get("color_mode")
    if not isinstance(mode, str) or mode not in modes:  # Home Assistant reads colour by mode
        mode = None
    if isinstance(color, dict) and mode not in (None, "color_temp", "white"):
        out["color"] = {k: v for k, v in color.items() if isinstance(v, int | float)}
    if mode is not None:
        out["color_mode"] = mode
    temp = number(values.get("color_temp"))
    if temp and mode == "color_temp":
        kelvin = int(temp) if config.get("color_temp_kelvin") else colors.mired_to_kelvin(temp)
        out["kelvin"] = kelvin
        out["color_temp"] = colors.kelvin_to_mired(kelvin)
    if device.caps.effects and isinstance(values.get("effect"), str):
        out["effect"] = values["effect"]
    return out


PLATFORM = Platform("light", "json", load, encode, decode)
