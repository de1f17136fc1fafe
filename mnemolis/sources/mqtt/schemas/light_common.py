"""What the three light schemas share: Home Assistant's ``light.turn_on`` service step.

Before any MQTT light sees a request, Home Assistant's light service turns
``brightness_pct`` into ``brightness`` (0-255), a brightness of 0 into "off",
and a colour into the light's own colour mode (`colors.convert`); it drops
what the light cannot do. `prepare` is that step; each schema then publishes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import colors
from mnemolis.sources.mqtt.schemas.base import Options
from mnemolis.sources.mqtt.wire import Act, Unsupported, brightness_to_percent, number

#: Colour modes that imply a brightness (Home Assistant's ``brightness_supported``).
DIMMABLE = frozenset({"brightness", "color_temp", "hs", "xy", "rgb", "rgbw", "rgbww", "white"})
COLORFUL = frozenset({"hs", "xy", "rgb", "rgbw", "rgbww"})


@dataclass(frozen=True)
class LightRequest:
    """``light.turn_on`` after Home Assistant's service step."""

    brightness: int | None = None  # 1..255
    color: colors.LightColor | None = None
    effect: str | None = None


def kelvin_range(options: Options) -> tuple[int, int]:
    """min/max kelvin from min/max mireds (or kelvin), Home Assistant's defaults otherwise."""
    min_kelvin = options.integer("min_kelvin", None, 1)
    max_kelvin = options.integer("max_kelvin", None, 1)
    max_mireds = options.integer("max_mireds", None, 1)
    min_mireds = options.integer("min_mireds", None, 1)
    low = min_kelvin or (colors.mired_to_kelvin(max_mireds) if max_mireds else None)
    high = max_kelvin or (colors.mired_to_kelvin(min_mireds) if min_mireds else None)
    return low or colors.DEFAULT_MIN_KELVIN, high or colors.DEFAULT_MAX_KELVIN


def describe(device: Device, modes: list[str], low: int, high: int, effects: list[str]) -> None:
    """Features and capabilities from the light's colour modes."""
    mode_set = set(modes)
    device.features = [
        feature
        for feature, present in (
            ("brightness", bool(mode_set & DIMMABLE)),
            ("color", bool(mode_set & COLORFUL)),
            ("color_temp", "color_temp" in mode_set or "rgbww" in mode_set),
            ("effect", bool(effects)),
            ("white", "white" in mode_set),
        )
        if present
    ]
    device.caps.color_modes = tuple(modes)
    device.caps.effects = tuple(effects)
    if "color_temp" in mode_set or "rgbww" in mode_set:
        device.caps.min_kelvin, device.caps.max_kelvin = low, high
    device.extra["color_modes"] = list(modes)


def prepare(device: Device, act: Act, state: Mapping[str, Any]) -> LightRequest | None:
    """The service step; None means "turn it off" (a brightness of 0)."""
    modes = tuple(device.caps.color_modes)
    brightness = None
    if act.brightness is not None:
        brightness = round(255 * act.brightness / 100)
        if brightness <= 0:
            return None
        if not set(modes) & DIMMABLE:
            raise Unsupported("no_brightness")
    color = None
    if act.action in ("set_color", "set_color_temp") or act.color or act.kelvin:
        rgb = act.color.rgb if act.color is not None else None
        kelvin = act.kelvin
        if (
            act.color is not None
            and act.color.kelvin is not None
            and ("color_temp" in modes or not set(modes) & COLORFUL)
        ):
            rgb, kelvin = None, act.color.kelvin  # a white, for a light that has whites
        low = device.caps.min_kelvin or colors.DEFAULT_MIN_KELVIN
        high = device.caps.max_kelvin or colors.DEFAULT_MAX_KELVIN
        if kelvin is not None:
            kelvin = max(low, min(high, kelvin))
        current = int(number(state.get("brightness_level")) or 255)
        color = colors.convert(rgb, kelvin, modes, low, high, brightness or current)
        if color is None:
            raise Unsupported("no_color_temp" if kelvin is not None else "no_color")
    effect = None
    if act.effect is not None:
        if not device.caps.effects:
            raise Unsupported("no_effect")
        effect = _effect(act.effect, device.caps.effects)
    return LightRequest(brightness, color, effect)


def _effect(wanted: str, effects: tuple[str, ...]) -> str:
    folded = " ".join(wanted.lower().replace("_", " ").split())
    for effect in effects:
        if " ".join(effect.lower().replace("_", " ").split()) == folded:
            return effect
    raise Unsupported("unknown_effect", ", ".join(effects[:12]))


def current_level(state: Mapping[str, Any]) -> int | None:
    """The light's brightness (1..255) when it is on, as Home Assistant's ``light.brightness``."""
    level = number(state.get("brightness_level"))
    return int(level) if level is not None and state.get("state") != "off" else None


def brightness_values(level: float) -> dict[str, Any]:
    """The canonical brightness readings from Home Assistant's 0..255 level."""
    return {"brightness": brightness_to_percent(level), "brightness_level": int(level)}
