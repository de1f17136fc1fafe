"""Home Assistant's MQTT sensor: a value (``value_template``), its unit and device class.

A numeric text is read as a number; "None" means unknown. ``expire_after``
(seconds) makes a reading unknown once it is that old.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.devices import Device
from mnemolis.sources.mqtt.discovery.common import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported, number


def load(options: Options, device: Device) -> None:
    options.topic("state_topic", subscribe=True)
    if "state_topic" not in options.config:
        raise BadConfig("a sensor needs a state_topic")
    options.template("value_template")
    options.integer("expire_after", None, 0)
    options.integer("suggested_display_precision", None, 0)
    options.text("state_class", None, allow_none=True)
    options.qos()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    raise Unsupported("read_only")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    if text == "":
        return {}
    if text == PAYLOAD_NONE:
        return {"value": None}
    found = number(text)
    return {"value": found if found is not None else text}


PLATFORM = Platform("sensor", "default", load, encode, decode)
