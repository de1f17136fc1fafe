"""A home's retained discovery configs, read from a file instead of a broker.

`mnemolis eval --config DIR` on a home such as ``tests/data/big_home`` must
see the devices real firmware announced, not only the YAML ones; starting a
broker for a score would be slow and flaky. A ``discovery.jsonl`` holds one
retained message a line (``{"topic", "payload", "source"}``; ``payload`` a
JSON value or text), and this module feeds every line through the same
parsers and merge the MQTT source uses (Home Assistant discovery,
zigbee2mqtt's bridge list, `KnownDevices`), so the registry is the one the
daemon would build from the same broker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry

if TYPE_CHECKING:  # `parse` of a home without the file loads no MQTT source
    from mnemolis.sources.mqtt.announced import Refusal

#: The file `mnemolis eval --config DIR` looks for in DIR.
DISCOVERY_FILE = "discovery.jsonl"


@dataclass
class Message:
    """One retained message, as a broker would hand it over."""

    line: int
    topic: str
    payload: bytes


@dataclass
class LoadedDiscovery:
    """What the file announced: how many messages, devices, and the refusals."""

    path: str
    messages: int = 0
    devices: int = 0
    refused: list[Refusal] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # topics no parser reads


def default_discovery(config: Config) -> Path | None:
    """``discovery.jsonl`` in the configuration directory, when there is one."""
    path = Path(config.root) / DISCOVERY_FILE
    return path if path.is_file() else None


def _payload(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def read_messages(path: Path | str) -> list[Message]:
    """Every line of the file, checked; a bad line is a `DataError` at its line."""
    from mnemolis.evaluation.datasets import DataError

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, None, f"cannot read the discovery file: {exc}") from exc
    messages = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise DataError(path, n, f"not JSON: {exc}") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("topic"), str):
            raise DataError(path, n, 'a line needs {"topic": ..., "payload": ...}')
        if "payload" not in obj:
            raise DataError(path, n, 'a line needs a payload (null or "" removes a config)')
        payload = b"" if obj["payload"] is None else _payload(obj["payload"])
        messages.append(Message(n, obj["topic"], payload))
    return messages


def load_discovery(config: Config, registry: DeviceRegistry, path: Path | str) -> LoadedDiscovery:
    """Feed the file's messages through the MQTT source's parsers into ``registry``.

    The registry already holds the YAML devices (`registry_from_config`);
    a discovered device named like one of them wires it, as on a broker.
    """
    from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
    from mnemolis.sources.mqtt.discovery.zigbee2mqtt import Zigbee2MqttParser
    from mnemolis.sources.mqtt.known import KnownDevices
    from mnemolis.sources.mqtt.settings import load_mqtt_settings

    settings = load_mqtt_settings(config)
    disc, limits = settings.discovery, settings.limits
    rooms = tuple(registry.rooms())
    known = KnownDevices(registry, list(config.devices), limits.devices)
    homeassistant = HomeAssistantParser(
        disc.homeassistant_prefix, limits.topic_chars, lambda: rooms
    )
    zigbee2mqtt = Zigbee2MqttParser(
        disc.zigbee2mqtt_base,
        limits.topic_chars,
        lambda: rooms,
        disc.zigbee2mqtt_sensors,
        disc.zigbee2mqtt_binary_sensors,
    )
    loaded = LoadedDiscovery(str(path))
    before = len(registry.devices())
    for message in read_messages(path):
        loaded.messages += 1
        if disc.zigbee2mqtt and message.topic == zigbee2mqtt.devices_topic:
            found = zigbee2mqtt.parse(message.payload, limits.devices)
        elif disc.homeassistant and homeassistant.match(message.topic) is not None:
            found = homeassistant.parse(message.topic, message.payload)
        else:
            loaded.ignored.append(message.topic)
            continue
        pending = [found]
        while pending:
            one = pending.pop()
            known.stage(one)
            pending.extend(one.also)
    known.flush()
    loaded.devices = len(registry.devices()) - before
    loaded.refused = known.refusals()
    return loaded


def home_registry(
    config: Config, path: Path | str | None
) -> tuple[DeviceRegistry, LoadedDiscovery | None]:
    """The registry understanding gets: the YAML home, plus ``path`` (or the config
    directory's ``discovery.jsonl``) when there is one."""
    from mnemolis.understand import registry_from_config

    registry = registry_from_config(config)
    found = Path(path) if path is not None else default_discovery(config)
    if found is None:
        return registry, None
    return registry, load_discovery(config, registry, found)
