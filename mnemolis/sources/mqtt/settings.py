"""The MQTT source's settings: broker, discovery, timeouts and limits.

They come from the `broker:`, `discovery:`, `timeouts:`, `limits:` and `confirm:`
(what waits for a spoken yes, `opening`) sections of `sources/mqtt.yaml`; the
environment variable ``MNEMOLIS_MQTT_URL`` (``mqtt://user:pass@host:1883``,
``mqtts://`` for TLS) overrides the broker, so one config directory serves a
laptop and a Pi. A wrong value is a
`ConfigError` naming the file and line, raised when the source is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mnemolis.config import Config, ConfigError, line_of
from mnemolis.mqtt_connection.settings import (
    URL_ENV,
    BrokerSettings,
    SectionReader,
    load_broker_settings,
    settings_path,
)
from mnemolis.sources.mqtt.opening import ConfirmPolicy, load_policy

__all__ = ["URL_ENV", "MqttSettings", "load_mqtt_settings"]


@dataclass(frozen=True)
class SharedTopic:
    """A topic (an MQTT filter) the owner lets discovered devices command although another
    device or the assistant uses it (`ownership`); ``devices`` names those that may."""

    topic: str
    devices: tuple[str, ...] = ()  # empty: any discovered device


@dataclass(frozen=True)
class DiscoverySettings:
    homeassistant: bool = True
    homeassistant_prefix: str = "homeassistant"
    zigbee2mqtt: bool = True
    zigbee2mqtt_base: str = "zigbee2mqtt"
    wait_s: float = 1.0
    zigbee2mqtt_sensors: tuple[str, ...] = ()  # numeric exposes that become sensors
    zigbee2mqtt_binary_sensors: dict[str, str] = field(default_factory=dict)  # expose -> class
    shared_topics: tuple[SharedTopic, ...] = ()


@dataclass(frozen=True)
class Timeouts:
    confirm_s: float = 2.0  # how long a device has to echo its new state
    answer_s: float = 3.0  # the most one answer may take, broker outages included
    stale_s: float = 900.0  # a reading older than this is reported with its age


@dataclass(frozen=True)
class Limits:
    topic_chars: int = 256
    payload_bytes: int = 65_536
    bridge_payload_bytes: int = 8_388_608  # zigbee2mqtt/bridge/devices lists every device
    devices: int = 5_000  # discovered devices kept at most


@dataclass(frozen=True)
class MqttSettings:
    broker: BrokerSettings = BrokerSettings()  # noqa: RUF009 - frozen, shared safely
    discovery: DiscoverySettings = DiscoverySettings()
    timeouts: Timeouts = Timeouts()
    limits: Limits = Limits()
    url_from_env: bool = False
    confirm: ConfirmPolicy = field(default_factory=ConfirmPolicy)  # what waits for a yes


def _discovery(reader: SectionReader) -> DiscoverySettings:
    sensors = reader.data.get("zigbee2mqtt_sensors") or []
    binaries = reader.data.get("zigbee2mqtt_binary_sensors") or {}
    if not isinstance(sensors, list) or not all(isinstance(s, str) for s in sensors):
        raise reader.error(("zigbee2mqtt_sensors",), "zigbee2mqtt_sensors must be a list of names")
    if not isinstance(binaries, dict):
        raise reader.error(
            ("zigbee2mqtt_binary_sensors",),
            "zigbee2mqtt_binary_sensors must map an expose name to a device class",
        )
    return DiscoverySettings(
        shared_topics=_shared_topics(reader),
        homeassistant=reader.flag("homeassistant", True),
        homeassistant_prefix=reader.topic("homeassistant_prefix", "homeassistant"),
        zigbee2mqtt=reader.flag("zigbee2mqtt", True),
        zigbee2mqtt_base=reader.topic("zigbee2mqtt_base", "zigbee2mqtt"),
        wait_s=reader.number("wait_s", 1.0),
        zigbee2mqtt_sensors=tuple(sensors),
        zigbee2mqtt_binary_sensors={str(k): str(v) for k, v in binaries.items()},
    )


def _entry_error(reader: SectionReader, index: int, reason: str) -> ConfigError:
    where = line_of(reader.path, (reader.section, "shared_topics", index))
    return ConfigError(reader.path, where, f"shared_topics: {reason}")


def _shared_topics(reader: SectionReader) -> tuple[SharedTopic, ...]:
    listed = reader.data.get("shared_topics") or []
    if not isinstance(listed, list):
        raise reader.error(("shared_topics",), "shared_topics must be a list")
    shared = []
    for i, item in enumerate(listed):
        entry = {"topic": item} if isinstance(item, str) else item
        topic = entry.get("topic") if isinstance(entry, dict) else None
        names = entry.get("devices") or [] if isinstance(entry, dict) else []
        if not isinstance(topic, str) or not topic.strip():
            raise _entry_error(reader, i, "each shared topic needs a topic")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise _entry_error(reader, i, "devices must be a list of device names")
        spoken = tuple(" ".join(n.lower().split()) for n in names)
        shared.append(SharedTopic(topic.strip(), spoken))
    return tuple(shared)


def load_mqtt_settings(config: Config, env: Mapping[str, str] | None = None) -> MqttSettings:
    """Read the settings of `sources/mqtt.yaml`; ``$MNEMOLIS_MQTT_URL`` overrides the broker."""
    data = config.sources.get("mqtt") or {}
    path = settings_path(config)
    broker, from_env = load_broker_settings(config, env)
    discovery = _discovery(SectionReader(path, "discovery", data.get("discovery")))
    t = SectionReader(path, "timeouts", data.get("timeouts"))
    timeouts = Timeouts(
        confirm_s=t.number("confirm_s", 2.0, 0.01),
        answer_s=t.number("answer_s", 3.0, 0.01),
        stale_s=t.number("stale_s", 900.0),
    )
    lim = SectionReader(path, "limits", data.get("limits"))
    limits = Limits(
        topic_chars=lim.integer("topic_chars", 256, 16, 65_535),
        payload_bytes=lim.integer("payload_bytes", 65_536, 256),
        bridge_payload_bytes=lim.integer("bridge_payload_bytes", 8_388_608, 1024),
        devices=lim.integer("devices", 5_000, 1),
    )
    confirm = load_policy(data.get("confirm"), path)
    return MqttSettings(broker, discovery, timeouts, limits, from_env, confirm)


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    load_mqtt_settings(config, env={})
