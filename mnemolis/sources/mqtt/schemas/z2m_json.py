"""The zigbee2mqtt JSON style: one object per state, one per command, named properties.

``{"state": "ON", "brightness": 254}`` on ``zigbee2mqtt/<name>``, ``{"state":
"OFF"}`` or ``{"position": 40}`` on ``.../set``. YAML devices with ``schema:
json`` and the devices of zigbee2mqtt's ``bridge/devices`` speak it. Property
names default to `JSON_KEYS` and are renamed with ``payloads.keys`` (a
zigbee2mqtt expose's ``property``: ``state_left``, ``occupied_heating_setpoint``).
"""

from __future__ import annotations

import colorsys
import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import one_of
from mnemolis.sources.mqtt.wire import (
    Act,
    Command,
    Reading,
    Unsupported,
    number,
    timestamp,
)

#: JSON property names, canonical name -> key; ``payloads.keys`` renames them.
JSON_KEYS = {
    "state": "state",
    "brightness": "brightness",
    "color": "color",
    "color_temp": "color_temp",
    "effect": "effect",
    "position": "position",
    "tilt": "tilt",
    "target_temperature": "temperature",
    "current_temperature": "current_temperature",
    "mode": "mode",
    "preset": "preset",
    "fan_mode": "fan_mode",
    "command": "command",
    "lock_state": "lock_state",
    "last_seen": "last_seen",
    "humidity": "humidity",
    "battery": "battery",
    "oscillating": "oscillation",
}

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
STATE_PAYLOADS["valve"] = STATE_PAYLOADS["cover"]
ON_OFF_TYPES = ("light", "switch", "fan", "binary_sensor", "siren", "humidifier")

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
    "pause": ("pause", "pause"),
    "return_to_base": ("return_to_base", "return_to_base"),
    "locate": ("locate", "locate"),
    "clean_spot": ("clean_spot", "clean_spot"),
    "vacuum_stop": ("stop", "stop"),
}
DEFAULT_SPEEDS = ("low", "medium", "high")


def _kind(device: Device) -> str:
    return "on_off" if device.type in ON_OFF_TYPES else device.type


def _word(device: Device, key: str, default: Any) -> Any:
    found = device.payloads.get(key, default)
    return default if found is None else found


def _text(found: Any) -> str:
    if isinstance(found, bool):
        return "true" if found else "false"
    return str(found)


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


def _scale(device: Device) -> float:
    scale = number(device.payloads.get("brightness_scale", 255))
    return scale if scale and scale > 0 else 255.0


def _position_range(device: Device) -> tuple[float, float]:
    closed = number(device.payloads.get("position_closed", 0))
    opened = number(device.payloads.get("position_open", 100))
    closed = 0.0 if closed is None else closed
    opened = 100.0 if opened is None else opened
    return (closed, opened) if opened != closed else (0.0, 100.0)


def _percent_position(device: Device, raw: float) -> float:
    closed, opened = _position_range(device)
    return max(0.0, min(100.0, (raw - closed) * 100.0 / (opened - closed)))


def rgb_to_xy(rgb: tuple[int, int, int]) -> tuple[float, float]:
    """sRGB -> CIE xy (4 places), the colour space Zigbee bulbs speak."""

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


def decode(device: Device, role: str, payload: bytes) -> Reading:
    """A JSON state message -> canonical values (ValueError when it means nothing)."""
    text = payload.decode("utf-8")
    stripped = text.strip()
    try:
        raw: Any = json.loads(stripped)
    except (ValueError, RecursionError):
        if device.type != "sensor":
            raise ValueError("the payload is not JSON") from None
        raw = stripped
    if isinstance(raw, list):
        raise ValueError("a JSON list is not a state")
    if not isinstance(raw, dict):
        if device.type == "sensor":
            found = number(raw)
            return Reading({"value": found if found is not None else _text(raw).strip()})
        state = match_state(device, raw)
        return Reading({"state": state} if state else {})
    return _object(device, raw)


def _object(device: Device, obj: dict[str, Any]) -> Reading:
    keys = json_keys(device)
    values: dict[str, Any] = {}
    reading = Reading(values, timestamp(obj.get(keys["last_seen"])))
    battery = number(obj.get(keys["battery"]))
    if battery is not None and device.type != "sensor":
        values["battery"] = battery
    if device.type == "sensor":
        if keys["value"] in obj:
            found = number(obj[keys["value"]])
            values["value"] = found if found is not None else obj[keys["value"]]
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
        level = number(obj.get(keys["brightness"]))
        if level is not None:
            values["brightness"] = round(level * 100.0 / _scale(device))
            values["brightness_level"] = min(255, max(0, round(level * 255 / _scale(device))))
        if isinstance(obj.get(keys["color"]), dict):
            values["color"] = dict(obj[keys["color"]])
        mireds = number(obj.get(keys["color_temp"]))
        if mireds:
            values["color_temp"] = int(mireds)
            values["kelvin"] = int(1_000_000 // mireds)
        if isinstance(obj.get(keys["effect"]), str):
            values["effect"] = obj[keys["effect"]]
    elif device.type in ("cover", "valve"):
        position = number(obj.get(keys["position"]))
        if position is not None:
            values["position"] = round(_percent_position(device, position))
            if "state" not in values:
                values["state"] = "closed" if values["position"] <= 0 else "open"
        tilt = number(obj.get(keys["tilt"]))
        if tilt is not None:
            values["tilt"] = round(tilt)
    elif device.type == "fan":
        mode = obj.get(keys["fan_mode"])
        if isinstance(mode, str):
            values["preset"] = mode
        if isinstance(obj.get(keys["oscillating"]), bool):
            values["oscillating"] = obj[keys["oscillating"]]
    elif device.type in ("climate", "water_heater"):
        _climate(device, obj, keys, values)
    return reading


def _climate(
    device: Device, obj: dict[str, Any], keys: dict[str, str], values: dict[str, Any]
) -> None:
    target = number(obj.get(keys["target_temperature"]))
    current = number(obj.get(keys["current_temperature"]))
    if target is not None:
        values["target_temperature"] = target
    if current is not None:
        values["current_temperature"] = current
    mode = obj.get(keys["mode"])
    if isinstance(mode, str) and mode:
        values["mode"] = mode.lower()
        values["state"] = "off" if mode.lower() == "off" else "on"
        if mode.lower() != "off":
            values["last_mode"] = mode.lower()
    elif keys["state"] in obj:
        on_off = _text(obj[keys["state"]]).lower()
        if on_off in ("on", "off"):
            values["state"] = on_off
    for name in ("preset", "fan_mode"):
        if isinstance(obj.get(keys[name]), str):
            values[name] = obj[keys[name]]
    running = obj.get(device.payloads.get("action_key", "running_state"))
    if isinstance(running, str):
        values["action"] = {"heat": "heating", "cool": "cooling"}.get(running, running)


# --------------------------------------------------------------------------- encoding


def _body(device: Device, body: dict[str, Any]) -> Command:
    topic = device.topics.get("command")
    if not topic:
        raise Unsupported("no_command_topic")
    qos = int(device.payloads.get("qos", 1))
    return Command(topic, json.dumps(body, separators=(", ", ": ")).encode(), qos)


def _color_body(device: Device, act: Act) -> dict[str, Any]:
    keys = json_keys(device)
    modes = [str(m) for m in device.extra.get("color_modes") or []]
    can_white = "color_temp" in modes or "color_temp" in device.features
    kelvin = (
        act.kelvin
        if act.kelvin is not None
        else (act.color.kelvin if act.color is not None and can_white else None)
    )
    if kelvin is not None:
        if not can_white:
            raise Unsupported("no_color_temp")
        return {keys["color_temp"]: int(1_000_000 // kelvin)}
    if act.color is None or "color" not in device.features:
        raise Unsupported("no_color")
    r, g, b = act.color.rgb
    if not modes or {"rgb", "rgbw", "rgbww"} & set(modes):
        return {keys["color"]: {"r": r, "g": g, "b": b}}
    if "xy" in modes:
        x, y = rgb_to_xy(act.color.rgb)
        return {keys["color"]: {"x": x, "y": y}}
    if "hs" in modes:
        h, s = rgb_to_hs(act.color.rgb)
        return {keys["color"]: {"h": h, "s": s}}
    raise Unsupported("no_color")


def climate_mode(device: Device, on: bool, state: Mapping[str, Any] | None = None) -> str:
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


def _speed(device: Device, percentage: float) -> str:
    """A percentage as one of the fan's ordered speeds (Home Assistant's
    ``percentage_to_ordered_list_item``)."""
    speeds = [s for s in device.caps.preset_modes if s in DEFAULT_SPEEDS] or list(DEFAULT_SPEEDS)
    for position, speed in enumerate(speeds, start=1):
        if percentage <= position * 100 // len(speeds):
            return speed
    return speeds[-1]


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    keys = json_keys(device)
    action, kind = act.action, device.type
    on, off = _word(device, "on", "ON"), _word(device, "off", "OFF")
    if kind in ("climate", "water_heater"):
        if action == "set_temperature":
            if act.temperature is None:
                raise Unsupported("no_value")
            return [_body(device, {keys["target_temperature"]: _json_number(act.temperature)})]
        if action in ("turn_on", "turn_off"):
            return [_body(device, {keys["mode"]: climate_mode(device, action == "turn_on")})]
        if action == "set_mode":
            modes = tuple(device.extra.get("modes") or ()) or (act.mode or "",)
            return [_body(device, {keys["mode"]: one_of(act.mode, modes, "mode")})]
        if action in ("set_preset", "set_fan_mode"):
            name, choice = (
                ("preset", act.preset) if action == "set_preset" else ("fan_mode", act.fan_mode)
            )
            choices = device.caps.preset_modes if name == "preset" else device.caps.fan_modes
            return [_body(device, {keys[name]: one_of(choice, choices or (choice or "",), name)})]
    if kind == "vacuum":
        if action == "set_fan_speed":
            return [
                _body(
                    device,
                    {
                        "fan_speed": one_of(
                            act.fan_speed,
                            device.caps.fan_speeds or (act.fan_speed or "",),
                            "fan_speed",
                        )
                    },
                )
            ]
        word_key, default = COMMAND_WORDS["vacuum_stop" if action == "stop" else action]
        return [_body(device, {keys["command"]: _word(device, word_key, default)})]
    if kind == "fan" and action in ("set_percentage", "set_preset", "oscillate"):
        if action == "oscillate":
            return [_body(device, {keys["oscillating"]: act.oscillating is not False})]
        if action == "set_preset":
            choice = one_of(act.preset, device.caps.preset_modes, "preset")
            return [_body(device, {keys["fan_mode"]: choice})]
        if act.percentage is None:
            raise Unsupported("no_value")
        if not act.percentage:
            return [_body(device, {keys["state"]: off})]
        return [_body(device, {keys["fan_mode"]: _speed(device, act.percentage)})]
    if kind in ("cover", "valve") and action in ("set_position", "set_tilt"):
        if action == "set_tilt":
            if "tilt" not in device.features:
                raise Unsupported("no_tilt")
            return [
                _body(
                    device,
                    {keys["tilt"]: round(act.tilt if act.tilt is not None else act.position or 0)},
                )
            ]
        if "position" not in device.features and "position" not in keys.values():
            raise Unsupported("no_position")
        closed, opened = _position_range(device)
        raw = closed + (opened - closed) * (act.position or 0) / 100
        return [_body(device, {keys["position"]: round(raw)})]
    if kind == "light":
        return _light(device, act, keys, on, off)
    if action in ("turn_on", "start"):
        return [_body(device, {keys["state"]: on})]
    if action in ("turn_off", "stop") and kind not in ("cover", "valve"):
        return [_body(device, {keys["state"]: off})]
    if action == "stop" and device.payloads.get("stop", "") is None:
        raise Unsupported("no_stop")
    if action not in COMMAND_WORDS:
        raise Unsupported("cannot")
    word_key, default = COMMAND_WORDS[action]
    return [_body(device, {keys["state"]: _word(device, word_key, default)})]


def _light(device: Device, act: Act, keys: dict[str, str], on: Any, off: Any) -> list[Command]:
    action = act.action
    if action == "turn_off":
        return [_body(device, {keys["state"]: off})]
    body: dict[str, Any] = {keys["state"]: on}
    if act.brightness is not None:
        if "brightness" not in device.features:
            raise Unsupported("no_brightness")
        if act.brightness <= 0:
            return [_body(device, {keys["state"]: off})]
        body[keys["brightness"]] = max(1, round(act.brightness * _scale(device) / 100.0))
    if action in ("set_color", "set_color_temp") or act.color or act.kelvin:
        body.update(_color_body(device, act))
    if act.effect is not None:
        effects = device.caps.effects
        body[keys["effect"]] = one_of(act.effect, effects, "effect") if effects else act.effect
    return [_body(device, body)]


def _json_number(found: float) -> int | float:
    rounded = round(found, 1)
    return int(rounded) if rounded == int(rounded) else rounded
