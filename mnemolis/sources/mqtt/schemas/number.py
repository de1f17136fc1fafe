"""Home Assistant's MQTT number: a value within ``min``..``max``, through ``command_template``.

A whole value goes out as an integer (``5``, not ``5.0``), as
``homeassistant/components/mqtt/number.py`` sends it; one outside the range
is refused, as Home Assistant's number service refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, value
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported, format_number


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("value_template")
    low = options.number("min", 1.0)
    high = options.number("max", 100.0)
    step = options.number("step", 1.0)
    if low is not None and high is not None and low >= high:
        raise BadConfig("a number's max must be more than its min")
    options.text("payload_reset", "None")
    options.text("mode", "auto")
    options.qos()
    if not options.config.get("command_topic") and not options.config.get("state_topic"):
        raise BadConfig("it has neither a state topic nor a command topic")
    device.caps.minimum, device.caps.maximum, device.caps.step = low, high, step


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    if act.action != "set_value":
        raise Unsupported("cannot")
    if not device.config.get("command_topic"):
        raise Unsupported("no_command_topic")
    if act.value is None:
        raise Unsupported("no_value")
    low, high = device.caps.minimum, device.caps.maximum
    if (low is not None and act.value < low) or (high is not None and act.value > high):
        raise Unsupported(
            "out_of_range", f"{format_number(low or 0)} to {format_number(high or 0)}"
        )
    number: float | int = int(act.value) if float(act.value).is_integer() else float(act.value)
    return [command(device, "command_topic", number, "command_template")]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == device.config["payload_reset"]:
        return {"value": None}
    try:
        found: float = int(text) if text.isnumeric() else float(text)
    except ValueError:
        raise ValueError(f"{text[:40]!r} is not a number") from None
    low, high = device.caps.minimum, device.caps.maximum
    if (low is not None and found < low) or (high is not None and found > high):
        raise ValueError(f"{text[:40]!r} is out of its range")
    return {"value": found}


PLATFORM = Platform("number", "default", load, encode, decode)
