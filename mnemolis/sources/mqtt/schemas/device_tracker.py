"""Home Assistant's MQTT device tracker: home, not home, or the name of a zone.

``payload_home``/``payload_not_home`` map to home/not_home; any other text is
the zone it is in; "None" resets it. Coordinates come as JSON attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, value
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    options.topic("state_topic", subscribe=True)
    options.template("value_template")
    options.text("payload_home", "home")
    options.text("payload_not_home", "not_home")
    options.text("payload_reset", "None")
    options.text("source_type", None)
    options.qos()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    raise Unsupported("read_only")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == config["payload_home"]:
        return {"state": "home"}
    if text == config["payload_not_home"]:
        return {"state": "not_home"}
    if text == config["payload_reset"]:
        return {"state": None}
    return {"state": text}


PLATFORM = Platform("device_tracker", "default", load, encode, decode)
