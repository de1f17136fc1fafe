"""The home as `sources/mqtt.yaml` writes it: `devices:` and `rooms:`.

Both understanding (names, rooms, types) and the MQTT source (topics,
payloads) read them, so they are loaded with the rest of the configuration.
A room may name its ``floor``, so a routine can act on "the upstairs lights";
``floors:`` gives each floor its ``level`` (0 is the ground floor, so
"upstairs" and "downstairs" can be worked out) and its aliases.
Every wrong device or room is reported, not only the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemolis.config.problems import Problems
from mnemolis.config.yaml_at import At, as_mapping, as_strings, as_text, lower_words
from mnemolis.core.devices import TYPE_ACTIONS, Device, DeviceRegistry, Floor

if TYPE_CHECKING:
    from mnemolis.config import Config


@dataclass
class Home:
    devices: list[Device] = field(default_factory=list)
    rooms: dict[str, list[str]] = field(default_factory=dict)  # room -> its aliases
    floors: dict[str, list[str]] = field(default_factory=dict)  # floor -> its rooms
    floor_specs: list[Floor] = field(default_factory=list)  # with levels and aliases


def load_home(data: dict[str, Any], at: At) -> Home:
    """Devices, rooms and floors, every problem kept and raised together."""
    problems = Problems()
    devices: list[Device] = []
    with problems.each():
        devices = _devices(data, at, problems)
    rooms: dict[str, list[str]] = {}
    floors: dict[str, list[str]] = {}
    raw_rooms = data.get("rooms") or []
    if isinstance(raw_rooms, dict):
        raw_rooms = [{"name": k, "aliases": v} for k, v in raw_rooms.items()]
    if not isinstance(raw_rooms, list):
        problems.add((at / "rooms").error("rooms must be a list"))
        raw_rooms = []
    for i, room in enumerate(raw_rooms):
        with problems.each():
            _room(room, at / "rooms" / i, rooms, floors)
    specs: dict[str, tuple[int | None, list[str]]] = {}
    raw_floors = data.get("floors") or []
    if not isinstance(raw_floors, list):
        problems.add((at / "floors").error("floors must be a list"))
        raw_floors = []
    for i, floor in enumerate(raw_floors):
        with problems.each():
            name, level, aliases = _floor(floor, at / "floors" / i)
            specs[name] = (level, aliases)
            floors.setdefault(name, [])
    for device in devices:
        if device.room and device.room not in rooms:
            rooms[device.room] = []
    problems.raise_any()
    floor_specs = [
        Floor(name, specs.get(name, (None, []))[0], tuple(specs.get(name, (None, []))[1]), tuple(r))
        for name, r in floors.items()
    ]
    return Home(devices, rooms, floors, floor_specs)


def _floor(raw: Any, at: At) -> tuple[str, int | None, list[str]]:
    """``{name, level, aliases}``: a floor; its rooms say they are on it."""
    if isinstance(raw, str):
        return " ".join(raw.lower().split()), None, []
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise at.error("a floor must be a name or {name: ..., level: 0, aliases: [...]}")
    for key in raw:
        if key not in ("name", "level", "aliases"):
            raise (at / key).error(f"a floor: unknown key {key!r} (name, level, aliases)")
    level = raw.get("level")
    if level is not None and (not isinstance(level, int) or isinstance(level, bool)):
        raise (at / "level").error("a floor's level must be an integer (0 is the ground floor)")
    name = " ".join(raw["name"].lower().split())
    return name, level, lower_words(raw.get("aliases"), at / "aliases", "aliases")


def _room(raw: Any, at: At, rooms: dict[str, list[str]], floors: dict[str, list[str]]) -> None:
    if isinstance(raw, str):
        rooms[" ".join(raw.lower().split())] = []
        return
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise at.error("a room must be a name or {name: ..., aliases: [...], floor: ...}")
    for key in raw:
        if key not in ("name", "aliases", "floor"):
            raise (at / key).error(f"a room: unknown key {key!r} (name, aliases, floor)")
    name = " ".join(raw["name"].lower().split())
    rooms[name] = lower_words(raw.get("aliases"), at / "aliases", "aliases")
    if raw.get("floor") is not None:
        floor = " ".join(as_text(raw["floor"], at / "floor", "floor").lower().split())
        floors.setdefault(floor, []).append(name)


def load_devices(data: dict[str, Any], at: At) -> tuple[list[Device], dict[str, list[str]]]:
    home = load_home(data, at)
    return home.devices, home.rooms


def _devices(data: dict[str, Any], at: At, problems: Problems) -> list[Device]:
    devices: list[Device] = []
    seen: dict[str, int] = {}
    raw_devices = data.get("devices") or []
    if not isinstance(raw_devices, list):
        raise (at / "devices").error("devices must be a list")
    for i, raw in enumerate(raw_devices):
        with problems.each():
            device = _device(raw, at / "devices" / i)
            for n in device.names:
                if n in seen:
                    raise (at / "devices" / i).error(
                        f"device name {n!r} is already used by device #{seen[n] + 1}"
                    )
            for n in device.names:
                seen[n] = i
            devices.append(device)
    return devices


def _device(raw: Any, d_at: At) -> Device:
    """One device, checked (the first problem of a device is enough to fix it)."""
    raw = as_mapping(raw, d_at, "a device")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise d_at.error("a device needs a name")
    dtype = raw.get("type")
    if dtype not in TYPE_ACTIONS:
        raise (d_at / "type").error(
            f"device {name!r}: unknown type {dtype!r} (expected one of {', '.join(TYPE_ACTIONS)})"
        )
    allow = raw.get("allow")
    device = Device(
        name=name,
        type=dtype,
        room=raw.get("room"),
        aliases=as_strings(raw.get("aliases"), d_at / "aliases", "aliases"),
        features=as_strings(raw.get("features"), d_at / "features", "features"),
        id=str(raw.get("id") or ""),
        topics={str(k): str(v) for k, v in as_mapping(raw.get("topics"), d_at, "topics").items()},
        payloads=as_mapping(raw.get("payloads"), d_at / "payloads", "payloads"),
        schema=str(raw.get("schema", "default")),
        confirm=as_strings(raw.get("confirm"), d_at / "confirm", "confirm")
        if not isinstance(raw.get("confirm"), bool)
        else (["unlock", "open"] if raw.get("confirm") else []),
        allow=None if allow is None else as_strings(allow, d_at / "allow", "allow"),
        unit=raw.get("unit"),
        device_class=raw.get("device_class"),
    )
    return device


def registry_from_config(config: Config) -> DeviceRegistry:
    """The device registry of the home the configuration writes: its devices, rooms
    and floors. Discovery adds to it later; understanding and sources share it."""
    registry = DeviceRegistry(config.devices)
    for room, aliases in config.rooms.items():
        registry.add_room(room, aliases)
    for floor in config.floor_specs:
        registry.add_floor(floor)
    return registry
