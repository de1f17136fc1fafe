"""Devices announced on the broker: Home Assistant MQTT discovery and zigbee2mqtt.

`abbreviations` is Home Assistant's table of short keys, `homeassistant`
reads discovery configs the way Home Assistant does, `zigbee2mqtt` reads the
bridge's device list; what they share (topic checks, names, and the
`Discovered` result with its `Refusal`s) is `mqtt.announced`, below both the
parsers and the platform schemas. The parsers are imported from their modules.
"""

from __future__ import annotations

from mnemolis.sources.mqtt.announced import (
    BadConfig,
    Discovered,
    Refusal,
    check_subscription,
    check_topic,
)

__all__ = [
    "BadConfig",
    "Discovered",
    "Refusal",
    "check_subscription",
    "check_topic",
]
