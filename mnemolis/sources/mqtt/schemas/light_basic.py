"""Home Assistant's default ("basic") light schema: one topic per property.

``command_topic`` takes ``payload_on``/``payload_off``; brightness, colours,
colour temperature and effect each have their own command and state topic
and template (``homeassistant/components/mqtt/light/schema_basic.py``). The
colour modes follow from which command topics exist. ``on_command_type``
says when the "on" payload goes: ``last`` (after the attributes, the
default), ``first``, or ``brightness`` (never: a brightness turns it on).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import colors
from mnemolis.sources.mqtt.schemas import light_common as common
from mnemolis.sources.mqtt.schemas.base import (
    Options,
    Platform,
    command,
    on_off_state,
    require,
    value,
)
from mnemolis.sources.mqtt.wire import (
    Act,
    Command,
    level_to_brightness,
    number,
)

PROPERTIES = (
    "brightness",
    "color_mode",
    "color_temp",
    "effect",
    "hs",
    "rgb",
    "rgbw",
    "rgbww",
    "xy",
)
#: Colour command topics in the order Home Assistant picks the light's colour mode.
MODE_TOPICS = (
    ("color_temp", "color_temp"),
    ("hs", "hs"),
    ("rgb", "rgb"),
    ("rgbw", "rgbw"),
    ("rgbww", "rgbww"),
    ("white", "white"),
    ("xy", "xy"),
)


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a light")
    options.topic("state_topic", subscribe=True)
    options.template("state_value_template")
    for prop in PROPERTIES:
        options.topic(f"{prop}_state_topic", subscribe=True)
        options.template(f"{prop}_value_template")
        if prop != "color_mode":
            options.topic(f"{prop}_command_topic")
            options.template(f"{prop}_command_template")
    options.default_template(
        ["state_value_template", *(f"{prop}_value_template" for prop in PROPERTIES)]
    )
    options.topic("white_command_topic")
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    options.choice("on_command_type", "last", ("first", "last", "brightness"))
    options.integer("brightness_scale", 255, 1)
    options.integer("white_scale", 255, 1)
    options.flag("color_temp_kelvin", False)
    effects = options.strings("effect_list")
    options.qos()
    low, high = common.kelvin_range(options)
    config = options.config
    modes = [mode for mode, topic in MODE_TOPICS if config.get(f"{topic}_command_topic")]
    if not modes:
        modes = ["brightness"] if config.get("brightness_command_topic") else ["onoff"]
    if not config.get("effect_command_topic"):
        effects = []
    common.describe(device, modes, low, high, effects)


def _rgbx(device: Device, color: tuple[int, ...], mode: str, level: int) -> Command:
    """An RGB(W)(W) command scaled to ``level``, as Home Assistant's ``scale_rgbx``."""
    scaled = tuple(int(channel * level / 255) for channel in color)
    keys = [
        "red",
        "green",
        "blue",
        *{"rgbw": ["white"], "rgbww": ["cold_white", "warm_white"]}.get(mode, []),
    ]
    variables = dict(zip(keys, scaled, strict=False))
    text = ",".join(str(c) for c in scaled)
    return command(device, f"{mode}_command_topic", text, f"{mode}_command_template", variables)


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    on = command(device, "command_topic", config["payload_on"])
    if act.action == "turn_off":
        return [command(device, "command_topic", config["payload_off"])]
    request = common.prepare(device, act, state)
    if request is None:
        return [command(device, "command_topic", config["payload_off"])]
    out: list[Command] = []
    kind = config["on_command_type"]
    level = request.brightness
    if kind == "first":
        out.append(on)
    elif kind == "brightness" and level is None:
        level = common.current_level(state) or 255
    color = request.color
    if color is not None:
        if color.mode == "hs":
            h, s = color.value
            out.append(
                command(
                    device,
                    "hs_command_topic",
                    f"{h},{s}",
                    "hs_command_template",
                    {"hue": h, "sat": s},
                )
            )
        elif color.mode in ("rgb", "rgbw", "rgbww"):
            rgbx = tuple(int(c) for c in color.value)
            scale_to = (
                255
                if config.get("brightness_command_topic")
                else (request.brightness or common.current_level(state) or 255)
            )
            out.append(_rgbx(device, rgbx, color.mode, scale_to))
        elif color.mode == "xy":
            x, y = color.value
            out.append(
                command(
                    device, "xy_command_topic", f"{x},{y}", "xy_command_template", {"x": x, "y": y}
                )
            )
    if level is not None and config.get("brightness_command_topic"):
        scale = config["brightness_scale"]
        device_level = max(min(round(level / 255 * scale), scale), 1)
        out.append(
            command(device, "brightness_command_topic", device_level, "brightness_command_template")
        )
    elif level is not None and (color is None or color.mode not in ("rgb", "rgbw", "rgbww")):
        for mode, width in (("rgb", 3), ("rgbw", 4), ("rgbww", 5)):
            if config.get(f"{mode}_command_topic"):
                remembered = _remembered(state, mode, width)
                out.append(_rgbx(device, remembered, mode, level))
                break
    if color is not None and color.mode == "color_temp" and config.get("color_temp_command_topic"):
        kelvin = int(color.value[0])
        sent = kelvin if config.get("color_temp_kelvin") else colors.kelvin_to_mired(kelvin)
        out.append(command(device, "color_temp_command_topic", sent, "color_temp_command_template"))
    if request.effect is not None and config.get("effect_command_topic"):
        out.append(
            command(device, "effect_command_topic", request.effect, "effect_command_template")
        )
    if kind == "last":
        out.append(on)
    return out


def _remembered(state: Mapping[str, Any], mode: str, width: int) -> tuple[int, ...]:
    raw = state.get(f"{mode}_color")
    if isinstance(raw, list | tuple) and len(raw) == width:
        return tuple(int(c) for c in raw)
    return (255,) * width


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    if role == "state":
        return on_off_state(device, payload)
    prop = role.removesuffix("_state")
    text = value(device, f"{prop}_value_template", payload)
    if not text:
        return {}
    if prop == "brightness":
        level = number(text)
        if not level:
            return {}
        return common.brightness_values(level_to_brightness(config["brightness_scale"], level))
    if prop in ("rgb", "rgbw", "rgbww"):
        return _rgbx_values(device, prop, text)
    if prop == "color_temp":
        raw = number(text)
        if raw is None or raw <= 0:
            return {}
        kelvin = int(raw) if config.get("color_temp_kelvin") else colors.mired_to_kelvin(raw)
        return {
            "kelvin": kelvin,
            "color_temp": colors.kelvin_to_mired(kelvin),
            "color_mode": "color_temp",
        }
    if prop in ("hs", "xy"):
        parts = [number(p) for p in text.split(",", 2)]
        if len(parts) != 2 or None in parts:
            raise ValueError(f"{text[:40]!r} is not a {prop} colour")
        a, b = float(parts[0] or 0), float(parts[1] or 0)
        color = {"h": a, "s": b} if prop == "hs" else {"x": a, "y": b}
        return {"color": color, "color_mode": prop}
    if prop == "effect":
        return {"effect": text}
    if prop == "color_mode":
        return {"color_mode": text}
    return {}


def _rgbx_values(device: Device, mode: str, text: str) -> dict[str, Any]:
    try:
        channels = tuple(int(c) for c in text.split(","))
    except ValueError:
        raise ValueError(f"{text[:40]!r} is not a {mode} colour") from None
    if len(channels) != {"rgb": 3, "rgbw": 4, "rgbww": 5}[mode]:
        raise ValueError(f"{text[:40]!r} is not a {mode} colour")
    values: dict[str, Any] = {"color_mode": mode}
    if not device.config.get("brightness_state_topic"):
        rgb = (
            channels[:3]
            if mode == "rgb"
            else (
                colors.rgbw_to_rgb(*channels[:4])
                if mode == "rgbw"
                else colors.rgbww_to_rgb(
                    channels[0],
                    channels[1],
                    channels[2],
                    channels[3],
                    channels[4],
                    device.caps.min_kelvin or colors.DEFAULT_MIN_KELVIN,
                    device.caps.max_kelvin or colors.DEFAULT_MAX_KELVIN,
                )
            )
        )
        level = max(rgb)
        if level == 0:
            return {}
        values.update(common.brightness_values(level))
        channels = tuple(min(round(c / level * 255), 255) for c in channels)
    values[f"{mode}_color"] = list(channels)
    values["color"] = {"r": channels[0], "g": channels[1], "b": channels[2]}
    return values


PLATFORM = Platform("light", "default", load, encode, decode)
