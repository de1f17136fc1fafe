"""Home Assistant's MQTT valve: open/close (or a position, ``reports_position``), stop.

A valve that reports its position is opened by setting 100 % and closed by
setting 0 %, as Home Assistant's valve service does; its command template
sees the ranged value as ``value`` and the percentage as ``position``
(``homeassistant/components/mqtt/valve.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, value
from mnemolis.sources.mqtt.wire import (
    Act,
    Command,
    Unsupported,
    percentage_to_ranged,
    ranged_to_percentage,
)

NO_POSITION_KEYS = ("payload_open", "payload_close", "state_open", "state_closed")


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("value_template")
    reports = options.flag("reports_position", False)
    if reports and any(k in options.raw for k in NO_POSITION_KEYS):
        raise BadConfig(
            "payload_open, payload_close, state_open and state_closed are not "
            "allowed when the valve reports its position"
        )
    options.text("payload_open", "OPEN", allow_none=True)
    options.text("payload_close", "CLOSE", allow_none=True)
    options.text("payload_stop", None, allow_none=True)
    for state in ("open", "opening", "closed", "closing"):
        options.text(f"state_{state}", state)
    options.integer("position_open", 100)
    options.integer("position_closed", 0)
    options.qos()
    config = options.config
    if not config.get("command_topic") and not config.get("state_topic"):
        raise BadConfig("it has neither a state topic nor a command topic")
    device.features = [
        f
        for f, ok in (("position", reports), ("stop", config.get("payload_stop") is not None))
        if ok
    ]


def _range(config: Mapping[str, Any]) -> tuple[int, int]:
    return config["position_closed"] + 1, config["position_open"]


def _position(device: Device, percent: float) -> Command:
    config = device.config
    ranged = round(percentage_to_ranged(_range(config), percent))
    variables = {
        "position": int(percent) if float(percent).is_integer() else percent,
        "position_open": config["position_open"],
        "position_closed": config["position_closed"],
    }
    return command(device, "command_topic", ranged, "command_template", variables)


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    reports = config.get("reports_position")
    action = act.action
    if action in ("open", "close"):
        if reports:
            return [_position(device, 100 if action == "open" else 0)]
        word = config.get("payload_open" if action == "open" else "payload_close")
        if word is None:
            raise Unsupported("cannot")
        return [command(device, "command_topic", word, "command_template")]
    if action == "stop":
        if config.get("payload_stop") is None:
            raise Unsupported("no_stop")
        return [command(device, "command_topic", config["payload_stop"], "command_template")]
    if action == "set_position":
        if not reports:
            raise Unsupported("no_position")
        if act.position is None:
            raise Unsupported("no_value")
        return [_position(device, act.position)]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    variables = {
        "position_open": config["position_open"],
        "position_closed": config["position_closed"],
    }
    text = value(device, "value_template", payload, variables)
    if not text:
        return {}
    position_raw: Any = text
    state_raw: Any = text
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        key = "position" if config.get("reports_position") else "state"
        if key not in parsed:
            raise ValueError(f"the valve's JSON state has no {key}")
        position_raw, state_raw = parsed.get("position"), parsed.get("state")
    moving = {config["state_opening"]: "opening", config["state_closing"]: "closing"}
    if not config.get("reports_position"):
        states = {**moving, config["state_open"]: "open", config["state_closed"]: "closed"}
        if state_raw not in states:
            raise ValueError(f"{str(state_raw)[:40]!r} is not open, closed, opening or closing")
        return {"state": states[state_raw]}
    out: dict[str, Any] = {}
    if state_raw in moving:
        out["state"] = moving[state_raw]
    if "state" not in out or position_raw != state_raw:
        try:
            percent = ranged_to_percentage(_range(config), float(position_raw))
        except (TypeError, ValueError, OverflowError):
            if "state" not in out:
                raise ValueError(f"{str(position_raw)[:40]!r} is not a position") from None
        else:
            out["position"] = min(max(percent, 0), 100)
            if "state" not in out:
                out["state"] = "closed" if out["position"] == 0 else "open"
    return out


PLATFORM = Platform("valve", "default", load, encode, decode)
