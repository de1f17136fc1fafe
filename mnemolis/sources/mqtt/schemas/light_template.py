"""Home Assistant's template light schema: the device's own format, written by templates.

``command_on_template`` and ``command_off_template`` build the whole command
from variables (``state``, ``brightness`` 0-255, ``red``/``green``/``blue``,
``hue``/``sat``, ``color_temp``, ``effect``); ``state_template``,
``brightness_template``, ``red_template`` ... read the one state topic
(``light/schema_template.py``). Shelly's gen-1 RGBW bulbs are driven this way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import colors
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas import light_common as common
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, require, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, number

VALUE_TEMPLATES = (
    "state_template",
    "brightness_template",
    "color_temp_template",
    "red_template",
    "green_template",
    "blue_template",
    "effect_template",
)


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a light")
    options.topic("state_topic", subscribe=True)
    for key in ("command_on_template", "command_off_template"):
        if key not in options.raw:
            raise BadConfig(f"a template light needs a {key}")
        options.template(key)
    for key in VALUE_TEMPLATES:
        options.template(key)
    options.flag("color_temp_kelvin", False)
    effects = options.strings("effect_list")
    options.qos()
    low, high = common.kelvin_range(options)
    config = options.config
    modes = ["onoff"]
    if "brightness_template" in options.raw:
        modes.append("brightness")
    if "color_temp_template" in options.raw:
        modes.append("color_temp")
    if all(f"{c}_template" in options.raw for c in ("red", "green", "blue")):
        modes.append("hs")
    if len(modes) > 1:
        modes.remove("onoff")
    if "hs" in modes and "brightness" in modes:
        modes.remove("brightness")
    config["template_modes"] = list(modes)
    common.describe(device, modes, low, high, effects if "effect_list" in options.raw else [])


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action == "turn_off":
        return [command(device, "command_topic", None, "command_off_template", {"state": False})]
    request = common.prepare(device, act, state)
    if request is None:
        return [command(device, "command_topic", None, "command_off_template", {"state": False})]
    values: dict[str, Any] = {"state": True}
    if request.brightness is not None:
        values["brightness"] = int(request.brightness)
    color = request.color
    if color is not None and color.mode == "color_temp":
        kelvin = int(color.value[0])
        values["color_temp"] = (
            kelvin if config.get("color_temp_kelvin") else (colors.kelvin_to_mired(kelvin))
        )
    elif color is not None and color.mode == "hs":
        h, s = float(color.value[0]), float(color.value[1])
        if config.get("brightness_template"):
            level = 255
        else:
            current = number(state.get("brightness_level"))
            level = request.brightness or (int(current) if current is not None else 255)
        r, g, b = colors.hsv_to_rgb(h, s, level / 255 * 100)
        values.update({"red": r, "green": g, "blue": b, "hue": h, "sat": s})
    if request.effect is not None:
        values["effect"] = request.effect
    return [command(device, "command_topic", None, "command_on_template", values)]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    out: dict[str, Any] = {}
    if config.get("state_template"):
        state = value(device, "state_template", payload)
        if state in ("on", "off"):
            out["state"] = state
        elif state == PAYLOAD_NONE:
            out["state"] = None
    if config.get("brightness_template"):
        level = number(value(device, "brightness_template", payload))
        if level:
            out.update(common.brightness_values(min(255, int(level))))
    if config.get("color_temp_template"):
        raw = value(device, "color_temp_template", payload)
        temp = number(raw)
        if temp and temp > 0:
            kelvin = int(temp) if config.get("color_temp_kelvin") else colors.mired_to_kelvin(temp)
            out.update({"kelvin": kelvin, "color_temp": colors.kelvin_to_mired(kelvin)})
    if all(config.get(f"{c}_template") for c in ("red", "green", "blue")):
        channels = [
            number(value(device, f"{c}_template", payload)) for c in ("red", "green", "blue")
        ]
        if all(c is not None for c in channels):
            r, g, b = (int(c or 0) for c in channels)
            out["color"] = {"r": r, "g": g, "b": b}
    if config.get("effect_template"):
        effect = value(device, "effect_template", payload)
        if effect and effect in device.caps.effects:
            out["effect"] = effect
    return out


PLATFORM = Platform("light", "template", load, encode, decode)
