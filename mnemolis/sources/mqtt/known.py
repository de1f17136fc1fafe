"""Merge YAML devices with discovered ones into the one shared `DeviceRegistry`.

Discovery messages arrive one by one on paho's thread, often hundreds at
once; each is staged here and the registry is updated in one batch, so
understanding recompiles its name index once per burst instead of once per
device. The rules, in order:

* the owner's YAML wins: a discovered device with the name (or id) of a
  YAML device that has its own topics is ignored; a YAML device without
  topics takes them from discovery and keeps its names, room and safety;
* a ``unique_id`` belongs to the first config that announced it; another
  config with the same one is refused, as Home Assistant refuses it;
* one physical device announced twice (zigbee2mqtt's bridge list and its
  Home Assistant discovery) is kept once, as Home Assistant describes it;
* a discovered device may command only topics that are its own
  (`ownership`): not the assistant's, not a YAML device's, not another
  discovered device's;
* each discovery source (Home Assistant discovery, zigbee2mqtt) keeps at
  most ``limit`` devices and refused configs; past that, the configs heard
  from least recently (announced, or a state message from one of their
  devices) are forgotten first, so a flood of announcements cannot keep a
  real new device out;
* a refused config is kept as a `Refusal`; when it had a name, a device of
  that name with its reason joins the registry, so "turn on the garden
  pump" is understood and answered with what was wrong.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import threading
from dataclasses import dataclass, field, replace

import paho.mqtt.client as mqtt

from mnemolis.core.devices import TYPE_ACTIONS, Device, DeviceRegistry, slugify
from mnemolis.sources.mqtt import availability, codec, ownership
from mnemolis.sources.mqtt.announced import Discovered, Refusal, has_wildcard

log = logging.getLogger(__name__)
FORGOTTEN_MANY = 100  # devices gone since the last time memory was handed back


@dataclass(frozen=True)
class Route:
    """A subscribed topic feeds this device in this role."""

    device_id: str
    role: str  # state, brightness_state, ... or availability
    availability: int = -1  # index into the device's availability specs


@dataclass
class FlushReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


def _overlay(owner: Device, found: Device) -> Device:
    """The owner's YAML device, wired with the topics discovery announced."""
    return replace(
        owner,
        topics=dict(found.topics),
        payloads={**found.payloads, **owner.payloads},
        schema=found.schema,
        extra=dict(found.extra),
        config=dict(found.config),
        caps=replace(found.caps),
        features=owner.features or list(found.features),
        unit=owner.unit or found.unit,
        device_class=owner.device_class or found.device_class,
        room=owner.room or found.room,
        origin=found.origin,
    )


def _state_topic(device: Device) -> str | None:
    topic = device.topics.get("state")
    return topic if isinstance(topic, str) else None


class KnownDevices:
    """YAML devices plus everything discovery staged, applied in batches."""

    def __init__(
        self,
        registry: DeviceRegistry,
        yaml_devices: list[Device],
        limit: int,
        rules: ownership.Rules | None = None,
    ) -> None:
        self.registry = registry
        self.yaml = {d.id: d for d in yaml_devices}
        self.limit = limit  # per discovery source
        self.rules = rules if rules is not None else ownership.Rules()
        self.evicted = 0  # configs forgotten to stay within the limit, ever
        self._tick = 0  # a counter, not a clock: what was heard from last has the highest
        self._seen: dict[str, int] = {}  # config key -> tick it was last heard from
        self._key_of: dict[str, str] = {}  # device id -> its config key
        self._held: dict[str, frozenset[str]] = {}  # topic -> identities using it at last flush
        self._clashes: list[Refusal] = []
        self._forgotten = 0  # devices gone since memory was last handed back
        self._lock = threading.Lock()
        self._staged: dict[str, Discovered] = {}
        self._discovered: dict[str, list[Device]] = {}
        self._refused: dict[str, list[Refusal]] = {}
        self._applied: dict[str, Device] = {}
        self._duplicates: list[Refusal] = []
        self._warned: set[str] = set()

    @property
    def pending(self) -> bool:
        with self._lock:
            return bool(self._staged)

    def stage(self, found: Discovered) -> None:
        """Remember what one config announced (thread-safe); `flush` applies it."""
        with self._lock:
            self._staged[found.key] = found
            self._tick += 1
            self._seen[found.key] = self._tick

    def heard(self, device_id: str) -> None:
        """A state message of this device: its config is not among the oldest unheard."""
        with self._lock:
            key = self._key_of.get(device_id)
            if key is not None:
                self._tick += 1
                self._seen[key] = self._tick

    def discovered_count(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._discovered.values())

    def refusals(self) -> list[Refusal]:
        """Every config refused now, with its reason (duplicates included)."""
        with self._lock:
            listed = [r for items in self._refused.values() for r in items]
            return listed + list(self._duplicates) + list(self._clashes)

    def refusal_for(self, name: str) -> Refusal | None:
        key = " ".join(name.lower().split())
        return next((r for r in self.refusals() if r.name == key), None)

    def flush(self) -> FlushReport:
        """Apply every staged change to the registry at once."""
        with self._lock:
            staged, self._staged = self._staged, {}
            for key, found in staged.items():
                for stale in [k for k in self._refused if k == key or k.startswith(key + "#")]:
                    del self._refused[stale]
                if found.devices:
                    self._discovered[key] = list(found.devices)
                else:
                    self._discovered.pop(key, None)
                for refusal in found.refused:
                    self._refused.setdefault(refusal.key, []).append(refusal)
            self._evict()
            keyed = [(k, d) for k, devices in self._discovered.items() for d in devices]
            self._key_of = {d.id: k for k, d in keyed}
        discovered = self._unique(keyed)
        desired = self._merge(discovered)
        report = FlushReport()
        for device_id, device in desired.items():
            old = self._applied.get(device_id)
            if old is None:
                report.added.append(device_id)
            elif old != device:
                report.updated.append(device_id)
        report.removed = [i for i in self._applied if i not in desired]
        if report.changed:
            upserts = [desired[i] for i in (*report.added, *report.updated)]
            self.registry.update(upserts, report.removed)
        self._applied = desired
        self._forgotten += len(report.removed)
        if self._forgotten >= FORGOTTEN_MANY:  # after the registry's listeners let go of them
            self._forgotten = 0
            give_memory_back()
        return report

    def _evict(self) -> None:
        """Within ``limit`` devices and refusals per discovery source, the configs heard
        from least recently forgotten first (call with the lock held)."""
        sizes: dict[str, int] = {}
        origins: dict[str, str] = {}
        for key, devices in self._discovered.items():
            sizes[key] = sizes.get(key, 0) + len(devices)
            origins[key] = devices[0].origin if devices else "homeassistant"
        for key, refusals in self._refused.items():
            base = key.split("#", 1)[0]
            sizes[base] = sizes.get(base, 0) + len(refusals)
            origins.setdefault(base, refusals[0].origin if refusals else "homeassistant")
        self._seen = {k: tick for k, tick in self._seen.items() if k in sizes or k in self._staged}
        totals: dict[str, int] = {}
        for key, size in sizes.items():
            totals[origins[key]] = totals.get(origins[key], 0) + size
        over = {origin for origin, total in totals.items() if total > self.limit}
        if not over:
            return
        for key in sorted(
            (k for k in sizes if origins[k] in over), key=lambda k: self._seen.get(k, 0)
        ):
            origin = origins[key]
            if totals[origin] <= self.limit:
                continue
            totals[origin] -= sizes[key]
            self._discovered.pop(key, None)
            for stale in [k for k in self._refused if k.split("#", 1)[0] == key]:
                del self._refused[stale]
            self._seen.pop(key, None)
            self.evicted += 1
        self._warn(
            "limit",
            f"more than {self.limit} devices from one discovery source: "
            "the configs heard from least recently are forgotten",
        )

    def _unique(self, keyed: list[tuple[str, Device]]) -> list[Device]:
        """First come keeps a unique_id; a bridge device HA discovery also described goes."""
        owners: dict[str, str] = {}
        duplicates: list[Refusal] = []
        kept: list[Device] = []
        for key, device in keyed:
            unique = device.extra.get("unique_id")
            if isinstance(unique, str):
                owner = owners.setdefault(f"{device.type}:{unique}", key)
                if owner != key:
                    duplicates.append(
                        Refusal(
                            key,
                            f"unique_id {unique!r} is already used by {owner}",
                            device.name,
                            device.type,
                        )
                    )
                    continue
            kept.append(device)
        described = {
            (d.type, topic)
            for d in kept
            if d.origin == "homeassistant" and (topic := _state_topic(d)) is not None
        }
        kept = [
            d
            for d in kept
            if not (d.origin == "zigbee2mqtt" and (d.type, _state_topic(d)) in described)
        ]
        with self._lock:
            self._duplicates = duplicates
        return kept

    def _merge(self, discovered: list[Device]) -> dict[str, Device]:
        by_name: dict[str, Device] = {}
        for yaml_device in self.yaml.values():
            for form in yaml_device.names:
                by_name.setdefault(form, yaml_device)
        desired: dict[str, Device] = {}
        overlays: dict[str, Device] = {}
        for found in discovered:
            owner: Device | None = self.yaml.get(found.id) or next(
                # its own name only: the device and entity names discovery adds as
                # aliases ("kitchen sensor") are shared by its siblings
                (by_name[n] for n in (found.name,) if n in by_name),
                None,
            )
            if owner is not None:
                if not owner.topics and owner.id not in overlays:
                    overlays[owner.id] = _overlay(owner, found)
                continue  # the owner's YAML topics win
            desired[found.id] = found
        for owner in self.yaml.values():
            desired[owner.id] = overlays.get(owner.id, owner)
        self._own(desired)
        names = {n for d in desired.values() for n in d.names}
        for refusal in self.refusals():
            if refusal.name and refusal.type in TYPE_ACTIONS and refusal.name not in names:
                names.add(refusal.name)
                stand_in = Device(
                    name=refusal.name,
                    type=refusal.type,
                    origin=refusal.origin,
                    id="refused_" + slugify(refusal.key),
                    refused=refusal.reason,
                )
                desired.setdefault(stand_in.id, stand_in)
        return desired

    def _own(self, desired: dict[str, Device]) -> None:
        """Refuse the discovered devices that command a topic not theirs (`ownership`)."""
        yaml_ids = set(self.yaml)
        reasons = ownership.refused(desired.values(), yaml_ids, self.rules, self._held)
        clashes = []
        for device_id, reason in reasons.items():
            device = desired.pop(device_id)
            key = self._key_of.get(device_id, device_id)
            clashes.append(Refusal(key, reason, device.name, device.type, device.origin))
        with self._lock:
            self._clashes = clashes
        self._held = ownership.claims_of(desired.values(), yaml_ids)

    def _warn(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message)


def give_memory_back() -> None:
    """After many devices went: collect what they held and hand freed heap pages back to
    the system (glibc keeps them otherwise, and a flood's memory would stay with us)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@dataclass
class RouteTable:
    """Topic -> routes; wildcard subscriptions (a state topic with + or #) matched apart."""

    exact: dict[str, list[Route]] = field(default_factory=dict)
    patterns: dict[str, list[Route]] = field(default_factory=dict)

    def subscriptions(self) -> set[str]:
        return set(self.exact) | set(self.patterns)

    def lookup(self, topic: str) -> list[Route]:
        found = list(self.exact.get(topic, ()))
        for pattern, routes in self.patterns.items():
            if mqtt.topic_matches_sub(pattern, topic):
                found.extend(routes)
        return found


def routes_for(devices: list[Device]) -> RouteTable:
    """Every topic to subscribe, and which device and role each message feeds."""
    table = RouteTable()
    for device in devices:
        if device.refused is not None:
            continue
        for role in codec.state_roles(device):
            topic = codec.wired(device).topics.get(role)
            if isinstance(topic, str):
                target = table.patterns if has_wildcard(topic) else table.exact
                target.setdefault(topic, []).append(Route(device.id, role))
        for i, spec in enumerate(availability.specs(device)):
            target = table.patterns if has_wildcard(spec.topic) else table.exact
            target.setdefault(spec.topic, []).append(Route(device.id, "availability", i))
    return table
