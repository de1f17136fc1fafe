"""Devices announced on the broker: Home Assistant MQTT discovery and zigbee2mqtt.

`abbreviations` is Home Assistant's table of short keys, `homeassistant`
reads discovery configs the way Home Assistant does, `zigbee2mqtt` reads the
bridge's device list, and `common` holds what they share: topic checks,
names, and the `Discovered` result with its `Refusal`s. The parsers are
imported from their modules (the platform schemas import `common`).
"""

from __future__ import annotations

from mnemolis.sources.mqtt.discovery.common import (
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
