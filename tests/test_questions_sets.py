"""Questions about devices and sets of them: intent, the exact devices, the values.

Over the question home (tests/support_questions.py): a question never acts,
"how many / which / are any / are all / is anything" list every device asked
about (the set, narrowed by area), and the state asked about is a value.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.understand import Understander
from tests.support_questions import entity_ids, question_understander

LIGHTS = {
    "light.bedroom",
    "light.hallway",
    "light.kitchen_ceiling",
    "light.kitchen_spots",
    "light.living_room_lamp",
    "light.office_desk",
    "light.porch",
}
KITCHEN_LIGHTS = {"light.kitchen_ceiling", "light.kitchen_spots"}
WINDOWS = {
    "binary_sensor.bedroom_window",
    "binary_sensor.kitchen_window",
    "binary_sensor.office_window",
}
LOCKS = {"lock.front_door", "lock.back_door"}
ON_OFF = LIGHTS | {
    "switch.coffee_maker",
    "switch.wall_double_left",
    "switch.tv_plug",
    "fan.living_room",
    "fan.kitchen",
    "climate.thermostat",
    "vacuum.robot",
}

# text, intent, device ids, values (only those named are checked)
Row = tuple[str, str, set[str], dict[str, Any]]

ROWS: list[Row] = [
    # ---- a question is never an action, whatever it contains
    (
        "is the wall switch double left on",
        "device.state",
        {"switch.wall_double_left"},
        {"state": "on"},
    ),
    ("is the tv plug on", "device.state", {"switch.tv_plug"}, {"state": "on"}),
    ("did i leave the coffee maker on", "device.state", {"switch.coffee_maker"}, {"state": "on"}),
    ("is the living room fan running", "device.state", {"fan.living_room"}, {"state": "on"}),
    (
        "are the bedroom blinds closed",
        "device.state",
        {"cover.bedroom_blinds"},
        {"state": "closed"},
    ),
    ("is the back door unlocked", "device.state", {"lock.back_door"}, {"state": "unlocked"}),
    ("is the vacuum docked", "device.state", {"vacuum.robot"}, {"state": "docked"}),
    ("is the robot vacuum cleaning", "device.state", {"vacuum.robot"}, {"state": "cleaning"}),
    ("is the front door jammed", "device.state", {"lock.front_door"}, {"state": "jammed"}),
    ("is the thermostat on", "device.state", {"climate.thermostat"}, {"state": "on"}),
    # ---- requests that only look like questions still act
    ("any chance you could turn on the porch light", "device.turn_on", {"light.porch"}, {}),
    ("is it possible to turn off the hallway light", "device.turn_off", {"light.hallway"}, {}),
    ("how about turning on the bedroom light", "device.turn_on", {"light.bedroom"}, {}),
    # ---- any / all / anything
    ("are any devices powered on?", "device.state", ON_OFF, {"quantifier": "any", "state": "on"}),
    (
        "any living room curtains open?",
        "device.state",
        {"cover.living_room_curtains"},
        {"quantifier": "any", "state": "open"},
    ),
    (
        "is anything on in the kitchen",
        "device.state",
        KITCHEN_LIGHTS | {"switch.coffee_maker", "fan.kitchen"},
        {"quantifier": "any", "state": "on", "room": "kitchen"},
    ),
    ("are all the lights off", "device.state", LIGHTS, {"quantifier": "all", "state": "off"}),
    ("is any light on", "device.state", LIGHTS, {"quantifier": "any", "state": "on"}),
    ("are all the doors locked", "device.state", LOCKS, {"quantifier": "all", "state": "locked"}),
    ("are any windows open", "device.state", WINDOWS, {"quantifier": "any", "state": "open"}),
    (
        "are all the windows closed",
        "device.state",
        WINDOWS,
        {"quantifier": "all", "state": "closed"},
    ),
    (
        "is any window open in the office",
        "device.state",
        {"binary_sensor.office_window"},
        {"quantifier": "any", "state": "open"},
    ),
    # ---- how many
    ("how many lights are on", "device.count", LIGHTS, {"state": "on"}),
    ("how many lights are on in the kitchen", "device.count", KITCHEN_LIGHTS, {"state": "on"}),
    ("how many fans are on", "device.count", {"fan.kitchen", "fan.living_room"}, {"state": "on"}),
    ("how many doors are unlocked", "device.count", LOCKS, {"state": "unlocked"}),
    ("how many windows are open", "device.count", WINDOWS, {"state": "open"}),
    # ---- which
    ("which lights are on", "device.which", LIGHTS, {"state": "on"}),
    ("what lights are on", "device.which", LIGHTS, {"state": "on"}),
    ("which lights are off in the kitchen", "device.which", KITCHEN_LIGHTS, {"state": "off"}),
    ("which doors are unlocked", "device.which", LOCKS, {"state": "unlocked"}),
    ("which windows are open", "device.which", WINDOWS, {"state": "open"}),
    ("which things are hot", "device.which", {"binary_sensor.server_heat"}, {"state": "on"}),
    (
        "which things are on in the living room",
        "device.which",
        {
            "climate.thermostat",
            "fan.living_room",
            "light.living_room_lamp",
            "switch.tv_plug",
            "switch.wall_double_left",
        },
        {"state": "on"},
    ),
    # ---- a sensor called "light" is not what "the lights" means
    ("are the lights on", "device.state", LIGHTS, {"state": "on"}),
    ("is the light sensor on", "device.state", {"binary_sensor.garden_light"}, {"state": "on"}),
    # ---- attributes of a reading
    (
        "what is the thermostat set to",
        "sensor.read",
        {"climate.thermostat"},
        {"attribute": "target_temperature"},
    ),
    (
        "what temperature is the thermostat set to",
        "sensor.read",
        {"climate.thermostat"},
        {"attribute": "target_temperature"},
    ),
    (
        "what mode is the thermostat in",
        "sensor.read",
        {"climate.thermostat"},
        {"attribute": "mode"},
    ),
]


@pytest.fixture(scope="module")
def home(config: Config) -> tuple[Understander, DeviceRegistry]:
    return question_understander(config)


def check_row(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    understander, registry = home
    text, intent, devices, values = row
    plan = understander.understand(text)
    parts = plan.parts()
    assert len(parts) == 1, [p.text for p in parts]
    part = parts[0]
    assert part.intent == intent, (text, part.intent, part.provenance)
    assert entity_ids(registry, part.slots.get("device")) == devices, (text, part.slots)
    for name, value in values.items():
        assert part.slots.get(name) == value, (text, name, part.slots)


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_questions_and_sets(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    check_row(home, row)


def test_a_question_about_one_of_several_asks_which(
    home: tuple[Understander, DeviceRegistry],
) -> None:
    understander, _ = home
    plan = understander.understand("is the light on")
    (part,) = plan.parts()
    assert part.intent == "device.state"
    assert "device" not in part.slots
    assert plan.clarify is not None and "kitchen spots" in plan.clarify
    assert "garden" not in plan.clarify  # the sensor called "light" is not one of them
