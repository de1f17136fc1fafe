"""A home with many device classes, for the question and sensor tables.

Names follow Home Assistant users' habits (area + what it is), with the
clashes that matter for questions: a binary sensor called "light", a switch
whose name ends in "left", several sensors of one class in different areas,
and devices with no area. Device ids are what the tables expect.
"""

from __future__ import annotations

from typing import Any

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander

ROOMS: dict[str, list[str]] = {
    "kitchen": [],
    "living room": ["lounge"],
    "bedroom": [],
    "hallway": ["hall"],
    "bathroom": [],
    "office": ["study"],
    "garage": [],
    "porch": [],
    "garden": [],
    "utility room": ["laundry"],
}

# id, name, type, room, device class, unit
_DEVICES: list[tuple[str, str, str, str | None, str | None, str | None]] = [
    ("light.kitchen_ceiling", "kitchen ceiling light", "light", "kitchen", None, None),
    ("light.kitchen_spots", "kitchen spots", "light", "kitchen", None, None),
    ("light.living_room_lamp", "living room lamp", "light", "living room", None, None),
    ("light.bedroom", "bedroom light", "light", "bedroom", None, None),
    ("light.hallway", "hallway light", "light", "hallway", None, None),
    ("light.porch", "porch light", "light", "porch", None, None),
    ("light.office_desk", "office desk lamp", "light", "office", None, None),
    ("switch.coffee_maker", "coffee maker", "switch", "kitchen", None, None),
    ("switch.wall_double_left", "wall switch double left", "switch", "living room", None, None),
    ("switch.tv_plug", "tv plug", "switch", "living room", None, None),
    ("fan.living_room", "living room fan", "fan", "living room", None, None),
    ("fan.kitchen", "kitchen fan", "fan", "kitchen", None, None),
    ("lock.front_door", "front door", "lock", "hallway", None, None),
    ("lock.back_door", "back door", "lock", "kitchen", None, None),
    ("cover.garage_door", "garage door", "cover", "garage", "garage", None),
    ("cover.living_room_curtains", "living room curtains", "cover", "living room", "curtain", None),
    ("cover.bedroom_blinds", "bedroom blinds", "cover", "bedroom", "blind", None),
    ("climate.thermostat", "thermostat", "climate", "living room", None, None),
    ("vacuum.robot", "robot vacuum", "vacuum", None, None, None),
    ("binary_sensor.kitchen_window", "kitchen window", "binary_sensor", "kitchen", "window", None),
    ("binary_sensor.bedroom_window", "bedroom window", "binary_sensor", "bedroom", "window", None),
    ("binary_sensor.office_window", "office window", "binary_sensor", "office", "window", None),
    ("binary_sensor.hallway_motion", "hallway motion", "binary_sensor", "hallway", "motion", None),
    (
        "binary_sensor.kitchen_occupancy",
        "kitchen presence sensor",
        "binary_sensor",
        "kitchen",
        "occupancy",
        None,
    ),
    (
        "binary_sensor.hallway_co",
        "hallway co alarm",
        "binary_sensor",
        "hallway",
        "carbon_monoxide",
        None,
    ),
    (
        "binary_sensor.kitchen_smoke",
        "kitchen smoke detector",
        "binary_sensor",
        "kitchen",
        "smoke",
        None,
    ),
    (
        "binary_sensor.bathroom_leak",
        "bathroom leak sensor",
        "binary_sensor",
        "bathroom",
        "moisture",
        None,
    ),
    (
        "binary_sensor.washer_leak",
        "washing machine water sensor",
        "binary_sensor",
        "utility room",
        "moisture",
        None,
    ),
    ("binary_sensor.phone_battery", "phone battery", "binary_sensor", None, "battery", None),
    ("binary_sensor.garden_light", "light", "binary_sensor", "garden", "light", None),
    (
        "binary_sensor.internet",
        "internet connection",
        "binary_sensor",
        "office",
        "connectivity",
        None,
    ),
    (
        "binary_sensor.washer_running",
        "washing machine",
        "binary_sensor",
        "utility room",
        "running",
        None,
    ),
    ("binary_sensor.hub_update", "hub firmware", "binary_sensor", None, "update", None),
    ("binary_sensor.mailbox", "mailbox", "binary_sensor", "porch", "vibration", None),
    ("binary_sensor.server_heat", "server cupboard heat", "binary_sensor", "office", "heat", None),
    (
        "sensor.living_room_temperature",
        "living room temperature",
        "sensor",
        "living room",
        "temperature",
        "°C",
    ),
    ("sensor.bedroom_temperature", "bedroom temperature", "sensor", "bedroom", "temperature", "°C"),
    ("sensor.bedroom_humidity", "bedroom humidity", "sensor", "bedroom", "humidity", "%"),
    ("sensor.bathroom_humidity", "bathroom humidity", "sensor", "bathroom", "humidity", "%"),
    ("sensor.outdoor_temperature", "outdoor temperature", "sensor", None, "temperature", "°C"),
    ("sensor.office_co2", "office air quality", "sensor", "office", "carbon_dioxide", "ppm"),
    (
        "sensor.living_room_pm25",
        "living room particulate matter",
        "sensor",
        "living room",
        "pm25",
        "µg/m³",
    ),
    ("sensor.dishwasher_power", "dishwasher power", "sensor", "kitchen", "power", "W"),
    ("sensor.house_energy", "house energy", "sensor", None, "energy", "kWh"),
    ("sensor.outdoor_pressure", "outdoor pressure", "sensor", None, "pressure", "hPa"),
    ("sensor.garden_illuminance", "garden illuminance", "sensor", "garden", "illuminance", "lx"),
    ("sensor.phone_battery_level", "phone battery level", "sensor", None, "battery", "%"),
    ("sensor.car_mileage", "car mileage distance", "sensor", None, "distance", "km"),
]


def question_devices() -> list[Device]:
    return [
        Device(name=name, type=kind, room=room, device_class=cls, unit=unit, id=device_id)
        for device_id, name, kind, room, cls, unit in _DEVICES
    ]


def question_registry() -> DeviceRegistry:
    registry = DeviceRegistry(question_devices())
    for room, aliases in ROOMS.items():
        registry.add_room(room, aliases)
    return registry


def question_understander(config: Config) -> tuple[Understander, DeviceRegistry]:
    registry = question_registry()
    return Understander(config, registry=registry), registry


def entity_ids(registry: DeviceRegistry, value: Any) -> set[str]:
    """The device ids a device slot value stands for (common.md: id first, else name)."""
    values = value if isinstance(value, list) else [value] if value is not None else []
    out = set()
    for v in values:
        device = registry.get(v) or registry.by_name(v)
        out.add(device.id if device is not None else f"?{v}")
    return out
