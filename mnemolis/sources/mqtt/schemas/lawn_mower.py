"""Home Assistant's MQTT lawn mower: start mowing, pause, dock, and its activity.

Each command has its own topic and template; the template sees the action
name as ``value`` ("start_mowing", "pause", "dock"), as
``homeassistant/components/mqtt/lawn_mower.py`` renders it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, any_topic, command, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported

ACTIVITIES = ("mowing", "paused", "docked", "error", "returning")
COMMANDS = {"start": "start_mowing", "pause": "pause", "return_to_base": "dock"}


def load(options: Options, device: Device) -> None:
    for option in COMMANDS.values():
        options.topic(f"{option}_command_topic")
        options.template(f"{option}_command_template")
    options.topic("activity_state_topic", subscribe=True)
    options.template("activity_value_template")
    options.qos()
    any_topic(options)
    device.features = [
        f
        for f, option in (("start", "start_mowing"), ("pause", "pause"), ("return_home", "dock"))
        if options.config.get(f"{option}_command_topic")
    ]


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    option = COMMANDS.get(act.action)
    if option is None:
        raise Unsupported("cannot")
    if not device.config.get(f"{option}_command_topic"):
        raise Unsupported(f"no_{act.action}")
    return [command(device, f"{option}_command_topic", option, f"{option}_command_template")]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "activity_value_template", payload)
    if not text:
        return {}
    if text == PAYLOAD_NONE:
        return {"state": None}
    if text not in ACTIVITIES:
        raise ValueError(f"{text[:40]!r} is not a mower activity")
    return {"state": text}


PLATFORM = Platform("lawn_mower", "default", load, encode, decode)
