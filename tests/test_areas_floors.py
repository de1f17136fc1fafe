"""Areas, floors and where the request comes from, with the exact device ids.

A named area selects only devices in it (a device with no area is in none:
"unlock the kitchen doors" never reaches the doors that have no area); a
floor is the areas on it; "upstairs" and "downstairs" are worked out from
the floors' levels and the area the request comes from; "everywhere" is the
whole house; with no area named, a type word means the origin's area.
"""

from __future__ import annotations

import pytest

from mnemolis.config import Config
from mnemolis.understand import Understander
from tests.support_targets import (
    LIGHTS,
    check_part,
    clashing_understander,
    only_part,
    option_ids,
    part_ids,
)

GROUND_LIGHTS = [
    "light_garage",
    "light_hall_spot",
    "light_kitchen_ceiling",
    "light_kitchen_counter",
    "light_living_lamp",
]
FIRST_LIGHTS = [
    "light_bedroom_ceiling",
    "light_bedside_left",
    "light_bedside_right",
    "light_desk",
    "light_lamp_1",
    "light_lamp_2",
]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    return clashing_understander(config)


# (text, origin room, intent, device ids, ids offered in a "which one")
ROWS: list[tuple[str, str | None, str, list[str], list[str]]] = [
    ("unlock the kitchen doors", None, "device.unlock", ["lock_back"], []),
    ("turn off the lights on the first floor", None, "device.turn_off", FIRST_LIGHTS, []),
    ("turn off the lights on the ground floor", None, "device.turn_off", GROUND_LIGHTS, []),
    ("turn off the lights in the attic", None, "device.turn_off", ["light_kids"], []),
    ("turn off the lights on the top floor", None, "device.turn_off", ["light_kids"], []),
    ("turn off the lights in the basement", None, "device.turn_off", ["light_cellar"], []),
    (
        "turn off the lights upstairs",
        None,
        "device.turn_off",
        [*FIRST_LIGHTS, "light_kids"],
        [],
    ),
    (
        "turn off the lights downstairs",
        None,
        "device.turn_off",
        [*GROUND_LIGHTS, "light_cellar"],
        [],
    ),
    ("turn off the lights upstairs", "bedroom", "device.turn_off", ["light_kids"], []),
    (
        "turn off the lights downstairs",
        "kids room",
        "device.turn_off",
        [*GROUND_LIGHTS, *FIRST_LIGHTS, "light_cellar"],
        [],
    ),
    ("turn off all the lights everywhere", None, "device.turn_off", LIGHTS, []),
    ("turn off the lights in the whole house", "kitchen", "device.turn_off", LIGHTS, []),
    # the origin's area, when none is named
    (
        "turn on the lights",
        "kitchen",
        "device.turn_on",
        ["light_kitchen_ceiling", "light_kitchen_counter"],
        [],
    ),
    ("turn on the ceiling light", "bedroom", "device.turn_on", ["light_bedroom_ceiling"], []),
    ("turn on the lights", "lounge", "device.turn_on", ["light_living_lamp"], []),
    ("how warm is it in here", "bedroom", "sensor.read", ["sensor_bedroom_temp"], []),
    ("turn on the fan", "kitchen", "device.turn_on", ["fan_kitchen"], []),
    # a device named exactly wins wherever the request comes from
    ("turn on the living room lamp", "kitchen", "device.turn_on", ["light_living_lamp"], []),
    ("turn on the garage light", "bedroom", "device.turn_on", ["light_garage"], []),
    # a named area beats the origin's
    (
        "turn on the lights in the office",
        "kitchen",
        "device.turn_on",
        ["light_desk", "light_lamp_1", "light_lamp_2"],
        [],
    ),
    # robots go where they are sent
    ("vacuum the kitchen", None, "device.start", ["vacuum"], []),
]


@pytest.mark.parametrize(("text", "room", "intent", "ids", "options"), ROWS)
def test_areas(
    home: Understander,
    text: str,
    room: str | None,
    intent: str,
    ids: list[str],
    options: list[str],
) -> None:
    check_part(home, text, room, intent, ids, options)


@pytest.mark.parametrize(
    ("text", "room"),
    [
        ("unlock the doors in the garage", None),  # no lock there; the garage door is a cover
        ("turn on the fan in the bedroom", None),
        ("turn off the lights upstairs", "kids room"),  # nothing above the attic
        ("unlock the doors in the garden", "kitchen"),
    ],
)
def test_an_area_without_such_a_device_selects_nothing(
    home: Understander, text: str, room: str | None
) -> None:
    """Never a device elsewhere, nor one that has no area."""
    for part in home.understand(text, room=room).parts():
        assert part_ids(home.registry, part) == [], part.to_dict()
        assert option_ids(home.registry, part) == [], part.to_dict()


def test_without_an_origin_a_type_word_asks(home: Understander) -> None:
    part = only_part(home.understand("turn on the fan"))
    assert option_ids(home.registry, part) == ["fan_kitchen", "fan_living"]
