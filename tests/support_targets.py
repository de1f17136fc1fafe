"""A home of clashing names for the entity-resolution tests: two "ceiling light"s, a
binary sensor called "Light", doors with no area, five floors, names with
underscores, hyphens and digits; and how a plan's ``device`` slot maps to ids
(`registry.get` first, then `registry.by_name`, as the evaluation does)."""

from __future__ import annotations

import dataclasses
from typing import Any

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry, Floor
from mnemolis.core.plan import Part, Plan
from mnemolis.understand import Understander

FLOORS = [
    Floor("basement", -1, ("cellar level",), ("cellar",)),
    Floor("ground floor", 0, (), ("kitchen", "living room", "hallway", "garage")),
    Floor("first floor", 1, (), ("bedroom", "office", "bathroom")),
    Floor("attic", 2, ("top floor",), ("kids room",)),
]
ROOMS = {"garden": ["back garden"], "living room": ["lounge"]}


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


DEVICES = [
    _d("light_kitchen_ceiling", "ceiling light", "light", "kitchen", features=["brightness"]),
    _d("light_bedroom_ceiling", "ceiling light", "light", "bedroom", features=["brightness"]),
    _d("light_kitchen_counter", "kitchen counter lights", "light", "kitchen"),
    _d("bs_office_light", "light", "binary_sensor", "office", device_class="light"),
    _d("fan_kitchen", "kitchen extractor", "fan", "kitchen"),
    _d("fan_living", "living room fan", "fan", "living room"),
    _d("lock_back", "back door", "lock", "kitchen"),
    _d("lock_patio", "patio door", "lock", None),
    _d("lock_side", "side door", "lock", None),
    _d("lock_shed", "shed door", "lock", None),
    _d("light_garage", "garage light", "light", "garage"),
    _d("light_living_lamp", "living room lamp", "light", "living room"),
    _d("light_bulb", "bulb", "light", None),
    _d("light_bulb_enddevice", "bulb_enddevice", "light", None),
    _d("light_lamp_1", "lamp 1", "light", "office"),
    _d("light_lamp_2", "lamp 2", "light", "office"),
    _d("light_desk", "desk_lamp", "light", "office"),
    _d("light_hall_spot", "hall-way spot", "light", "hallway"),
    _d("bs_hall_motion", "hallway motion", "binary_sensor", "hallway", device_class="motion"),
    _d(
        "sensor_bedroom_temp",
        "bedroom temperature",
        "sensor",
        "bedroom",
        device_class="temperature",
    ),
    _d(
        "sensor_kitchen_temp",
        "kitchen temperature",
        "sensor",
        "kitchen",
        device_class="temperature",
    ),
    _d("light_kids", "kids room light", "light", "kids room"),
    _d("light_cellar", "cellar light", "light", "cellar"),
    _d("vacuum", "robot vacuum", "vacuum", None),
    _d("cover_living_blinds", "living room blinds", "cover", "living room", device_class="blind"),
    _d("cover_office_blinds", "office blinds", "cover", "office", device_class="blind"),
    _d("cover_garage", "garage door", "cover", "garage", device_class="garage"),
    _d("light_bedside_left", "bedside lamp left", "light", "bedroom"),
    _d("light_bedside_right", "bedside lamp right", "light", "bedroom"),
    _d("bs_garden_motion", "garden", "binary_sensor", "garden", device_class="motion"),
    _d("light_garden_a", "garden light a", "light", "garden"),
    _d("light_garden_b", "garden light b", "light", "garden"),
]

LIGHTS = sorted(d.id for d in DEVICES if d.type == "light")


def clashing_registry() -> DeviceRegistry:
    registry = DeviceRegistry([dataclasses.replace(d) for d in DEVICES])
    for room, aliases in ROOMS.items():
        registry.add_room(room, aliases)
    for floor in FLOORS:
        registry.add_floor(floor)
    return registry


def home_config(config: Config) -> Config:
    """The shipped language and intents, without the demo home's devices."""
    return dataclasses.replace(config, devices=[], rooms={}, floors={}, floor_specs=[])


def clashing_understander(config: Config) -> Understander:
    return Understander(home_config(config), clashing_registry())


def ids_of(registry: DeviceRegistry, value: Any) -> list[str]:
    """The device ids a ``device`` slot value means (the evaluation's mapping)."""
    values = value if isinstance(value, list) else [value] if value is not None else []
    out = []
    for v in values:
        device = registry.get(v) or registry.by_name(v)
        out.append(device.id if device is not None else f"?{v}")
    return sorted(out)


def part_ids(registry: DeviceRegistry, part: Part) -> list[str]:
    return ids_of(registry, part.slots.get("device"))


def option_ids(registry: DeviceRegistry, part: Part) -> list[str]:
    return ids_of(registry, part.provenance.get("options") or [])


def only_part(plan: Plan) -> Part:
    parts = plan.parts()
    assert len(parts) == 1, [p.to_dict() for p in parts]
    return parts[0]


def check_part(
    home: Understander, text: str, room: str | None, intent: str, ids: list[str], options: list[str]
) -> Part:
    """The one part of ``text`` (said in ``room``) has this intent, these devices and
    offers these in a "which one"; it is returned for further checks."""
    part = only_part(home.understand(text, room=room))
    assert part.intent == intent, part.to_dict()
    assert part_ids(home.registry, part) == sorted(ids), part.to_dict()
    assert option_ids(home.registry, part) == sorted(options), part.to_dict()
    return part


def device(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    """A device of a small home of a test's own."""
    return _d(ident, name, dtype, room, **kw)


def small_home(config: Config, devices: list[Device]) -> Understander:
    """The shipped language and intents over ``devices`` and the rooms they are in."""
    registry = DeviceRegistry(list(devices))
    for room in sorted({d.room for d in devices if d.room}):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)
