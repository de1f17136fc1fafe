"""Home Assistant's MQTT vacuum (the "state" schema): commands on one topic, a JSON state.

``command_topic`` takes ``payload_start`` ("start"), ``payload_pause``,
``payload_stop``, ``payload_return_to_base``, ``payload_locate`` and
``payload_clean_spot``; ``set_fan_speed_topic`` takes a speed from
``fan_speed_list``; ``state_topic`` carries ``{"state": "docked",
"battery_level": 61, "fan_speed": "max"}``. A command the config's
``supported_features`` leave out is not sent (``homeassistant/components/mqtt/vacuum.py``).
The legacy schema, removed from Home Assistant in 2024, is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, one_of
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported, number

STATES = ("cleaning", "docked", "paused", "idle", "returning", "error")
DEFAULT_FEATURES = ["start", "stop", "return_home", "status", "battery", "clean_spot"]
#: Action -> (payload key, default payload, the supported feature it needs).
COMMANDS = {
    "start": ("payload_start", "start", "start"),
    "pause": ("payload_pause", "pause", "pause"),
    "stop": ("payload_stop", "stop", "stop"),
    "return_to_base": ("payload_return_to_base", "return_to_base", "return_home"),
    "locate": ("payload_locate", "locate", "locate"),
    "clean_spot": ("payload_clean_spot", "clean_spot", "clean_spot"),
}


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("set_fan_speed_topic")
    options.topic("send_command_topic")
    options.topic("state_topic", subscribe=True)
    for key, default, _feature in COMMANDS.values():
        options.text(key, default)
    supported = options.strings("supported_features", DEFAULT_FEATURES)
    speeds = options.strings("fan_speed_list")
    options.qos()
    if not options.config.get("command_topic") and not options.config.get("state_topic"):
        raise BadConfig("it has neither a state topic nor a command topic")
    device.features = [
        f
        for f in (
            "start",
            "pause",
            "stop",
            "return_home",
            "locate",
            "clean_spot",
            "fan_speed",
            "battery",
        )
        if f in supported
    ]
    device.caps.fan_speeds = tuple(speeds) if "fan_speed" in supported else ()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action == "set_fan_speed":
        if "fan_speed" not in device.features or not config.get("set_fan_speed_topic"):
            raise Unsupported("no_fan_speed")
        speed = one_of(act.fan_speed, device.caps.fan_speeds, "fan_speed")
        return [command(device, "set_fan_speed_topic", speed)]
    spec = COMMANDS.get(act.action)
    if spec is None:
        raise Unsupported("cannot")
    key, _default, feature = spec
    if feature not in config.get("supported_features", DEFAULT_FEATURES):
        raise Unsupported(f"no_{feature}")
    if not config.get("command_topic"):
        raise Unsupported("no_command_topic")
    return [command(device, "command_topic", config[key])]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    try:
        body = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("a vacuum state must be a JSON object") from exc
    if not isinstance(body, dict):
        raise ValueError("a vacuum state must be a JSON object")
    out: dict[str, Any] = {}
    state = body.get("state")
    if state in STATES:
        out["state"] = state
    elif "state" in body and state is None:
        out["state"] = None
    battery = number(body.get("battery_level"))
    if battery is not None:
        out["battery"] = battery
    if isinstance(body.get("fan_speed"), str):
        out["fan_speed"] = body["fan_speed"]
    return out


def load_checked(options: Options, device: Device) -> None:
    if str(options.raw.get("schema", "state")).lower() == "legacy":
        raise BadConfig("the legacy vacuum schema is not supported (Home Assistant removed it)")
    load(options, device)


PLATFORM = Platform("vacuum", "state", load_checked, encode, decode)
