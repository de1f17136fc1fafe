"""Home Assistant's MQTT binary sensor: ``payload_on``/``off``, ``off_delay``, ``expire_after``.

``off_delay`` (seconds) turns an "on" back to "off" when nothing else came
(a motion sensor that only says "on"); the source schedules that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    options.topic("state_topic", subscribe=True)
    if "state_topic" not in options.config:
        raise BadConfig("a binary sensor needs a state_topic")
    options.template("value_template")
    options.text("payload_on", "ON")
    options.text("payload_off", "OFF")
    options.integer("off_delay", None, 0)
    options.integer("expire_after", None, 0)
    options.qos()
    device.payloads.setdefault("state_on", options.config["payload_on"])
    device.payloads.setdefault("state_off", options.config["payload_off"])


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    raise Unsupported("read_only")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == device.config["payload_on"]:
        return {"state": "on"}
    if text == device.config["payload_off"]:
        return {"state": "off"}
    if text == PAYLOAD_NONE:
        return {"state": None}
    raise ValueError(
        f"{text[:40]!r} is neither {device.config['payload_on']!r} nor "
        f"{device.config['payload_off']!r}"
    )


PLATFORM = Platform("binary_sensor", "default", load, encode, decode)
