"""Home Assistant's MQTT scene: ``payload_on`` on ``command_topic``, nothing to read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, require
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a scene")
    options.text("payload_on", "ON")
    options.qos()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    if act.action not in ("activate", "turn_on"):
        raise Unsupported("cannot")
    return [command(device, "command_topic", device.config["payload_on"])]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    return {}


PLATFORM = Platform("scene", "default", load, encode, decode)
