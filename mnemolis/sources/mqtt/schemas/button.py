"""Home Assistant's MQTT button: ``payload_press`` through ``command_template``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, require
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a button")
    options.template("command_template")
    options.text("payload_press", "PRESS")
    options.qos()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    if act.action != "press":
        raise Unsupported("cannot")
    return [command(device, "command_topic", device.config["payload_press"], "command_template")]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    return {}


PLATFORM = Platform("button", "default", load, encode, decode)
