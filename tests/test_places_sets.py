"""Where a request points, on a home whose floors are called "downstairs" and
"upstairs" (and whose ground floor is also "the first floor", US style), with
shared names, a light named like its area and two robots.

A floor's own name or alias means that floor only; a room said next to a floor
is that room on it; a robot that lives on a floor goes before one that roams;
a shared name said in the plural or after "all" is every device of it, and a
word of one's area's name picks it; an area-level value acts on the area's
lights; a singular type word that is not its type's own word asks which one;
a type word in a set question is not swallowed by a light named like the area.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry, Floor
from mnemolis.understand import Understander
from tests.support_targets import check_part, home_config

FLOORS = [
    Floor("downstairs", 0, ("first floor", "main floor"), ("lounge", "galley", "den")),
    Floor("upstairs", 1, ("second floor",), ("loft bath", "suite", "toby's room", "landing")),
    Floor("basement", -1, ("lower level",), ("cellar",)),
]
ROOMS = {"suite": ["bedroom"], "toby's room": ["boys room"], "loft bath": ["upstairs bath"]}


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


DEVICES = [
    _d("l_galley", "galley", "light", "galley", features=["brightness"]),
    _d("l_galley_spots", "spots", "light", "galley", features=["brightness"]),
    _d("l_lounge", "reading light", "light", "lounge", features=["brightness"]),
    _d("l_den_reader", "reader", "light", "den", features=["brightness"]),
    _d("l_den_banker", "banker lamp", "light", "den", features=["brightness"]),
    _d("l_toby_banker", "banker lamp", "light", "toby's room", features=["brightness"]),
    _d("l_suite_top", "suite top", "light", "suite", features=["brightness"]),
    _d("l_suite_side", "bedside", "light", "suite", features=["brightness"]),
    _d("l_bath", "mirror", "light", "loft bath", features=["brightness"]),
    _d("l_landing", "landing light", "light", "landing"),
    _d("l_cellar", "cellar bulb", "light", "cellar"),
    _d("f_lounge", "paddle fan", "fan", "lounge"),
    _d("f_suite", "paddle fan", "fan", "suite"),
    _d("v_roam", "dusty", "vacuum", None),
    _d("v_landing", "climber", "vacuum", "landing"),
    _d("w_lounge", "lounge window", "binary_sensor", "lounge", device_class="window"),
    _d("w_cellar", "cellar window", "binary_sensor", "cellar", device_class="window"),
]
DOWN_LIGHTS = ["l_den_banker", "l_den_reader", "l_galley", "l_galley_spots", "l_lounge"]
UP_LIGHTS = ["l_bath", "l_landing", "l_suite_side", "l_suite_top", "l_toby_banker"]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry([dataclasses.replace(d) for d in DEVICES])
    for room, aliases in ROOMS.items():
        registry.add_room(room, aliases)
    for floor in FLOORS:
        registry.add_floor(floor)
    return Understander(home_config(config), registry)


# (text, origin room, intent, device ids, ids offered in a "which one", values)
ROWS: list[tuple[str, str | None, str, list[str], list[str], dict[str, Any]]] = [
    # a floor's name or alias is that floor, not "every floor below" nor a level
    ("turn off the lights downstairs", None, "device.turn_off", DOWN_LIGHTS, [], {}),
    ("downstairs lights off", "suite", "device.turn_off", DOWN_LIGHTS, [], {}),
    ("turn off the first floor lights", None, "device.turn_off", DOWN_LIGHTS, [], {}),
    ("are any windows open downstairs", None, "device.state", ["w_lounge"], [], {}),
    ("turn off the lights upstairs", "suite", "device.turn_off", UP_LIGHTS, [], {}),
    # "on upstairs": the state, then the floor
    ("which lights are on upstairs", None, "device.which", UP_LIGHTS, [], {"state": "on"}),
    ("how many lights are on downstairs", None, "device.count", DOWN_LIGHTS, [], {"state": "on"}),
    # a room next to its floor (or sharing its word) is that room on it
    ("turn on the upstairs bath light", None, "device.turn_on", ["l_bath"], [], {}),
    (
        "turn on the upstairs bedroom lights",
        None,
        "device.turn_on",
        ["l_suite_side", "l_suite_top"],
        [],
        {},
    ),
    ("turn on the basement bedroom lights", None, "device.turn_on", [], [], {}),
    # a robot that lives on the floor before one that goes anywhere
    ("vacuum upstairs", None, "device.start", ["v_landing"], [], {}),
    ("vacuum the cellar", None, "device.start", ["v_roam"], [], {}),
    # a shared name: every one in the plural or after "all"; a word of its area picks one
    ("turn off the paddle fans", None, "device.turn_off", ["f_lounge", "f_suite"], [], {}),
    ("turn on all the paddle fan", None, "device.turn_on", ["f_lounge", "f_suite"], [], {}),
    ("turn on the paddle fan", None, "device.turn_on", [], ["f_lounge", "f_suite"], {}),
    ("turn on the boys banker lamp", None, "device.turn_on", ["l_toby_banker"], [], {}),
    ("turn on toby's banker lamp", None, "device.turn_on", ["l_toby_banker"], [], {}),
    ("turn on the banker lamp", None, "device.turn_on", [], ["l_den_banker", "l_toby_banker"], {}),
    # an area-level value: the area's lights
    (
        "set the suite brightness to 40%",
        None,
        "device.set_brightness",
        ["l_suite_side", "l_suite_top"],
        [],
        {"brightness": 40},
    ),
    ("brighter", "galley", "device.set_brightness", ["l_galley", "l_galley_spots"], [], {}),
    # a singular type word over several, none named with it: which one
    ("turn on the suite lamp", None, "device.turn_on", [], ["l_suite_side", "l_suite_top"], {}),
    ("turn on the den lamp", None, "device.turn_on", ["l_den_banker"], [], {}),
    ("turn on the suite lights", None, "device.turn_on", ["l_suite_side", "l_suite_top"], [], {}),
    # a light named like its area does not swallow the area in a set question
    (
        "which lights are on in the galley",
        None,
        "device.which",
        ["l_galley", "l_galley_spots"],
        [],
        {"state": "on"},
    ),
]


@pytest.mark.parametrize(("text", "room", "intent", "ids", "options", "values"), ROWS)
def test_places_and_sets(
    home: Understander,
    text: str,
    room: str | None,
    intent: str,
    ids: list[str],
    options: list[str],
    values: dict[str, Any],
) -> None:
    part = check_part(home, text, room, intent, ids, options)
    for slot, value in values.items():
        assert part.slots.get(slot) == value, part.to_dict()
