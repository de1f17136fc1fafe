"""What a command becomes on the wire, and what a state message means, for any device.

A device with a Home Assistant platform ``config`` (discovered, or written
in YAML with ``schema: default``) is driven by that platform's module in
`mnemolis.sources.mqtt.schemas`, exactly as Home Assistant drives it; one
without (``schema: json``, zigbee2mqtt's bridge) by `schemas.z2m_json`.

Actions and the slots they read (the contract with understanding's intents;
`mnemolis.sources.mqtt.values` turns slots into an `Act`):

========================  =============================================================
action                    slots
========================  =============================================================
turn_on                   light: brightness, color, color_temp, effect; fan: percentage,
                          preset; climate/water heater: mode; siren: tone
turn_off, start, stop,    (none); "send the vacuum home" (a stop with a word of
pause, return_to_base,    ``adjust.return_to_base``) is return_to_base
locate, clean_spot, lock,
unlock, open, close,
activate, press, arm_*,
disarm
set_brightness            brightness (0-100 %) or brightness_step (+/- %); without a number,
                          the words of ``adjust.brighter``/``dimmer`` step by ``brightness_step``
set_color                 color (a name of ``colors:``; a white with ``color_temp`` becomes a
                          colour temperature on lights that have one)
set_color_temp            color_temp (kelvin; a word of ``color_temps:`` such as warm, cool,
                          daylight; "warmer"/"cooler" step by ``adjust.color_temp_step``)
set_effect                effect (one of the light's effect list)
set_percentage            percentage (0-100) or percentage_step (+/-); a speed word of
                          ``fan_speeds:`` (low, medium, high) as percentage or preset
set_preset                preset (one of the device's preset modes)
oscillate                 oscillate (true/false) or state (on/off); true without either
set_direction             direction (forward/reverse)
set_position              position (0-100 %) or position_step (+/-)
set_tilt                  tilt (0-100 %), else position
set_temperature           temperature (in the device's unit) or temperature_step (+/-),
                          temperature_low + temperature_high for a range; mode (optional)
set_mode                  mode (hvac / humidifier / water heater mode, as the device lists it)
set_fan_mode              fan_mode (climate), else fan_speed
set_swing_mode            swing_mode
set_humidity              humidity (0-100 %) or humidity_step (+/-)
set_fan_speed             fan_speed (vacuum, one of its fan_speed_list)
select_option             option (one of the select's options)
set_value                 value (number) or value_step (+/-)
state                     state (optional: the state asked about, for yes/no questions)
toggle                    (none); never encoded: `commands` makes it the turn_off or
                          turn_on its last reported state calls for
========================  =============================================================

Readings (canonical values, what `MqttSource.state_of` holds): ``state``
(on, off, locked, unlocked, jammed, open, closed, opening, closing, stopped,
cleaning, docked, returning, paused, idle, error, mowing, home, not_home,
armed_home, disarmed ... or None for unknown), ``brightness`` (percent) and
``brightness_level`` (0-255), ``color`` ({r,g,b} | {x,y} | {h,s}),
``color_mode``, ``color_temp`` (mireds), ``kelvin``, ``effect``,
``position``, ``tilt`` (percent), ``percentage``, ``preset``,
``oscillating``, ``direction``, ``mode``, ``action`` (heating, idle ...),
``target_temperature`` (+ ``_low``/``_high``), ``current_temperature``,
``current_humidity``, ``target_humidity``, ``fan_mode``, ``swing_mode``,
``fan_speed``, ``battery``, ``option``, ``value`` (sensors and numbers),
``tone``, ``attributes`` (JSON attributes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mnemolis.core.devices import TYPE_ACTIONS, Device
from mnemolis.sources.mqtt import yaml_wire
from mnemolis.sources.mqtt.schemas import platform_named, z2m_json
from mnemolis.sources.mqtt.schemas.base import STATE_ROLES, Platform, value
from mnemolis.sources.mqtt.wire import Act, Command, Reading, Unsupported, number

__all__ = [
    "Act",
    "Command",
    "NothingRead",
    "Reading",
    "Unsupported",
    "decode",
    "encode",
    "expectation",
]


class NothingRead(ValueError):
    """A message that says nothing this part of the device reads: on a state topic
    several parts share, normal (Home Assistant ignores it as quietly)."""


#: The roles a zigbee2mqtt-style (or YAML json) device reads.
JSON_STATE_ROLES = ("state",)


def wired(device: Device) -> Device:
    """A YAML ``schema: default`` device gets its Home Assistant config on first use."""
    if device.schema == "default" and not device.config and device.topics and not device.refused:
        return yaml_wire.wired(device)
    return device


def platform_of(device: Device) -> Platform | None:
    if not device.config:
        return None
    return platform_named(device.type, str(device.config.get("schema") or device.schema))


def state_roles(device: Device) -> list[str]:
    """The roles of every topic a device is read from (availability aside)."""
    device = wired(device)
    if device.config:
        return [str(r) for r in device.extra.get(STATE_ROLES) or []]
    return [r for r in JSON_STATE_ROLES if r in device.topics]


def encode(device: Device, act: Act, state: Mapping[str, Any] | None = None) -> list[Command]:
    """The messages that carry out ``act``; raises `Unsupported` when it can't be done."""
    if act.action not in TYPE_ACTIONS.get(device.type, ()):
        raise Unsupported("cannot")  # never a payload for an action the type does not have
    device = wired(device)
    platform = platform_of(device)
    current = state or {}
    if platform is None:
        return z2m_json.encode(device, act, current)
    return platform.encode(device, act, current)


def decode(
    device: Device, role: str, payload: bytes, previous: Mapping[str, Any] | None = None
) -> Reading:
    """A state message -> canonical values, given the device's ``previous`` readings.
    Raises ValueError when it means nothing."""
    device = wired(device)
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("the payload is not UTF-8") from exc
    if role == "json_attributes":
        return Reading({"attributes": _attributes(device, payload)})
    platform = platform_of(device)
    if platform is None:
        reading = z2m_json.decode(device, role, payload)
    else:
        values = platform.decode(device, role, payload)
        if platform.settle is not None:
            values = platform.settle(device, previous or {}, values)
        reading = Reading(values)
    if not reading.values:
        raise NothingRead(f"nothing in it describes a {device.type}")
    return reading


def _attributes(device: Device, payload: bytes) -> dict[str, Any]:
    text = value(device, "json_attributes_template", payload)
    try:
        found = json.loads(text)
    except ValueError:
        raise ValueError("the JSON attributes are not JSON") from None
    if not isinstance(found, dict):
        raise ValueError("the JSON attributes must be an object")
    return found


# --------------------------------------------------------------------------- confirmation

Expectation = Callable[[dict[str, Any]], bool]


def _same(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and a.lower() == b.lower()


def _near(key: str, target: float | None, tolerance: float) -> Expectation:
    def check(v: dict[str, Any]) -> bool:
        found = number(v.get(key))
        return found is not None and target is not None and abs(found - target) <= tolerance

    return check


def _equal(key: str, wanted: Any) -> Expectation:
    return lambda v: _same(v.get(key), wanted) or (v.get(key) == wanted and wanted is not None)


def state_in(*states: str) -> Expectation:
    return lambda v: v.get("state") in states


def expectation(device: Device, act: Act) -> Expectation:
    """What the device's state echo must say for ``act`` to count as done."""
    kind, action = device.type, act.action
    specific = _specific(device, act)
    if specific is not None:
        return specific
    if kind in ("climate", "water_heater"):
        if action == "turn_off":
            return lambda v: v.get("mode") == "off" or v.get("state") == "off"
        return lambda v: v.get("mode") not in (None, "off") or v.get("state") == "on"
    if kind == "vacuum":
        return {
            "start": state_in("cleaning"),
            "stop": state_in("idle", "paused", "docked", "returning", "stopped"),
            "pause": state_in("paused", "idle"),
            "return_to_base": state_in("returning", "docked"),
        }.get(action, lambda v: True)
    if kind == "lawn_mower":
        return {
            "start": state_in("mowing"),
            "pause": state_in("paused"),
            "return_to_base": state_in("returning", "docked"),
        }.get(action, lambda v: True)
    if kind in ("cover", "valve"):
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
        return {"lock": state_in("locked"), "open": state_in("open", "opening", "unlocked")}.get(
            action, state_in("unlocked", "open")
        )
    if kind == "alarm_control_panel":
        target = "disarmed" if action == "disarm" else f"armed_{action.removeprefix('arm_')}"
        return state_in(target, "arming" if action != "disarm" else "disarming", "pending")
    if action in ("turn_off", "stop"):
        return state_in("off")
    return state_in("on")


def _specific(device: Device, act: Act) -> Expectation | None:
    """The expectations that depend on a value."""
    action = act.action
    if action == "set_brightness" and act.brightness is not None:
        if act.brightness <= 0:
            return state_in("off")
        near = _near("brightness", act.brightness, 1.5)
        return lambda v: near(v) and v.get("state") != "off"
    if action == "set_temperature" and act.temperature is not None:
        return _near("target_temperature", act.temperature, 0.26)
    if action == "set_temperature" and act.target_low is not None:
        return _near("target_temperature_low", act.target_low, 0.26)
    if action == "set_percentage" and act.percentage is not None:
        if act.percentage <= 0:
            return lambda v: v.get("state") == "off" or v.get("percentage") == 0
        step = 100 / (device.caps.speed_count or 100)
        near = _near("percentage", act.percentage, step + 0.5)
        return lambda v: near(v) or (v.get("preset") is not None and "percentage" not in v)
    if action in ("set_position", "set_tilt"):
        key = "tilt" if action == "set_tilt" else "position"
        target = act.tilt if action == "set_tilt" and act.tilt is not None else act.position
        near = _near(key, target, 2)
        return lambda v: near(v) or v.get("state") in ("opening", "closing")
    for name, wanted in (
        ("preset", act.preset),
        ("mode", act.mode),
        ("fan_mode", act.fan_mode),
        ("swing_mode", act.swing_mode),
        ("fan_speed", act.fan_speed),
        ("option", act.option),
        ("effect", act.effect),
    ):
        if wanted is not None and action in (
            "set_preset",
            "set_mode",
            "set_fan_mode",
            "set_swing_mode",
            "set_fan_speed",
            "select_option",
            "set_effect",
        ):
            return _equal(name, wanted)
    if action == "set_humidity" and act.humidity is not None:
        return _near("target_humidity", act.humidity, 1)
    if action == "set_value" and act.value is not None:
        return _near("value", act.value, (device.caps.step or 1) / 2)
    if action == "oscillate":
        return lambda v: v.get("oscillating") is (act.oscillating is not False)
    if action == "set_direction":
        return _equal("direction", act.direction)
    if action in ("set_color", "set_color_temp"):
        return lambda v: v.get("state") != "off"
    return None
