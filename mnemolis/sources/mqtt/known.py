"""Merge YAML devices with discovered ones into the one shared `DeviceRegistry`.

Discovery messages arrive one by one on paho's thread, often hundreds at
once; each is staged here and the registry is updated in one batch, so
understanding recompiles its name index once per burst instead of once per
device. The owner's YAML wins: a discovered device with the name (or id) of
a YAML device that has its own topics is ignored; if the YAML device has no
topics, it takes them from discovery and keeps its names, room and safety
settings.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace

from mnemolis.devices import Device, DeviceRegistry
from mnemolis.sources.mqtt.codec import COMMAND_ROLES, availability_specs
from mnemolis.sources.mqtt.discovery import Discovered

log = logging.getLogger(__name__)


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
        features=owner.features or list(found.features),
        unit=owner.unit or found.unit,
        device_class=owner.device_class or found.device_class,
        room=owner.room or found.room,
        origin=found.origin,
    )


class KnownDevices:
    """YAML devices plus everything discovery staged, applied in batches."""

    def __init__(self, registry: DeviceRegistry, yaml_devices: list[Device], limit: int) -> None:
        self.registry = registry
        self.yaml = {d.id: d for d in yaml_devices}
        self.limit = limit
        self._lock = threading.Lock()
        self._staged: dict[str, list[Device]] = {}
        self._discovered: dict[str, list[Device]] = {}
        self._applied: dict[str, Device] = {}
        self._warned: set[str] = set()

    @property
    def pending(self) -> bool:
        with self._lock:
            return bool(self._staged)

    def stage(self, found: Discovered) -> None:
        """Remember what one config announced (thread-safe); `flush` applies it."""
        with self._lock:
            self._staged[found.key] = list(found.devices)

    def discovered_count(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._discovered.values())

    def flush(self) -> FlushReport:
        """Apply every staged change to the registry at once."""
        with self._lock:
            staged, self._staged = self._staged, {}
            for key, devices in staged.items():
                if devices:
                    self._discovered[key] = devices
                else:
                    self._discovered.pop(key, None)
            discovered = [d for devices in self._discovered.values() for d in devices]
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
        return report

    def _merge(self, discovered: list[Device]) -> dict[str, Device]:
        by_name: dict[str, Device] = {}
        for yaml_device in self.yaml.values():
            for form in yaml_device.names:
                by_name.setdefault(form, yaml_device)
        desired: dict[str, Device] = {}
        overlays: dict[str, Device] = {}
        count = 0
        for found in discovered:
            owner: Device | None = self.yaml.get(found.id) or next(
                (by_name[n] for n in found.names if n in by_name), None
            )
            if owner is not None:
                if not owner.topics and owner.id not in overlays:
                    overlays[owner.id] = _overlay(owner, found)
                continue  # the owner's YAML topics win
            if count >= self.limit:
                self._warn("limit", f"more than {self.limit} discovered devices; the rest ignored")
                break
            count += 1
            desired[found.id] = found
        for owner in self.yaml.values():
            desired[owner.id] = overlays.get(owner.id, owner)
        return desired

    def _warn(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message)


def routes_for(devices: list[Device]) -> dict[str, list[Route]]:
    """Every topic to subscribe, and which device and role each message feeds."""
    routes: dict[str, list[Route]] = {}
    for device in devices:
        for role, topic in device.topics.items():
            if role in COMMAND_ROLES or role.startswith("availability"):
                continue
            routes.setdefault(topic, []).append(Route(device.id, role))
        for i, spec in enumerate(availability_specs(device)):
            routes.setdefault(str(spec["topic"]), []).append(Route(device.id, "availability", i))
    return routes
