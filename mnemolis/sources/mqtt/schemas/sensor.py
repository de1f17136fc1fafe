"""Home Assistant's MQTT sensor: a value (``value_template``), its unit and device class.

A sensor Home Assistant expects to be numeric (it has a unit, a state class, a
display precision or a numeric device class) reads a number; any other keeps
its text, as Home Assistant keeps it (a sensor written in Mnemolis' YAML reads
a number whenever its text is one). "None" means unknown. ``expire_after``
(seconds) makes a reading unknown once it is that old.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported, number

#: Device classes whose state is not a number (``NON_NUMERIC_DEVICE_CLASSES``).
NON_NUMERIC = frozenset({"date", "enum", "timestamp"})


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
    if device.origin != "homeassistant":
        return {"value": text if found is None else _plain(found, text)}
    if not numeric(device):
        return {"value": text}
    if found is None:
        raise ValueError(f"{text[:40]!r} is not a number")
    return {"value": _plain(found, text)}


def _plain(found: float, text: str) -> float | int:
    """ "91" is 91 and "23.20" is 23.2."""
    return int(found) if found.is_integer() and "." not in text else found


def numeric(device: Device) -> bool:
    """Home Assistant's ``_numeric_state_expected``."""
    if device.device_class in NON_NUMERIC:
        return False
    config = device.config
    return bool(
        config.get("state_class")
        or device.unit
        or config.get("suggested_display_precision") is not None
        or device.device_class
    )


PLATFORM = Platform("sensor", "default", load, encode, decode)
