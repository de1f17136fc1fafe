"""Topics belong to their owners: what a discovered device may command.

Mnemolis publishes with its own broker rights, so an announcement that names
another device's topic as its command topic would have it act for whoever
wrote the announcement: a "garden fountain" switch whose ``command_topic``
is the front door lock's, whose ``payload_on`` is the lock's UNLOCK. A
discovered device is refused (with the reason, like any refused config)
when a topic it commands is

* the assistant's own: ``mnemolis/#``, ``hermes/#``, the discovery configs
  (``homeassistant/+/+/config``, ``homeassistant/+/+/+/config`` and
  ``homeassistant/status``; Home Assistant's own examples command topics
  below the prefix), what it reads of zigbee2mqtt's bridge (``bridge/devices``,
  ``bridge/state``), the broker's sync topic, and every topic of
  `sources/serve.yaml` (ask, answer and say topics, response prefixes,
  Hermes topics);
* written in `sources/mqtt.yaml` for a device there (the owner's word);
* read or commanded by another discovered device. The entities of one
  physical device share topics (zigbee2mqtt gives a lock, its battery
  sensor and its sound select one state and one ``/set`` topic; Tasmota one
  ``stat/.../RESULT``), so devices that share an identifier (Home
  Assistant's ``device.identifiers`` or ``connections``, zigbee2mqtt's IEEE
  address) may share topics. Between two devices
  the one that held the topic at the previous flush keeps it; when neither
  did (both arrived in one burst, as at start-up), neither commands it.

Reading a topic someone else uses is never refused: it changes nothing.
`SharedTopic` entries (``discovery: shared_topics:`` in `sources/mqtt.yaml`)
let the owner share a topic on purpose, with any device or named ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.mqtt_connection.topics import levels_match
from mnemolis.sources.mqtt import availability, codec
from mnemolis.sources.mqtt.announced import DEVICE_IDS
from mnemolis.sources.mqtt.schemas.base import COMMAND_ROLES
from mnemolis.sources.mqtt.settings import MqttSettings, SharedTopic

ALWAYS_RESERVED = ("mnemolis/#", "hermes/#")


def matches(pattern: str, topic: str) -> bool:
    """MQTT's filter match (``+`` one level, ``#`` the rest, its parent included); paho's
    builds a matcher tree per call, ten times slower over a house of 5,000 devices."""
    return levels_match(pattern.split("/"), topic.split("/"))


def _allows(shared: SharedTopic, topic: str, name: str) -> bool:
    return matches(shared.topic, topic) and (
        not shared.devices or name in shared.devices
    )


@dataclass(frozen=True)
class Rules:
    """The assistant's own topic filters and the owner's shared topics."""

    reserved: tuple[str, ...] = ALWAYS_RESERVED
    shared: tuple[SharedTopic, ...] = ()


def _below(prefix: str) -> str:
    """A topic prefix as a filter for everything under it ("mnemolis/" -> "mnemolis/#")."""
    return prefix.rstrip("/") + "/#" if prefix.rstrip("/") else "#"


def assistant_topics(
    serve: Any, discovery_prefix: str | None, z2m_base: str | None, sync_topic: str
) -> tuple[str, ...]:
    """Every topic filter the assistant itself uses, from the raw `sources/serve.yaml`."""
    found = [*ALWAYS_RESERVED, _below(sync_topic)]
    if discovery_prefix:  # its config topics (Home Assistant's own examples command below it)
        base = discovery_prefix.rstrip("/")
        found += [f"{base}/+/+/config", f"{base}/+/+/+/config", f"{base}/status"]
    if z2m_base:  # what the assistant reads of the bridge (its own entities command the rest)
        found += [f"{z2m_base.rstrip('/')}/bridge/devices", f"{z2m_base.rstrip('/')}/bridge/state"]
    serve = serve if isinstance(serve, dict) else {}
    api = serve.get("mqtt_api") if isinstance(serve.get("mqtt_api"), dict) else {}
    hermes = serve.get("hermes") if isinstance(serve.get("hermes"), dict) else {}
    for section in (api, hermes):
        for key in ("ask_topic", "answer_topic", "say_topic"):
            if isinstance(section.get(key), str) and section[key]:
                found.append(section[key])
    prefixes = api.get("response_prefixes")
    listen = hermes.get("listen_topics")
    found += [_below(p) for p in prefixes or () if isinstance(p, str)]
    found += [t for t in listen or () if isinstance(t, str) and t]
    return tuple(dict.fromkeys(found))


def rules(serve: Any, settings: MqttSettings) -> Rules:
    """The rules of a source: its own topics reserved, the owner's shared topics allowed."""
    disc = settings.discovery
    reserved = assistant_topics(
        serve, disc.homeassistant_prefix, disc.zigbee2mqtt_base, settings.broker.sync_topic
    )
    return Rules(reserved, disc.shared_topics)


@dataclass
class Claims:
    """Who uses which topic: exact topics and wildcard filters (state topics may be filters)."""

    exact: dict[str, list[Device]] = field(default_factory=dict)
    filters: dict[str, list[Device]] = field(default_factory=dict)

    def add(self, topic: str, device: Device) -> None:
        table = self.filters if ("+" in topic or "#" in topic) else self.exact
        users = table.setdefault(topic, [])
        if device not in users:
            users.append(device)

    def users(self, topic: str) -> list[Device]:
        found = list(self.exact.get(topic, ()))
        for pattern, users in self.filters.items():
            if matches(pattern, topic):
                found += [u for u in users if u not in found]
        return found


def commands(device: Device) -> set[str]:
    """The topics a device publishes to."""
    roles = device.extra.get(COMMAND_ROLES)
    if isinstance(roles, list):
        return {t for r in roles if isinstance(t := device.topics.get(str(r)), str)}
    reads = {*codec.state_roles(device), *(r for r in device.topics if r.startswith("avail"))}
    return {t for r, t in device.topics.items() if r not in reads and isinstance(t, str)}


def uses(device: Device) -> set[str]:
    """Every topic a device reads or publishes to."""
    topics = {t for t in device.topics.values() if isinstance(t, str)}
    return topics | {spec.topic for spec in availability.specs(device)}


def identity(device: Device, yaml_ids: Iterable[str]) -> frozenset[str]:
    """The physical device this one is part of, as identifiers it shares with its siblings."""
    if device.id in yaml_ids:
        return frozenset({f"yaml:{device.id}"})
    ids = device.extra.get(DEVICE_IDS)
    if isinstance(ids, list) and ids:
        return frozenset(str(i) for i in ids)
    return frozenset({f"device:{device.id}"})


def claims_of(devices: Iterable[Device], yaml_ids: set[str]) -> dict[str, frozenset[str]]:
    """Topic -> the identities that use it (kept to tell, at the next flush, who held what)."""
    held: dict[str, set[str]] = {}
    for device in devices:
        for topic in uses(device):
            held.setdefault(topic, set()).update(identity(device, yaml_ids))
    return {topic: frozenset(ids) for topic, ids in held.items()}


def refused(
    devices: Iterable[Device],
    yaml_ids: set[str],
    rules: Rules,
    before: Mapping[str, frozenset[str]],
) -> dict[str, str]:
    """Device id -> why, for each discovered device that commands a topic it may not."""
    devices = [d for d in devices if d.refused is None]
    claims = Claims()
    for device in devices:
        for topic in uses(device):
            claims.add(topic, device)
    reasons: dict[str, str] = {}
    for device in devices:
        if device.id in yaml_ids:
            continue
        reason = _why(device, yaml_ids, rules, before, claims)
        if reason is not None:
            reasons[device.id] = reason
    return reasons


def _why(
    device: Device,
    yaml_ids: set[str],
    rules: Rules,
    before: Mapping[str, frozenset[str]],
    claims: Claims,
) -> str | None:
    mine = identity(device, yaml_ids)
    for topic in sorted(commands(device)):
        if any(_allows(rule, topic, device.name) for rule in rules.shared):
            continue
        own = next((f for f in rules.reserved if matches(f, topic)), None)
        if own is not None:
            return f"its command topic {topic[:80]!r} is the assistant's own ({own})"
        others = [u for u in claims.users(topic) if not (identity(u, yaml_ids) & mine)]
        owner = next((u for u in others if u.id in yaml_ids), None)
        if owner is not None:
            return (
                f"its command topic {topic[:80]!r} belongs to the {owner.name} "
                "(sources/mqtt.yaml)"
            )
        if not others:
            continue
        held = before.get(topic, frozenset())
        if mine & held and not any(identity(u, yaml_ids) & held for u in others):
            continue  # this device had the topic first
        first = next((u for u in others if identity(u, yaml_ids) & held), others[0])
        return f"its command topic {topic[:80]!r} is also used by the {first.name}"
    return None
