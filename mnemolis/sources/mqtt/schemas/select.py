"""Home Assistant's MQTT select: one option from ``options``, through ``command_template``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, one_of, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("value_template")
    choices = options.strings("options")
    if not choices:
        raise BadConfig("a select needs options")
    options.qos()
    if not options.config.get("command_topic") and not options.config.get("state_topic"):
        raise BadConfig("it has neither a state topic nor a command topic")
    device.caps.options = tuple(choices)


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    if act.action != "select_option":
        raise Unsupported("cannot")
    if not device.config.get("command_topic"):
        raise Unsupported("no_command_topic")
    option = one_of(act.option, device.caps.options, "option")
    return [command(device, "command_topic", option, "command_template")]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == PAYLOAD_NONE:
        return {"option": None}
    if text not in device.caps.options:
        raise ValueError(f"{text[:40]!r} is not one of its options")
    return {"option": text}


PLATFORM = Platform("select", "default", load, encode, decode)
