"""A `sources/mqtt.yaml` device with ``schema: default``, driven as Home Assistant would.

The owner names topics by role (``state``, ``command``, ``brightness_command``
...) and words by name (``on``, ``lock``, ``state_locked`` ...). They are the
keys of Home Assistant's own MQTT YAML config under other names, so such a
device becomes that config and is driven by the same platform code as a
discovered one: the same payloads, the same rules.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas import platform_named
from mnemolis.sources.mqtt.schemas.base import Options

#: Topic roles whose Home Assistant key is not simply ``<role>_topic``.
ROLE_KEYS = {
    "position_state": "position_topic",
    "position_command": "set_position_topic",
    "current_temperature": "current_temperature_topic",
    "current_humidity": "current_humidity_topic",
    "tilt_state": "tilt_status_topic",
}
#: Words whose Home Assistant key is ``payload_<word>``.
COMMAND_WORDS = (
    "on",
    "off",
    "lock",
    "unlock",
    "open",
    "close",
    "stop",
    "start",
    "pause",
    "return_to_base",
    "locate",
    "clean_spot",
    "press",
    "home",
    "not_home",
)
NOT_CONFIG = ("keys", "available", "not_available", "qos")


def ha_config(device: Device) -> dict[str, Any]:
    """The Home Assistant config equivalent to a ``schema: default`` YAML device."""
    config: dict[str, Any] = {}
    for role, topic in device.topics.items():
        if role.startswith("availability"):
            continue
        config[ROLE_KEYS.get(role, f"{role}_topic")] = topic
    for word, payload in device.payloads.items():
        if not isinstance(word, str) or word in NOT_CONFIG:
            continue
        config[f"payload_{word}" if word in COMMAND_WORDS else word] = payload
    availability = [
        {
            "topic": topic,
            "payload_available": device.payloads.get("available", "online"),
            "payload_not_available": device.payloads.get("not_available", "offline"),
        }
        for role, topic in sorted(device.topics.items())
        if role.startswith("availability")
    ]
    if availability:
        config["availability"] = availability
    modes = device.extra.get("modes")
    if isinstance(modes, list):
        config.setdefault("modes", modes)
    if device.type == "vacuum":
        config.setdefault(
            "supported_features",
            [
                "start",
                "stop",
                "pause",
                "return_home",
                "status",
                "battery",
                "locate",
                "clean_spot",
                "fan_speed",
            ],
        )
    config.setdefault("qos", device.payloads.get("qos", 1))  # Mnemolis's YAML default
    return config


def wired(device: Device, max_topic_chars: int = 256) -> Device:
    """The device with its platform config filled in; `BadConfig` says what is wrong."""
    if device.schema != "default" or device.config:
        return device
    platform = platform_named(device.type, "basic")
    if platform is None:
        raise BadConfig(f"a {device.type} cannot be driven with schema: default")
    options = Options(ha_config(device), max_topic_chars)
    copy = dataclasses.replace(
        device, topics={}, extra=dict(device.extra), caps=dataclasses.replace(device.caps)
    )
    platform.load(options, copy)
    options.finish(copy)
    for role, topic in device.topics.items():
        if role.startswith("availability"):
            copy.topics[role] = topic
    if device.features:
        copy.features = list(device.features)
    return copy
