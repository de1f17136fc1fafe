"""Home Assistant's MQTT cover: open/close/stop, position and tilt, in the device's range.

A position percentage becomes ``round(percentage_to_ranged_value((closed + 1,
open), percent))``; the set-position template sees that as ``value`` and the
percentage as ``position`` (``homeassistant/components/mqtt/cover.py``).
Tilt works the same way over ``tilt_min``..``tilt_max``. A state of
``stopped`` means closed when the cover is at its closed position (or, without
a position topic, was closed or closing) and open otherwise, as Home Assistant
settles it; a position topic without a state topic decides open or closed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, value
from mnemolis.sources.mqtt.wire import (
    PAYLOAD_NONE,
    Act,
    Command,
    Unsupported,
    percentage_to_ranged,
    ranged_to_percentage,
)

STATES = ("open", "opening", "closed", "closing", "stopped")


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("state_topic", subscribe=True)
    options.topic("position_topic", subscribe=True)
    options.topic("set_position_topic")
    options.topic("tilt_command_topic")
    options.topic("tilt_status_topic", subscribe=True)
    config = options.config
    if config.get("set_position_topic") and not config.get("position_topic"):
        raise BadConfig("set_position_topic must be set together with position_topic")
    for key in (
        "value_template",
        "position_template",
        "set_position_template",
        "tilt_command_template",
        "tilt_status_template",
    ):
        options.template(key)
    options.text("payload_open", "OPEN", allow_none=True)
    options.text("payload_close", "CLOSE", allow_none=True)
    options.text("payload_stop", "STOP", allow_none=True)
    for state in STATES:
        options.text(f"state_{state}", state)
    options.integer("position_open", 100)
    options.integer("position_closed", 0)
    options.integer("tilt_min", 0)
    options.integer("tilt_max", 100)
    options.integer("tilt_opened_value", 100)
    options.integer("tilt_closed_value", 0)
    options.qos()
    if not any(
        config.get(k)
        for k in (
            "command_topic",
            "set_position_topic",
            "tilt_command_topic",
            "state_topic",
            "position_topic",
        )
    ):
        raise BadConfig("it has neither a state topic nor a command topic")
    features = []
    if config.get("set_position_topic"):
        features.append("position")
    if config.get("tilt_command_topic"):
        features.append("tilt")
    if config.get("command_topic") and config.get("payload_stop") is not None:
        features.append("stop")
    device.features = features


def _position_range(config: Mapping[str, Any]) -> tuple[int, int]:
    return config["position_closed"] + 1, config["position_open"]


def _tilt_range(config: Mapping[str, Any]) -> tuple[int, int]:
    return config["tilt_min"] + 1, config["tilt_max"]


def _variables(config: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    return {
        **more,
        "position_open": config["position_open"],
        "position_closed": config["position_closed"],
        "tilt_min": config["tilt_min"],
        "tilt_max": config["tilt_max"],
    }


def _set_position(device: Device, percent: float) -> Command:
    config = device.config
    if not config.get("set_position_topic"):
        raise Unsupported("no_position")
    ranged = round(percentage_to_ranged(_position_range(config), percent))
    return command(
        device,
        "set_position_topic",
        ranged,
        "set_position_template",
        _variables(config, position=_whole(percent)),
    )


def _whole(percent: float) -> float | int:
    return int(percent) if float(percent).is_integer() else percent


def _move(device: Device, payload_key: str, fallback: float) -> list[Command]:
    config = device.config
    word = config.get(payload_key)
    if config.get("command_topic") and word is not None:
        return [command(device, "command_topic", word)]
    if config.get("set_position_topic"):
        return [_set_position(device, fallback)]
    raise Unsupported("no_command_topic" if not config.get("command_topic") else "cannot")


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    action = act.action
    if action == "open":
        return _move(device, "payload_open", 100)
    if action == "close":
        return _move(device, "payload_close", 0)
    if action == "stop":
        if not config.get("command_topic") or config.get("payload_stop") is None:
            raise Unsupported("no_stop")
        return [command(device, "command_topic", config["payload_stop"])]
    if action == "set_position":
        if act.position is None:
            raise Unsupported("no_value")
        return [_set_position(device, act.position)]
    if action == "set_tilt":
        if not config.get("tilt_command_topic"):
            raise Unsupported("no_tilt")
        tilt = act.tilt if act.tilt is not None else act.position
        if tilt is None:
            raise Unsupported("no_value")
        ranged = round(percentage_to_ranged(_tilt_range(config), tilt))
        return [
            command(
                device,
                "tilt_command_topic",
                ranged,
                "tilt_command_template",
                _variables(config, tilt_position=_whole(tilt)),
            )
        ]
    raise Unsupported("cannot")


def _tilt(config: Mapping[str, Any], raw: Any) -> dict[str, Any]:
    try:
        level = round(float(raw))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"tilt {str(raw)[:40]!r} is not numeric") from None
    low, high = sorted((config["tilt_min"], config["tilt_max"]))
    if not low <= level <= high:
        raise ValueError(f"tilt {level} is out of range")
    return {"tilt": ranged_to_percentage(_tilt_range(config), level)}


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    variables = _variables(config)
    if role == "state":
        text = value(device, "value_template", payload)
        if not text:
            return {}
        if text == PAYLOAD_NONE:
            return {"state": None}
        for state in STATES:
            if text == config[f"state_{state}"]:
                return {"state": state}
        raise ValueError(f"{text[:40]!r} is not open, closed, opening, closing or stopped")
    if role == "tilt_status":
        text = value(device, "tilt_status_template", payload, variables)
        return _tilt(config, text) if text else {}
    text = value(device, "position_template", payload, variables)
    if not text:
        return {}
    out: dict[str, Any] = {}
    raw: Any = text
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        if "position" not in parsed:
            raise ValueError("the position template gave JSON without a position")
        if "tilt_position" in parsed:
            out.update(_tilt(config, parsed["tilt_position"]))
        raw = parsed["position"]
    try:
        percent = ranged_to_percentage(_position_range(config), float(raw))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"position {str(raw)[:40]!r} is not numeric") from None
    out["position"] = min(100, max(0, percent))
    if not config.get("state_topic"):
        out["state"] = "closed" if out["position"] == 0 else "open"
    return out


def settle(device: Device, previous: Mapping[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """Home Assistant's ``stopped``: open or closed, by position or by the last state."""
    if values.get("state") != "stopped":
        return values
    if device.config.get("position_topic"):
        position = values.get("position", previous.get("position"))
        closed = position == 0
    else:
        closed = previous.get("state") in ("closed", "closing")
    return {**values, "state": "closed" if closed else "open"}


PLATFORM = Platform("cover", "default", load, encode, decode, settle)
