"""Home Assistant's MQTT switch: ``payload_on``/``payload_off`` through ``command_template``.

State words default to the command words (``state_on`` = ``payload_on``),
as in ``homeassistant/components/mqtt/switch.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, on_off, require, value
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a switch")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("value_template")
    on = options.text("payload_on", "ON")
    off = options.text("payload_off", "OFF")
    options.text("state_on", on)
    options.text("state_off", off)
    options.qos()


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action in ("turn_on", "start"):
        return [command(device, "command_topic", config["payload_on"], "command_template")]
    if act.action in ("turn_off", "stop"):
        return [command(device, "command_topic", config["payload_off"], "command_template")]
    raise Unsupported("cannot")


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    return on_off(text, device.config["state_on"], device.config["state_off"])


PLATFORM = Platform("switch", "default", load, encode, decode)
