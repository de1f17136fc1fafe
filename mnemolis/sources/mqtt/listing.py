"""What `mnemolis devices` lists: every device known over MQTT, and every config that was refused.

For each device: its name, type, area and floor, where it came from (YAML,
Home Assistant discovery, zigbee2mqtt), what it can do (its actions and
features), its last state and how old that is. Then each announced config
that was refused, with the reason, so a device that "doesn't work" says why.
This module stays light: the source loads only when the command runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mnemolis.config import Config
    from mnemolis.core.devices import Device, DeviceRegistry
    from mnemolis.sources.mqtt.settings import MqttSettings
    from mnemolis.sources.mqtt.source import MqttSource


def floor_of(registry: DeviceRegistry, device: Device) -> str | None:
    """The floor of the device's area, when the registry knows floors."""
    finder = getattr(registry, "floor_of", None)
    if callable(finder) and device.room:
        try:
            found = finder(device.room)
        except (TypeError, ValueError, KeyError):
            return None
        return str(found) if isinstance(found, str) and found else None
    return None


def describe_device(source: MqttSource, device: Device, now: float) -> dict[str, Any]:
    from mnemolis.core.devices import TYPE_ACTIONS

    state = source.state_of(device.id)
    age = state.age(now) if state is not None else None
    entry: dict[str, Any] = {
        "name": device.name,
        "type": device.type,
        "area": device.room,
        "floor": floor_of(source.registry, device),
        "origin": device.origin,
        "actions": [a for a in TYPE_ACTIONS.get(device.type, ()) if device.can(a)],
        "features": list(device.features),
        "capabilities": device.caps.as_dict(),
        "state": source.words.describe(device, state.values) if state and state.values else None,
        "age_s": round(age, 1) if age is not None else None,
        "available": state.available if state is not None else None,
    }
    from mnemolis.sources.mqtt.templates import ENGINE

    parts = device.extra.get("refused_parts")
    refused = dict(parts) if isinstance(parts, dict) else {}
    refused.update(ENGINE.faults.of(device.id))  # templates disabled after breaking a bound
    if refused:
        entry["refused_parts"] = refused
    return entry


async def collect(
    config: Config, wait_s: float | None, settings: MqttSettings | None = None
) -> dict[str, Any]:
    from mnemolis.config.home import registry_from_config
    from mnemolis.sources.mqtt.source import MqttSource

    registry = registry_from_config(config)
    source = MqttSource(config, registry, settings)
    await source.start()
    try:
        report = await source.wait_for_devices(wait_s)
        now = source.cache.clock()
        devices = sorted((d for d in registry.devices() if d.refused is None), key=lambda d: d.name)
        return {
            "broker": source.settings.broker.address,
            "connected": report.connected,
            "complete": report.complete,
            "devices": [describe_device(source, d, now) for d in devices],
            "refused": [
                {
                    "key": r.key,
                    "name": r.name,
                    "type": r.type,
                    "origin": r.origin,
                    "reason": r.reason,
                }
                for r in source.refusals()
            ],
            "listed_at": time.time(),
        }
    finally:
        await source.close()


def _age(seconds: float | None) -> str:
    if seconds is None:
        return ""
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds)} s ago"


def format_listing(listing: dict[str, Any]) -> list[str]:
    lines = []
    if not listing["connected"]:
        lines.append(f"(the broker at {listing['broker']} did not answer: YAML devices only)")
    rows = [("name", "type", "area", "floor", "origin", "can do", "last state")]
    for d in listing["devices"]:
        can = ", ".join([*d["actions"], *(f"+{f}" for f in d["features"])])
        state = d["state"] or "(not reported)"
        if d["available"] is False:
            state += " [unavailable]"
        if d["age_s"] is not None:
            state += f" ({_age(d['age_s'])})"
        rows.append(
            (d["name"], d["type"], d["area"] or "", d["floor"] or "", d["origin"], can, state)
        )
    widths = [max(len(str(r[i])) for r in rows) for i in range(6)]
    for row in rows:
        cells = [str(c).ljust(widths[i]) for i, c in enumerate(row[:6])]
        lines.append("  ".join([*cells, str(row[6])]).rstrip())
    refused = listing["refused"]
    lines.append("")
    lines.append(f"{len(listing['devices'])} devices; {len(refused)} configs refused")
    for r in refused:
        label = f"{r['name']} ({r['type']})" if r["name"] else r["key"]
        lines.append(f"refused: {label} from {r['origin']}, {r['key']}: {r['reason']}")
    for d in listing["devices"]:
        for reason in (d.get("refused_parts") or {}).values():
            lines.append(f"refused part: {d['name']} ({d['type']}): {reason}")
    return lines
