"""Questions read in their own words: the room spoken in, a quantity, a state word.

"is the window open" asked in the study is the study's window; "what's the
temperature" asked in a room reads its sensor, not the forecast (a day still
asks the forecast); "how many kilometres are on the van" is a reading, not a
count; "set the humidity in the den to 45%" is the den humidifier's humidity,
not the den lamp's brightness; "is the boiler ok", "is the baby crying", "is
it dark outside" ask the one binary sensor a state word of its class and the
words of its name point at. A home of our own, unlike the big home's names.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Capabilities, Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.support_questions import entity_ids

ROOMS: dict[str, list[str]] = {
    "study": [],
    "den": [],
    "nursery": [],
    "yard": ["outside", "outdoors"],
    "scullery": [],
}

# id, name, type, room, device class, unit
_DEVICES: list[tuple[str, str, str, str | None, str | None, str | None]] = [
    ("bs.study_window", "study window", "binary_sensor", "study", "window", None),
    ("bs.den_window", "den window", "binary_sensor", "den", "window", None),
    ("bs.nursery_window", "nursery window", "binary_sensor", "nursery", "window", None),
    ("bs.scullery_leak", "scullery leak", "binary_sensor", "scullery", "moisture", None),
    ("bs.study_leak", "study leak", "binary_sensor", "study", "moisture", None),
    ("s.den_temperature", "den temperature", "sensor", "den", "temperature", "°C"),
    ("s.nursery_temperature", "nursery temperature", "sensor", "nursery", "temperature", "°C"),
    ("s.yard_temperature", "yard thermometer", "sensor", "yard", "temperature", "°C"),
    ("s.den_humidity", "den humidity", "sensor", "den", "humidity", "%"),
    ("s.nursery_humidity", "nursery humidity", "sensor", "nursery", "humidity", "%"),
    ("s.van_odometer", "van odometer", "sensor", None, "distance", "km"),
    ("humidifier.den", "den humidifier", "humidifier", "den", None, None),
    ("light.den_lamp", "den lamp", "light", "den", None, None),
    ("light.study_lamp", "study lamp", "light", "study", None, None),
    ("bs.dryer_running", "tumble dryer running", "binary_sensor", "scullery", "running", None),
    ("bs.boiler_fault", "boiler fault", "binary_sensor", "scullery", "problem", None),
    ("bs.baby_cam_sound", "baby cam audio", "binary_sensor", "nursery", "sound", None),
    ("bs.chest_freezer", "chest freezer alarm", "binary_sensor", "scullery", "cold", None),
    ("bs.daylight", "daylight", "binary_sensor", None, "light", None),
    ("bs.barn_door", "barn door", "binary_sensor", "yard", "door", None),
]


# climates and what they announce: "fan only" is a mode of one, "fan" a type word too
_CLIMATES = [
    ("climate.study_ac", "study air conditioner", "study", ("off", "cool", "fan_only")),
    ("climate.den_radiator", "den radiator", "den", ("off", "heat")),
]


@pytest.fixture(scope="module")
def home(config: Config) -> tuple[Understander, DeviceRegistry]:
    devices = [
        Device(name=name, type=kind, room=room, device_class=cls, unit=unit, id=device_id)
        for device_id, name, kind, room, cls, unit in _DEVICES
    ]
    devices += [
        Device(name=name, type="climate", room=room, id=i, caps=Capabilities(modes=modes))
        for i, name, room, modes in _CLIMATES
    ]
    devices.append(Device(name="den fan", type="fan", room="den", id="fan.den"))
    registry = DeviceRegistry(devices)
    for room, aliases in ROOMS.items():
        registry.add_room(room, aliases)
    return Understander(config, registry=registry), registry


# text, room spoken in, intent, device ids, slot values
Row = tuple[str, str | None, str, set[str], dict[str, Any]]

ROWS: list[Row] = [
    # the room spoken in: "the window" is its window; "windows", "any", "a leak" the set
    ("is the window open", "study", "device.state", {"bs.study_window"}, {"state": "open"}),
    ("is the window closed", "nursery", "device.state", {"bs.nursery_window"}, {"state": "closed"}),
    (
        "are the windows open",
        "study",
        "device.state",
        {"bs.study_window", "bs.den_window", "bs.nursery_window"},
        {"state": "open", "quantifier": "all"},
    ),
    ("is there a leak", "den", "sensor.read", {"bs.scullery_leak", "bs.study_leak"}, {}),
    ("what's the humidity", "nursery", "sensor.read", {"s.nursery_humidity"}, {}),
    ("what's the temperature", "den", "sensor.read", {"s.den_temperature"}, {}),
    ("what's the temperature in here", "nursery", "sensor.read", {"s.nursery_temperature"}, {}),
    ("how warm is it in here", "den", "sensor.read", {"s.den_temperature"}, {}),
    # an area with a sensor of the class: its reading, not the forecast
    ("what's the temperature outside", None, "sensor.read", {"s.yard_temperature"}, {}),
    # a unit after "how many" is a quantity
    ("how many kilometres are on the van", None, "sensor.read", {"s.van_odometer"}, {}),
    (
        "how many lamps are on",
        None,
        "device.count",
        {"light.den_lamp", "light.study_lamp"},
        {"state": "on"},
    ),
    # a quantity word names the value, and so the device
    (
        "set the humidity in the den to 45%",
        None,
        "device.set_humidity",
        {"humidifier.den"},
        {"humidity": 45},
    ),
    (
        "set the den lamp to 45%",
        None,
        "device.set_brightness",
        {"light.den_lamp"},
        {"brightness": 45},
    ),
    (
        "what humidity is the humidifier set to",
        None,
        "sensor.read",
        {"humidifier.den"},
        {"attribute": "target_humidity"},
    ),
    # a mode said in words holding a type word ("fan"): the climate that announced it
    (
        "put the ac in fan only mode",
        None,
        "device.set_mode",
        {"climate.study_ac"},
        {"mode": "fan_only"},
    ),
    (
        "set the den radiator to heat",
        None,
        "device.set_mode",
        {"climate.den_radiator"},
        {"mode": "heat"},
    ),
    # a state word of a class and the words of a name
    ("is the tumble dryer done", None, "device.state", {"bs.dryer_running"}, {"state": "off"}),
    ("is the boiler ok", None, "device.state", {"bs.boiler_fault"}, {"state": "off"}),
    ("is the baby crying", None, "device.state", {"bs.baby_cam_sound"}, {"state": "on"}),
    ("is the chest freezer too warm", None, "device.state", {"bs.chest_freezer"}, {"state": "off"}),
    ("is it dark outside", None, "device.state", {"bs.daylight"}, {"state": "off"}),
    ("is the barn closed", None, "device.state", {"bs.barn_door"}, {"state": "closed"}),
]

# a day asks the forecast, wherever it is asked
FORECAST: list[tuple[str, str | None]] = [
    ("what's the temperature tomorrow", "den"),
    ("what will the temperature be tomorrow", None),
]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] + (f" @{r[1]}" if r[1] else "") for r in ROWS])
def test_questions_in_their_own_words(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    understander, registry = home
    text, room, intent, devices, values = row
    (part,) = understander.understand(text, room=room).parts()
    assert part.intent == intent, (text, part.intent, part.slots)
    assert entity_ids(registry, part.slots.get("device")) == devices, (text, part.slots)
    for slot, value in values.items():
        assert part.slots.get(slot) == value, (text, slot, part.slots)


@pytest.mark.parametrize("text, room", FORECAST)
def test_a_day_is_the_forecast(
    home: tuple[Understander, DeviceRegistry], text: str, room: str | None
) -> None:
    understander, _ = home
    (part,) = understander.understand(text, room=room).parts()
    assert part.intent == "weather.forecast", (text, part.slots)
