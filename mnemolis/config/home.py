"""The home as `sources/mqtt.yaml` writes it: `devices:` and `rooms:`.

Both understanding (names, rooms, types) and the MQTT source (topics,
payloads) read them, so they are loaded with the rest of the configuration.
"""

from __future__ import annotations

from typing import Any

from mnemolis.config.yaml_at import At, as_mapping, as_strings, lower_words
from mnemolis.devices import TYPE_ACTIONS, Device


def load_devices(data: dict[str, Any], at: At) -> tuple[list[Device], dict[str, list[str]]]:
    devices: list[Device] = []
    seen: dict[str, int] = {}
    raw_devices = data.get("devices") or []
    if not isinstance(raw_devices, list):
        raise (at / "devices").error("devices must be a list")
    for i, raw in enumerate(raw_devices):
        d_at = at / "devices" / i
        raw = as_mapping(raw, d_at, "a device")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise d_at.error("a device needs a name")
        dtype = raw.get("type")
        if dtype not in TYPE_ACTIONS:
            raise (d_at / "type").error(
                f"device {name!r}: unknown type {dtype!r} (expected one of "
                f"{', '.join(TYPE_ACTIONS)})"
            )
        allow = raw.get("allow")
        device = Device(
            name=name,
            type=dtype,
            room=raw.get("room"),
            aliases=as_strings(raw.get("aliases"), d_at / "aliases", "aliases"),
            features=as_strings(raw.get("features"), d_at / "features", "features"),
            id=str(raw.get("id") or ""),
            topics={
                str(k): str(v) for k, v in as_mapping(raw.get("topics"), d_at, "topics").items()
            },
            payloads=as_mapping(raw.get("payloads"), d_at / "payloads", "payloads"),
            schema=str(raw.get("schema", "default")),
            confirm=as_strings(raw.get("confirm"), d_at / "confirm", "confirm")
            if not isinstance(raw.get("confirm"), bool)
            else (["unlock", "open"] if raw.get("confirm") else []),
            allow=None if allow is None else as_strings(allow, d_at / "allow", "allow"),
            unit=raw.get("unit"),
            device_class=raw.get("device_class"),
        )
        for n in device.names:
            if n in seen:
                raise d_at.error(f"device name {n!r} is already used by device #{seen[n] + 1}")
            seen[n] = i
        devices.append(device)
    rooms: dict[str, list[str]] = {}
    raw_rooms = data.get("rooms") or []
    if isinstance(raw_rooms, dict):
        raw_rooms = [{"name": k, "aliases": v} for k, v in raw_rooms.items()]
    for i, room in enumerate(raw_rooms):
        r_at = at / "rooms" / i
        if isinstance(room, str):
            rooms[" ".join(room.lower().split())] = []
        elif isinstance(room, dict) and isinstance(room.get("name"), str):
            rooms[" ".join(room["name"].lower().split())] = lower_words(
                room.get("aliases"), r_at / "aliases", "aliases"
            )
        else:
            raise r_at.error("a room must be a name or {name: ..., aliases: [...]}")
    for device in devices:
        if device.room and device.room not in rooms:
            rooms[device.room] = []
    return devices, rooms
