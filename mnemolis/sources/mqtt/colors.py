"""Colour arithmetic exactly as Home Assistant does it (``homeassistant/util/color.py``).

A light is told a colour in the space it speaks; Home Assistant converts a
request between RGB, HS, XY, RGBW, RGBWW and colour temperature with these
formulas, and the bytes a device receives depend on every rounding. They are
written here independently, formula for formula, so a command matches what
Home Assistant would publish. `convert` is Home Assistant's light service
step that picks the light's own colour mode for a requested colour.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

RGB = tuple[int, int, int]

DEFAULT_MIN_KELVIN = 2000  # Home Assistant's defaults when a light names no range
DEFAULT_MAX_KELVIN = 6535


def kelvin_to_mired(kelvin: float) -> int:
    return math.floor(1_000_000 / kelvin)


def mired_to_kelvin(mired: float) -> int:
    return math.floor(1_000_000 / mired)


def rgb_to_hsv(r: float, g: float, b: float) -> tuple[float, float, float]:
    h, s, v = colorsys.rgb_to_hsv(r / 255.0, g / 255.0, b / 255.0)
    return round(h * 360, 3), round(s * 100, 3), round(v * 100, 3)


def rgb_to_hs(r: float, g: float, b: float) -> tuple[float, float]:
    h, s, _ = rgb_to_hsv(r, g, b)
    return h, s


def hsv_to_rgb(h: float, s: float, v: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(h / 360, s / 100, v / 100)
    return round(r * 255), round(g * 255), round(b * 255)


def hs_to_rgb(h: float, s: float) -> RGB:
    return hsv_to_rgb(h, s, 100)


def rgb_to_xy(r: int, g: int, b: int) -> tuple[float, float]:
    """Wide-gamut D65, rounded to 3 places, as Home Assistant's ``color_RGB_to_xy``."""
    if r + g + b == 0:
        return 0.0, 0.0

    def linear(c: float) -> float:
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92

    lr, lg, lb = linear(r / 255), linear(g / 255), linear(b / 255)
    x = lr * 0.664511 + lg * 0.154324 + lb * 0.162028
    y = lr * 0.283881 + lg * 0.668433 + lb * 0.047685
    z = lr * 0.000088 + lg * 0.072310 + lb * 0.986039
    total = x + y + z
    return round(x / total, 3), round(y / total, 3)


def xy_to_rgb(vx: float, vy: float, brightness: int = 255) -> RGB:
    if brightness == 0:
        return 0, 0, 0
    y = brightness / 255.0
    vy = vy or 1e-11
    x = (y / vy) * vx
    z = (y / vy) * (1 - vx - vy)
    r = x * 1.656492 - y * 0.354851 - z * 0.255038
    g = -x * 0.707196 + y * 1.655397 + z * 0.036152
    b = x * 0.051713 - y * 0.121364 + z * 1.011530

    def gamma(c: float) -> float:
        return 12.92 * c if c <= 0.0031308 else (1.055 * c ** (1 / 2.4)) - 0.055

    channels = [max(0.0, gamma(c)) for c in (r, g, b)]
    top = max(channels)
    if top > 1:
        channels = [c / top for c in channels]
    return int(channels[0] * 255), int(channels[1] * 255), int(channels[2] * 255)


def hs_to_xy(h: float, s: float) -> tuple[float, float]:
    return rgb_to_xy(*hs_to_rgb(h, s))


def xy_to_hs(x: float, y: float) -> tuple[float, float]:
    return rgb_to_hs(*xy_to_rgb(x, y))


def _match_max_scale(inputs: tuple[float, ...], outputs: tuple[float, ...]) -> tuple[int, ...]:
    top_in, top_out = max(inputs), max(outputs)
    factor = top_in / top_out if top_out != 0 else 0.0
    return tuple(round(c * factor) for c in outputs)


def rgb_to_rgbw(r: int, g: int, b: int) -> tuple[int, int, int, int]:
    w = min(r, g, b)
    out = _match_max_scale((r, g, b), (r - w, g - w, b - w, w))
    return out[0], out[1], out[2], out[3]


def rgbw_to_rgb(r: int, g: int, b: int, w: int) -> RGB:
    out = _match_max_scale((r, g, b, w), (r + w, g + w, b + w))
    return out[0], out[1], out[2]


def _red(t: float) -> float:
    return 255.0 if t <= 66 else min(255.0, max(0.0, 329.698727446 * (t - 60) ** -0.1332047592))


def _green(t: float) -> float:
    if t <= 66:
        value = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        value = 288.1221695283 * (t - 60) ** -0.0755148492
    return min(255.0, max(0.0, value))


def _blue(t: float) -> float:
    if t >= 66:
        return 255.0
    if t <= 19:
        return 0.0
    return min(255.0, max(0.0, 138.5177312231 * math.log(t - 10) - 305.0447927307))


def kelvin_to_rgb(kelvin: float) -> tuple[float, float, float]:
    """Tanner Helland's approximation, as Home Assistant's ``color_temperature_to_rgb``."""
    t = min(40000.0, max(1000.0, kelvin)) / 100.0
    return _red(t), _green(t), _blue(t)


def kelvin_to_hs(kelvin: float) -> tuple[float, float]:
    return rgb_to_hs(*kelvin_to_rgb(kelvin))


def rgb_to_rgbww(r: int, g: int, b: int, min_kelvin: int, max_kelvin: int) -> tuple[int, ...]:
    max_mireds, min_mireds = kelvin_to_mired(min_kelvin), kelvin_to_mired(max_kelvin)
    midpoint = mired_to_kelvin(min_mireds + (max_mireds - min_mireds) / 2)
    wr, wg, wb = kelvin_to_rgb(midpoint)
    white = min(r / wr if wr else 0, g / wg if wg else 0, b / wb if wb else 0)
    rest = (r - wr * white, g - wg * white, b - wb * white)
    channels = (*(round(c) for c in rest), round(white * 255), round(white * 255))
    return _match_max_scale((r, g, b), tuple(float(c) for c in channels))


def rgbww_to_rgb(r: int, g: int, b: int, cw: int, ww: int, min_kelvin: int, max_kelvin: int) -> RGB:
    max_mireds, min_mireds = kelvin_to_mired(min_kelvin), kelvin_to_mired(max_kelvin)
    ratio = ww / (cw + ww) if cw + ww else 0.5
    mired = min_mireds + ratio * (max_mireds - min_mireds)
    wr, wg, wb = kelvin_to_rgb(mired_to_kelvin(mired) if mired else 0)
    level = max(cw, ww) / 255
    out = _match_max_scale((r, g, b, cw, ww), (r + wr * level, g + wg * level, b + wb * level))
    return out[0], out[1], out[2]


def kelvin_to_rgbww(
    kelvin: int, brightness: int, min_kelvin: int, max_kelvin: int
) -> tuple[int, int, int, int, int]:
    max_mireds, min_mireds = kelvin_to_mired(min_kelvin), kelvin_to_mired(max_kelvin)
    mired = kelvin_to_mired(kelvin)
    cold = ((max_mireds - mired) / (max_mireds - min_mireds)) * brightness
    return 0, 0, 0, round(cold), round(brightness - cold)


def xy_to_kelvin(x: float, y: float) -> int:
    """McCamy's approximation, as Home Assistant's ``color_xy_to_temperature``."""
    n = (x - 0.3320) / (0.1858 - y)
    return int(437 * n**3 + 3601 * n**2 + 6861 * n + 5517)


@dataclass(frozen=True)
class LightColor:
    """A requested colour, in the one space the light will be told."""

    mode: str  # hs | rgb | rgbw | rgbww | xy | color_temp
    value: tuple[float, ...]  # the colour in that space; kelvin for color_temp


COLOR_SPACES = ("hs", "rgb", "rgbw", "rgbww", "xy")


def convert(
    rgb: RGB | None,
    kelvin: int | None,
    modes: tuple[str, ...],
    min_kelvin: int = DEFAULT_MIN_KELVIN,
    max_kelvin: int = DEFAULT_MAX_KELVIN,
    brightness: int = 255,
) -> LightColor | None:
    """Home Assistant's ``light.turn_on`` step: a colour (as RGB) or a colour
    temperature, in the light's own mode; None when the light can do neither."""
    if kelvin is not None:
        if "color_temp" in modes:
            return LightColor("color_temp", (kelvin,))
        if "rgbww" in modes:
            return LightColor("rgbww", kelvin_to_rgbww(kelvin, brightness, min_kelvin, max_kelvin))
        if not set(modes) & set(COLOR_SPACES):
            return None
        hs = kelvin_to_hs(kelvin)
        if "hs" in modes:
            return LightColor("hs", hs)
        return _from_rgb(hs_to_rgb(*hs), modes, min_kelvin, max_kelvin)
    if rgb is None:
        return None
    return _from_rgb(rgb, modes, min_kelvin, max_kelvin)


def _from_rgb(
    rgb: RGB, modes: tuple[str, ...], min_kelvin: int, max_kelvin: int
) -> LightColor | None:
    """Home Assistant's order for an RGB request a light cannot take as RGB."""
    if "rgb" in modes:
        return LightColor("rgb", rgb)
    if "rgbw" in modes:
        return LightColor("rgbw", rgb_to_rgbw(*rgb))
    if "rgbww" in modes:
        return LightColor("rgbww", rgb_to_rgbww(*rgb, min_kelvin, max_kelvin))
    if "hs" in modes:
        return LightColor("hs", rgb_to_hs(*rgb))
    if "xy" in modes:
        return LightColor("xy", rgb_to_xy(*rgb))
    if "color_temp" in modes:
        return LightColor("color_temp", (xy_to_kelvin(*rgb_to_xy(*rgb)),))
    return None
