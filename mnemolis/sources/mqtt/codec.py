"""What a command becomes on the wire for one device, and what a state message means.

Two wire styles cover YAML devices, Home Assistant discovery and zigbee2mqtt:

* ``schema: json``: one JSON object per message, as zigbee2mqtt and Home
  Assistant's JSON lights speak: ``{"state": "ON", "brightness": 254}`` on the
  state topic, ``{"state": "OFF"}`` on the command topic. Property names
  default to the ones below and are renamed with ``payloads.keys``.
* ``schema: default``: Home Assistant's plain style: one topic per property
  (``command``, ``brightness_command``, ``temperature_state`` ...), plain
  payloads such as ``ON`` / ``LOCK`` / ``21.5``, optionally picked out of JSON
  by a value template.

State is decoded into canonical values that every other module uses:
``state`` (on, off, locked, unlocked, open, closed, opening, cleaning, ...),
``brightness`` (percent), ``color``, ``position`` (percent), ``mode``,
``target_temperature``, ``current_temperature`` and ``value`` (sensors).
"""

from __future__ import annotations

import colorsys
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemolis.devices import TYPE_ACTIONS, Device
from mnemolis.sources.mqtt import templates as tpl

#: Topic roles a device may have; every role not ending in "command" is subscribed.
COMMAND_ROLES = (
    "command",
    "brightness_command",
    "rgb_command",
    "xy_command",
    "hs_command",
    "color_temp_command",
    "position_command",
    "temperature_command",
    "mode_command",
    "power_command",
)
STATE_ROLES = (
    "state",
    "brightness_state",
    "rgb_state",
    "position_state",
    "temperature_state",
    "current_temperature",
    "mode_state",
)

#: JSON property names, canonical name -> key; ``payloads.keys`` renames them.
JSON_KEYS = {
    "state": "state",
    "brightness": "brightness",
    "color": "color",
    "color_temp": "color_temp",
    "position": "position",
    "target_temperature": "temperature",
    "current_temperature": "current_temperature",
    "mode": "mode",
    "command": "command",
    "lock_state": "lock_state",
    "last_seen": "last_seen",
}

ON_OFF_TYPES = ("light", "switch", "fan", "binary_sensor")

#: Canonical state -> (payload key, default payload, other spellings accepted).
STATE_PAYLOADS: dict[str, tuple[tuple[str, str, str, tuple[str, ...]], ...]] = {
    "on_off": (
        ("on", "state_on", "ON", ("on", "true", "1")),
        ("off", "state_off", "OFF", ("off", "false", "0")),
    ),
    "lock": (
        ("locked", "state_locked", "LOCKED", ("locked", "lock")),
        ("unlocked", "state_unlocked", "UNLOCKED", ("unlocked", "unlock")),
        ("locking", "state_locking", "LOCKING", ("locking",)),
        ("unlocking", "state_unlocking", "UNLOCKING", ("unlocking",)),
        ("jammed", "state_jammed", "JAMMED", ("jammed", "not_fully_locked")),
        ("open", "state_open", "OPEN", ("open", "opened")),
    ),
    "cover": (
        ("open", "state_open", "open", ("open", "opened")),
        ("closed", "state_closed", "closed", ("closed", "close")),
        ("opening", "state_opening", "opening", ("opening",)),
        ("closing", "state_closing", "closing", ("closing",)),
        ("stopped", "state_stopped", "stopped", ("stopped", "stop")),
    ),
    "vacuum": (
        ("cleaning", "state_cleaning", "cleaning", ("cleaning", "running", "on")),
        ("docked", "state_docked", "docked", ("docked", "charging")),
        ("returning", "state_returning", "returning", ("returning", "return_to_base")),
        ("paused", "state_paused", "paused", ("paused",)),
        ("idle", "state_idle", "idle", ("idle", "off")),
        ("error", "state_error", "error", ("error",)),
    ),
}

#: Action -> (payload key, default payload) for plain command words.
COMMAND_WORDS = {
    "turn_on": ("on", "ON"),
    "turn_off": ("off", "OFF"),
    "lock": ("lock", "LOCK"),
    "unlock": ("unlock", "UNLOCK"),
    "open": ("open", "OPEN"),
    "close": ("close", "CLOSE"),
    "stop": ("stop", "STOP"),
    "start": ("start", "start"),
    "return_to_base": ("return_to_base", "return_to_base"),
    "vacuum_stop": ("stop", "stop"),
}


class Unsupported(Exception):
    """The device cannot do this; ``reason`` names the reply to give."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Color:
    """A named colour from `sources/mqtt.yaml`, as RGB and, for whites, mireds."""

    name: str
    rgb: tuple[int, int, int]
    color_temp: int | None = None


@dataclass(frozen=True)
class Command:
    """One message to publish."""

    topic: str
    payload: str
    role: str = "command"


@dataclass
class Reading:
    """What one state message said, in canonical values."""

    values: dict[str, Any] = field(default_factory=dict)
    at: float | None = None  # the device's own timestamp (zigbee2mqtt last_seen), if any


# --------------------------------------------------------------------------- helpers


def _kind(device: Device) -> str:
    if device.type in ON_OFF_TYPES:
        return "on_off"
    return device.type


def _word(device: Device, key: str, default: Any) -> Any:
    value = device.payloads.get(key, default)
    return default if value is None else value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def format_number(value: float) -> str:
    """21.0 -> "21", 21.456 -> "21.5"."""
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


def _json_number(value: float) -> int | float:
    rounded = round(value, 1)
    return int(rounded) if rounded == int(rounded) else rounded


def json_keys(device: Device) -> dict[str, str]:
    keys = dict(JSON_KEYS)
    if device.type == "sensor":
        keys["value"] = device.device_class or "value"
    custom = device.payloads.get("keys")
    if isinstance(custom, dict):
        keys.update({str(k): str(v) for k, v in custom.items()})
    return keys


def match_state(device: Device, raw: Any) -> str | None:
    """A state payload ("ON", "LOCK", true, "closed") -> canonical state, or None."""
    table = STATE_PAYLOADS.get(_kind(device))
    if table is None or raw is None or isinstance(raw, dict | list):
        return None
    text = _text(raw).strip().lower()
    for canonical, key, default, _ in table:
        fallback = default
        if key in ("state_on", "state_off"):  # a switch's state words default to its commands
            fallback = _word(device, key.removeprefix("state_"), default)
        if text == _text(_word(device, key, fallback)).lower():
            return canonical
    for canonical, _, _, spellings in table:
        if text in spellings:
            return canonical
    return None


def _brightness_scale(device: Device) -> float:
    scale = _number(device.payloads.get("brightness_scale", 255))
    return scale if scale and scale > 0 else 255.0


def _position_range(device: Device) -> tuple[float, float]:
    closed = _number(device.payloads.get("position_closed", 0))
    opened = _number(device.payloads.get("position_open", 100))
    closed = 0.0 if closed is None else closed
    opened = 100.0 if opened is None else opened
    return (closed, opened) if opened != closed else (0.0, 100.0)


def _percent_position(device: Device, raw: float) -> float:
    closed, opened = _position_range(device)
    return max(0.0, min(100.0, (raw - closed) * 100.0 / (opened - closed)))


def _timestamp(raw: Any) -> float | None:
    """zigbee2mqtt's last_seen: epoch milliseconds or ISO 8601."""
    number = _number(raw)
    if number is not None:
        return number / 1000.0 if number > 1e11 else number
    if isinstance(raw, str):
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _rgb_text(raw: Any) -> tuple[int, int, int] | None:
    parts = str(raw).split(",")
    if len(parts) != 3:
        return None
    numbers = [_number(p) for p in parts]
    if any(n is None or not 0 <= n <= 255 for n in numbers):
        return None
    r, g, b = (int(n or 0) for n in numbers)
    return (r, g, b)


def rgb_to_xy(rgb: tuple[int, int, int]) -> tuple[float, float]:
    """sRGB -> CIE xy, the colour space Zigbee bulbs speak."""

    def linear(c: float) -> float:
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92

    r, g, b = (linear(c / 255.0) for c in rgb)
    x = r * 0.4124 + g * 0.3576 + b * 0.1805
    y = r * 0.2126 + g * 0.7152 + b * 0.0722
    z = r * 0.0193 + g * 0.1192 + b * 0.9505
    total = x + y + z
    if total == 0:
        return (0.3127, 0.329)  # D65 white point
    return (round(x / total, 4), round(y / total, 4))


def rgb_to_hs(rgb: tuple[int, int, int]) -> tuple[float, float]:
    h, s, _ = colorsys.rgb_to_hsv(*(c / 255.0 for c in rgb))
    return (round(h * 360.0, 1), round(s * 100.0, 1))


# --------------------------------------------------------------------------- decoding


def _decode_json_object(device: Device, obj: dict[str, Any]) -> Reading:
    keys = json_keys(device)
    values: dict[str, Any] = {}
    reading = Reading(values, _timestamp(obj.get(keys["last_seen"])))
    if device.type == "sensor":
        if keys["value"] in obj:
            raw = obj[keys["value"]]
            number = _number(raw)
            values["value"] = number if number is not None else raw
        return reading
    if device.type == "lock" and keys["lock_state"] in obj:
        state = match_state(device, obj[keys["lock_state"]])
        if state is not None:
            values["state"] = state
    if "state" not in values and keys["state"] in obj:
        state = match_state(device, obj[keys["state"]])
        if state is not None:
            values["state"] = state
    if device.type == "light":
        level = _number(obj.get(keys["brightness"]))
        if level is not None:
            values["brightness"] = round(level * 100.0 / _brightness_scale(device))
        if isinstance(obj.get(keys["color"]), dict):
            values["color"] = dict(obj[keys["color"]])
        mireds = _number(obj.get(keys["color_temp"]))
        if mireds is not None:
            values["color_temp"] = int(mireds)
    elif device.type == "cover":
        position = _number(obj.get(keys["position"]))
        if position is not None:
            values["position"] = round(_percent_position(device, position))
            if "state" not in values:
                values["state"] = "closed" if values["position"] <= 0 else "open"
    elif device.type == "climate":
        target = _number(obj.get(keys["target_temperature"]))
        current = _number(obj.get(keys["current_temperature"]))
        if target is not None:
            values["target_temperature"] = target
        if current is not None:
            values["current_temperature"] = current
        mode = obj.get(keys["mode"])
        if isinstance(mode, str) and mode:
            values["mode"] = mode.lower()
            values["state"] = "off" if mode.lower() == "off" else "on"
        elif keys["state"] in obj:
            on_off = _text(obj[keys["state"]]).lower()
            if on_off in ("on", "off"):
                values["state"] = on_off
    return reading


def _decode_plain(device: Device, role: str, raw: Any) -> dict[str, Any]:
    if role == "state":
        if isinstance(raw, dict):
            return _decode_json_object(device, raw).values
        if device.type == "sensor":
            number = _number(raw)
            return {"value": number if number is not None else _text(raw).strip()}
        state = match_state(device, raw)
        return {"state": state} if state is not None else {}
    if role == "rgb_state":
        rgb = _rgb_text(raw)
        return {"color": {"r": rgb[0], "g": rgb[1], "b": rgb[2]}} if rgb else {}
    if role == "mode_state":
        mode = _text(raw).strip().lower()
        return {"mode": mode, "state": "off" if mode == "off" else "on"} if mode else {}
    number = _number(raw)
    if number is None:
        return {}
    if role == "brightness_state":
        return {"brightness": round(number * 100.0 / _brightness_scale(device))}
    if role == "position_state":
        position = round(_percent_position(device, number))
        return {"position": position}
    if role == "temperature_state":
        return {"target_temperature": number}
    if role == "current_temperature":
        return {"current_temperature": number}
    return {}


def decode(device: Device, role: str, payload: bytes) -> Reading:
    """A state message -> canonical values. Raises ValueError when it means nothing."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("the payload is not UTF-8") from exc
    path = (device.extra.get("value_templates") or {}).get(role)
    if path is not None:
        raw: Any = tpl.extract(text, tuple(path))
    else:
        raw = text
        stripped = text.strip()
        if stripped[:1] in ("{", "[") or device.schema == "json":
            try:
                raw = json.loads(stripped)
            except json.JSONDecodeError:
                if device.schema == "json" and device.type != "sensor":
                    raise ValueError("the payload is not JSON") from None
    if device.schema == "json" and role == "state" and isinstance(raw, dict):
        reading = _decode_json_object(device, raw)
    elif isinstance(raw, list):
        raise ValueError("a JSON list is not a state")
    else:
        reading = Reading(_decode_plain(device, role, raw))
    if not reading.values:
        raise ValueError(f"nothing in it describes a {device.type}")
    return reading


def availability_specs(device: Device) -> list[dict[str, Any]]:
    """Each availability topic with its payloads: [{topic, available, not_available, path}]."""
    specs = device.extra.get("availability")
    if isinstance(specs, list) and specs:
        return [s for s in specs if isinstance(s, dict) and isinstance(s.get("topic"), str)]
    topic = device.topics.get("availability")
    if not topic:
        return []
    return [
        {
            "topic": topic,
            "available": _word(device, "available", "online"),
            "not_available": _word(device, "not_available", "offline"),
        }
    ]


def decode_availability(spec: dict[str, Any], payload: bytes) -> bool:
    """ "online" / {"state": "offline"} -> True / False; ValueError otherwise."""
    text = payload.decode("utf-8", errors="replace").strip()
    raw: Any = text
    path = spec.get("path")
    if path:
        raw = tpl.extract(text, tuple(path))
    elif text.startswith("{"):
        raw = tpl.extract(text, ("state",))
    word = _text(raw).strip().lower()
    if word == _text(spec.get("available", "online")).lower():
        return True
    if word == _text(spec.get("not_available", "offline")).lower():
        return False
    raise ValueError(f"{word[:40]!r} is neither available nor not available")


# --------------------------------------------------------------------------- encoding


def _topic(device: Device, role: str) -> str:
    topic = device.topics.get(role)
    if not topic:
        raise Unsupported("no_command_topic" if role == "command" else f"no_{role}")
    return topic


def _plain(device: Device, role: str, value: Any) -> Command:
    text = _text(value)
    templates = device.extra.get("command_templates") or {}
    if role in templates:
        text = tpl.render_command(str(templates[role]), text)
    return Command(_topic(device, role), text, role)


def _json(device: Device, body: dict[str, Any]) -> Command:
    return Command(_topic(device, "command"), json.dumps(body, separators=(", ", ": ")))


def _color_body(device: Device, color: Color) -> dict[str, Any]:
    keys = json_keys(device)
    modes = [str(m) for m in device.extra.get("color_modes") or []]
    if color.color_temp is not None and ("color_temp" in modes or "color_temp" in device.features):
        return {keys["color_temp"]: color.color_temp}
    r, g, b = color.rgb
    if not modes or {"rgb", "rgbw", "rgbww"} & set(modes):
        return {keys["color"]: {"r": r, "g": g, "b": b}}
    if "xy" in modes:
        x, y = rgb_to_xy(color.rgb)
        return {keys["color"]: {"x": x, "y": y}}
    if "hs" in modes:
        h, s = rgb_to_hs(color.rgb)
        return {keys["color"]: {"h": h, "s": s}}
    raise Unsupported("no_color")


def _encode_json(device: Device, action: str, value: Any) -> list[Command]:
    keys = json_keys(device)
    on = _word(device, "on", "ON")
    off = _word(device, "off", "OFF")
    if device.type == "climate":
        if action == "set_temperature":
            return [_json(device, {keys["target_temperature"]: _json_number(float(value))})]
        if action in ("turn_on", "turn_off"):
            return [_json(device, {keys["mode"]: climate_mode(device, action == "turn_on")})]
    if device.type == "vacuum":
        word_key, default = COMMAND_WORDS["vacuum_stop" if action == "stop" else action]
        return [_json(device, {keys["command"]: _word(device, word_key, default)})]
    if action in ("turn_on", "start"):
        return [_json(device, {keys["state"]: on})]
    if action in ("turn_off", "stop") and device.type != "cover":
        return [_json(device, {keys["state"]: off})]
    if action == "set_brightness":
        percent = float(value)
        if percent <= 0:
            return [_json(device, {keys["state"]: off})]
        level = max(1, round(percent * _brightness_scale(device) / 100.0))
        return [_json(device, {keys["state"]: on, keys["brightness"]: level})]
    if action == "set_color":
        return [_json(device, {keys["state"]: on, **_color_body(device, value)})]
    word_key, default = COMMAND_WORDS[action]
    return [_json(device, {keys["state"]: _word(device, word_key, default)})]


def climate_mode(device: Device, on: bool) -> str:
    """The mode that means "on" for this thermostat (heat, unless it has no heat)."""
    if not on:
        return str(_word(device, "mode_off", "off"))
    configured = device.payloads.get("mode_on")
    if configured:
        return str(configured)
    modes = [str(m) for m in device.extra.get("modes") or []]
    if not modes or "heat" in modes:
        return "heat"
    return next((m for m in modes if m != "off"), "heat")


def _encode_plain(device: Device, action: str, value: Any) -> list[Command]:
    if device.type == "climate":
        if action == "set_temperature":
            return [_plain(device, "temperature_command", format_number(float(value)))]
        on = action == "turn_on"
        if "mode_command" in device.topics:
            return [_plain(device, "mode_command", climate_mode(device, on))]
        word_key, default = COMMAND_WORDS[action]
        return [_plain(device, "power_command", _word(device, word_key, default))]
    if action == "set_brightness":
        percent = float(value)
        if percent <= 0:
            return [_plain(device, "command", _word(device, "off", "OFF"))]
        level = max(1, round(percent * _brightness_scale(device) / 100.0))
        return [_plain(device, "brightness_command", level)]
    if action == "set_color":
        color: Color = value
        topics = device.topics
        if color.color_temp is not None and "color_temp_command" in topics:
            return [_plain(device, "color_temp_command", color.color_temp)]
        if "rgb_command" in topics:
            return [_plain(device, "rgb_command", ",".join(str(c) for c in color.rgb))]
        if "xy_command" in topics:
            x, y = rgb_to_xy(color.rgb)
            return [_plain(device, "xy_command", f"{x},{y}")]
        if "hs_command" in topics:
            h, s = rgb_to_hs(color.rgb)
            return [_plain(device, "hs_command", f"{h},{s}")]
        raise Unsupported("no_color")
    if device.type == "vacuum":
        word_key, default = COMMAND_WORDS["vacuum_stop" if action == "stop" else action]
        return [_plain(device, "command", _word(device, word_key, default))]
    if device.type in ("switch", "fan", "light"):
        action = {"start": "turn_on", "stop": "turn_off"}.get(action, action)
    word_key, default = COMMAND_WORDS[action]
    return [_plain(device, "command", _word(device, word_key, default))]


#: Action variants that count as their base action for `TYPE_ACTIONS` and `allow`.
BASE_ACTIONS = {"return_to_base": "stop"}

#: Features an action needs beyond the device type.
NEEDS_FEATURE = {"set_brightness": "brightness", "set_color": "color"}


def encode(device: Device, action: str, value: Any = None) -> list[Command]:
    """The messages that carry out ``action``; raises `Unsupported` when it can't be done."""
    if BASE_ACTIONS.get(action, action) not in TYPE_ACTIONS.get(device.type, ()):
        raise Unsupported("cannot")
    feature = NEEDS_FEATURE.get(action)
    if feature and device.type == "light" and feature not in device.features:
        raise Unsupported(f"no_{feature}")
    if action == "stop" and device.type == "cover" and device.payloads.get("stop", "") is None:
        raise Unsupported("no_stop")
    if action not in COMMAND_WORDS and action not in (
        "set_brightness",
        "set_color",
        "set_temperature",
    ):
        raise Unsupported("cannot")
    if device.schema == "json":
        return _encode_json(device, action, value)
    return _encode_plain(device, action, value)


# --------------------------------------------------------------------------- confirmation


Expectation = Callable[[dict[str, Any]], bool]


def expectation(device: Device, action: str, value: Any = None) -> Expectation:
    """What the device's state echo must say for ``action`` to count as done."""
    kind = device.type

    def state_in(*states: str) -> Expectation:
        return lambda v: v.get("state") in states

    if kind == "climate":
        if action == "set_temperature":
            target = float(value)
            return lambda v: (
                v.get("target_temperature") is not None
                and abs(float(v["target_temperature"]) - target) < 0.26
            )
        if action == "turn_off":
            return lambda v: v.get("mode") == "off" or v.get("state") == "off"
        return lambda v: v.get("mode") not in (None, "off") or v.get("state") == "on"
    if kind == "vacuum":
        return {
            "start": state_in("cleaning"),
            "stop": state_in("idle", "paused", "docked", "returning", "stopped"),
            "return_to_base": state_in("returning", "docked"),
        }.get(action, state_in("cleaning"))
    if kind == "cover":
        return {
            "open": lambda v: (
                v.get("state") in ("open", "opening")
                or (v.get("state") is None and (v.get("position") or 0) > 0)
            ),
            "close": lambda v: (
                v.get("state") in ("closed", "closing")
                or (v.get("state") is None and v.get("position") == 0)
            ),
        }.get(action, lambda v: v.get("state") not in ("opening", "closing"))
    if kind == "lock":
        return state_in("locked") if action == "lock" else state_in("unlocked", "open")
    if action == "set_brightness":
        percent = float(value)
        if percent <= 0:
            return state_in("off")
        return lambda v: (
            v.get("brightness") is not None
            and abs(float(v["brightness"]) - percent) <= 1.5
            and v.get("state") != "off"
        )
    if action in ("turn_off", "stop"):
        return state_in("off")
    return state_in("on")


def state_matches(device: Device, values: dict[str, Any], wanted: str | None) -> bool | None:
    """Does the reading say ``wanted`` ("on", "locked", "open" ...)? None when it can't tell."""
    raw_state = values.get("state")
    state = raw_state if isinstance(raw_state, str) else None
    kind = device.type
    if kind == "binary_sensor":
        if state not in ("on", "off"):
            return None
        if wanted in (None, "on", "open"):
            return state == "on"
        return state == "off" if wanted in ("off", "closed") else None
    if wanted is None:
        return None
    if kind in ("light", "switch", "fan"):
        return state == wanted if wanted in ("on", "off") and state in ("on", "off") else None
    if kind == "climate":
        raw_mode = values.get("mode")
        mode = raw_mode if isinstance(raw_mode, str) else None
        if wanted not in ("on", "off") or (mode is None and state is None):
            return None
        is_off = mode == "off" if mode is not None else state == "off"
        return is_off if wanted == "off" else not is_off
    if kind == "vacuum":
        if wanted not in ("on", "off") or state is None:
            return None
        running = state in ("cleaning", "returning")
        return running if wanted == "on" else not running
    if kind == "lock":
        if wanted not in ("locked", "unlocked") or state not in ("locked", "unlocked", "open"):
            return None
        return state == "locked" if wanted == "locked" else state != "locked"
    if kind == "cover":
        position = values.get("position")
        if state in ("open", "opening", "closing", "closed"):
            opened = state != "closed"
        elif isinstance(position, int | float):
            opened = position > 0
        else:
            return None
        if wanted == "open":
            return opened
        return not opened if wanted == "closed" else None
    return None
