"""Devices from discovery configs, without a broker, for the pure schema tables."""

from __future__ import annotations

import json
from typing import Any

from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.sources.mqtt import codec
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.discovery.zigbee2mqtt import Zigbee2MqttParser
from mnemolis.sources.mqtt.known import KnownDevices
from mnemolis.sources.mqtt.wire import Act

ROOMS = ("kitchen", "study", "porch", "living room", "bedroom", "garden")
#: The rooms, sensor keys and binary keys the discovery tables are written for.
DISCOVERY_ROOMS = ("kitchen", "study", "porch", "living room")
SENSORS = ("temperature", "humidity", "pressure")
BINARIES = {"occupancy": "motion", "contact": "door"}


def ha() -> HomeAssistantParser:
    return HomeAssistantParser("homeassistant", 256, lambda: DISCOVERY_ROOMS)


def z2m() -> Zigbee2MqttParser:
    return Zigbee2MqttParser("zigbee2mqtt", 256, lambda: DISCOVERY_ROOMS, SENSORS, BINARIES)


def known_devices() -> tuple[KnownDevices, DeviceRegistry]:
    """An empty registry and the known-devices book that fills it."""
    registry = DeviceRegistry()
    return KnownDevices(registry, [], 100), registry


def parse(topic: str, config: Any) -> Any:
    """One config (a mapping, or raw bytes) through a fresh Home Assistant parser."""
    payload = config if isinstance(config, bytes) else json.dumps(config).encode()
    return ha().parse(topic, payload)


def parser() -> HomeAssistantParser:
    return HomeAssistantParser("homeassistant", 256, lambda: ROOMS)


def announced(component: str, config: dict[str, Any], object_id: str = "thing") -> Device:
    """The one device a discovery config announces (the test fails if it is refused)."""
    found = parser().parse(
        f"homeassistant/{component}/{object_id}/config", json.dumps(config).encode()
    )
    assert found.problems == [] and len(found.devices) == 1, (found.problems, found.devices)
    return found.devices[0]


def sent(device: Device, act: Act, state: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """Each publish as (topic, payload text, qos, retain)."""
    return [(c.topic, c.text, c.qos, c.retain) for c in codec.encode(device, act, state or {})]


def read(device: Device, role: str, payload: str | bytes) -> dict[str, Any]:
    raw = payload.encode() if isinstance(payload, str) else payload
    return codec.decode(device, role, raw).values
