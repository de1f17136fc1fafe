"""The small types every wire schema shares: what to do, what to send, what was read.

`Act` is one action with its values, already decided (a percentage, a colour,
a preset from the device's own list); a schema turns it into `Command`s, the
exact topic, payload bytes, QoS and retain flag to publish. A state message
becomes a `Reading` of canonical values (see `mnemolis.sources.mqtt.codec`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

#: Home Assistant's "reset to unknown" payload.
PAYLOAD_NONE = "None"


class Unsupported(Exception):
    """The device cannot do this; ``reason`` names the reply to give."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Color:
    """A named colour from `sources/mqtt.yaml`, as RGB and, for whites, mireds."""

    name: str
    rgb: tuple[int, int, int]
    color_temp: int | None = None  # mireds

    @property
    def kelvin(self) -> int | None:
        return math.floor(1_000_000 / self.color_temp) if self.color_temp else None


@dataclass(frozen=True)
class Act:
    """One action and the values it carries; every value is in the device's terms."""

    action: str
    brightness: float | None = None  # percent, 0-100
    color: Color | None = None
    kelvin: int | None = None  # a colour temperature
    effect: str | None = None
    position: float | None = None  # percent open, cover and valve
    tilt: float | None = None  # percent, cover tilt
    percentage: float | None = None  # fan speed
    preset: str | None = None  # one of the device's preset modes
    oscillating: bool | None = None
    direction: str | None = None  # forward | reverse
    mode: str | None = None  # hvac / humidifier / water heater mode, as the device lists it
    fan_mode: str | None = None  # climate fan mode
    swing_mode: str | None = None
    temperature: float | None = None
    target_low: float | None = None
    target_high: float | None = None
    humidity: float | None = None
    fan_speed: str | None = None  # vacuum
    option: str | None = None  # select
    value: float | None = None  # number
    tone: str | None = None  # siren


@dataclass(frozen=True)
class Command:
    """One message to publish, byte for byte."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False
    role: str = "command"

    @property
    def text(self) -> str:
        return self.payload.decode("utf-8", errors="replace")


@dataclass
class Reading:
    """What one state message said, in canonical values."""

    values: dict[str, Any] = field(default_factory=dict)
    at: float | None = None  # the device's own timestamp (zigbee2mqtt last_seen), if any


def payload_bytes(value: Any) -> bytes:
    """What Home Assistant's publish does to a payload: bytes as they are, else ``str()``."""
    if isinstance(value, bytes):
        return value
    if value is None:
        return b""
    return str(value).encode("utf-8")


def ha_text(value: Any) -> str:
    """A config value read as Home Assistant's ``cv.string`` reads it (True -> "True")."""
    return str(value)


def json_dumps(value: Any) -> str:
    """Home Assistant's ``json_dumps`` (orjson): compact, UTF-8 as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def number(value: Any) -> float | None:
    """A finite number from a payload value, or None (booleans are not numbers)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return result if math.isfinite(result) else None


def format_number(value: float) -> str:
    """21.0 -> "21", 21.456 -> "21.5"."""
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


def format_reading(value: float) -> str:
    """A sensor's reading with the decimals it reports, as Home Assistant shows it
    (0.456 kWh is "0.456", never "0.5"), to at most three; 21.0 -> "21"."""
    rounded = round(value, 3)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


def timestamp(raw: Any) -> float | None:
    """zigbee2mqtt's last_seen: epoch milliseconds or ISO 8601."""
    value = number(raw)
    if value is not None:
        return value / 1000.0 if value > 1e11 else value
    if isinstance(raw, str):
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def states_in_range(low_high: tuple[float, float]) -> float:
    return low_high[1] - low_high[0] + 1


def ranged_to_percentage(low_high: tuple[float, float], value: float) -> int:
    """Home Assistant's ``ranged_value_to_percentage`` (integer division included)."""
    offset = low_high[0] - 1
    return int((value - offset) * 100 // states_in_range(low_high))


def percentage_to_ranged(low_high: tuple[float, float], percentage: float) -> float:
    """Home Assistant's ``percentage_to_ranged_value``."""
    return percentage * states_in_range(low_high) / 100 + low_high[0] - 1


def value_to_brightness(scale: float, value: float) -> int:
    """A device level on 1..scale -> Home Assistant's brightness 1..255, rounded up
    (``color_util.value_to_brightness``, which the JSON light uses)."""
    return min(255, max(1, math.ceil(value * 255 / scale)))


def level_to_brightness(scale: float, value: float) -> int:
    """The basic light's own conversion: ``min(round(value / scale * 255), 255)``."""
    return min(255, max(1, round(value / scale * 255)))


def brightness_to_value(scale: float, brightness: float) -> float:
    """Home Assistant's brightness 1..255 -> a device level on 1..scale."""
    return brightness * scale / 255


def percent_to_brightness(percent: float) -> int:
    """``brightness_pct`` -> brightness, as Home Assistant's light service does."""
    return round(255 * percent / 100)


def brightness_to_percent(brightness: float) -> int:
    return round(brightness * 100 / 255)
