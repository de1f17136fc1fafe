"""Areas joined in one request, type words that are also verbs, nouns that mean
one thing, a device called by its name without its type word, and the origin
area for a type word: the intent and the exact device ids, over a small home of
its own (not the big home's rows).

- "the lights in the kitchen and pantry", "the kitchen and pantry lights": one
  part over both areas' lights (a conjunction between two areas is no split);
- "the switch(es)" are the switches, and "switch off the kitchen" a verb;
- "ac", "aircon", "air conditioner" name the device called "air conditioner"
  before the other climate devices;
- "the water" is a valve, not the "water heater" (a type word names a device of
  another type only as its name's last word);
- "the steps" is the light called "steps lights", when nothing else is said;
- "the light(s)" with no area named are those of the area spoken in.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.core.plan import Plan
from mnemolis.understand import Understander
from tests.support_targets import home_config, ids_of, only_part


def _d(ident: str, name: str, dtype: str, room: str | None) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident)


DEVICES = [
    _d("l_pendant", "pendant light", "light", "kitchen"),
    _d("l_spots", "kitchen spots", "light", "kitchen"),
    _d("l_pantry", "pantry light", "light", "pantry"),
    _d("l_reading", "reading lamp", "light", "study"),
    _d("l_steps", "steps lights", "light", "hallway"),
    _d("s_toaster", "toaster", "switch", "kitchen"),
    _d("s_mixer", "stand mixer", "switch", "kitchen"),
    _d("s_freezer", "chest freezer", "switch", "pantry"),
    _d("f_kitchen", "kitchen fan", "fan", "kitchen"),
    _d("c_study_ac", "study air conditioner", "climate", "study"),
    _d("c_hall_radiator", "hall radiator", "climate", "hallway"),
    _d("c_thermostat", "thermostat", "climate", None),
    _d("v_main", "main stopcock", "valve", "utility"),
    _d("w_heater", "water heater", "water_heater", "utility"),
]
KITCHEN_LIGHTS = ["l_pendant", "l_spots"]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry([dataclasses.replace(d) for d in DEVICES])
    for room in ("kitchen", "pantry", "study", "hallway", "utility"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


# (text, origin area, intent, device ids acted on)
ROWS: list[tuple[str, str | None, str, list[str]]] = [
    # two areas joined under one verb and one type word: one part over both
    (
        "turn on the lights in the kitchen and pantry",
        None,
        "device.turn_on",
        [*KITCHEN_LIGHTS, "l_pantry"],
    ),
    (
        "switch off the kitchen and pantry lights",
        None,
        "device.turn_off",
        [*KITCHEN_LIGHTS, "l_pantry"],
    ),
    (
        "turn off the lights in the study and the pantry",
        None,
        "device.turn_off",
        ["l_reading", "l_pantry"],
    ),
    # "switch": a type word, and a verb when it opens the request
    ("turn off the switch in the pantry", None, "device.turn_off", ["s_freezer"]),
    ("turn off the switches in the kitchen", None, "device.turn_off", ["s_toaster", "s_mixer"]),
    ("turn the switch on", "pantry", "device.turn_on", ["s_freezer"]),
    ("switch off the kitchen lights", None, "device.turn_off", KITCHEN_LIGHTS),
    ("switch the pantry light on", None, "device.turn_on", ["l_pantry"]),
    ("please switch off the pantry light", None, "device.turn_off", ["l_pantry"]),
    ("kitchen lights on", None, "device.turn_on", KITCHEN_LIGHTS),
    # nouns that mean one thing: the device named with one of them first
    ("turn on the air conditioner", None, "device.turn_on", ["c_study_ac"]),
    ("turn on the ac", None, "device.turn_on", ["c_study_ac"]),
    ("turn off the aircon", None, "device.turn_off", ["c_study_ac"]),
    ("turn on the radiator", None, "device.turn_on", ["c_hall_radiator"]),
    # a type word names a device of another type only as its name's last word:
    # "the water" is the valve, not the water heater (which "the heater" still is)
    ("shut off the water", None, "device.close", ["v_main"]),
    ("turn off the water heater", None, "device.turn_off", ["w_heater"]),
    # a name without its type word, when it is all that is said
    ("turn off the steps", None, "device.turn_off", ["l_steps"]),
    ("turn on the pendant", None, "device.turn_on", ["l_pendant"]),
    # a type word and no area: the area the request comes from
    ("turn on the light", "pantry", "device.turn_on", ["l_pantry"]),
    ("turn on the lights", "kitchen", "device.turn_on", KITCHEN_LIGHTS),
    ("turn off the light in here", "study", "device.turn_off", ["l_reading"]),
    ("turn off the lights in here", "kitchen", "device.turn_off", KITCHEN_LIGHTS),
    ("turn on the switches", "kitchen", "device.turn_on", ["s_toaster", "s_mixer"]),
]


def _slot_ids(home: Understander, value: Any) -> list[str]:
    return ids_of(home.registry, value)


@pytest.mark.parametrize(("text", "room", "intent", "ids"), ROWS)
def test_resolution(
    home: Understander, text: str, room: str | None, intent: str, ids: list[str]
) -> None:
    plan = home.understand(text, room=room)
    part = only_part(plan)
    assert part.intent == intent, part.to_dict()
    assert _slot_ids(home, part.slots.get("device")) == sorted(ids), part.to_dict()
    assert plan.clarify is None, plan.clarify
    values = set(part.slots) - {"device", "room"}
    assert not values, part.to_dict()  # no value read into a plain command


def _parts(plan: Plan, home: Understander) -> list[tuple[str | None, list[str]]]:
    return [(p.intent, _slot_ids(home, p.slots.get("device"))) for p in plan.parts()]


# a conjunction that does not join two areas under one type word still splits
SPLITS: list[tuple[str, list[tuple[str, list[str]]]]] = [
    (
        "turn on the pantry light and turn off the toaster",
        [("device.turn_on", ["l_pantry"]), ("device.turn_off", ["s_toaster"])],
    ),
    (
        "turn off the kitchen lights and the toaster",
        [("device.turn_off", KITCHEN_LIGHTS), ("device.turn_off", ["s_toaster"])],
    ),
    (
        "turn on the pantry light and the kitchen fan",
        [("device.turn_on", ["l_pantry"]), ("device.turn_on", ["f_kitchen"])],
    ),
]


# a part made only of a value is about the device the part before it named, when
# that device can take it; else it is resolved on its own
SPLITS += [
    (
        "set the study air conditioner to cool and 20 degrees",
        [("device.set_mode", ["c_study_ac"]), ("device.set_temperature", ["c_study_ac"])],
    ),
    (
        "turn on the pendant light and 40 percent",
        [("device.turn_on", ["l_pendant"]), ("device.set_brightness", ["l_pendant"])],
    ),
    (
        "turn on the toaster and 40 percent",
        [("device.turn_on", ["s_toaster"]), ("device.set_brightness", [])],
    ),
]


@pytest.mark.parametrize(("text", "parts"), SPLITS)
def test_other_conjunctions_split(
    home: Understander, text: str, parts: list[tuple[str, list[str]]]
) -> None:
    assert _parts(home.understand(text), home) == [(i, sorted(ids)) for i, ids in parts]


def test_a_verb_switch_with_only_an_area_is_its_lights(home: Understander) -> None:
    """ "switch off the kitchen" is the kitchen's lights (an area said alone, issue
    24): not the kitchen's switches read out of the verb."""
    plan = home.understand("switch off the kitchen")
    part = only_part(plan)
    assert part.intent == "device.turn_off"
    assert _slot_ids(home, part.slots.get("device")) == ["l_pendant", "l_spots"]
    assert plan.clarify is None


def test_a_stem_with_other_words_is_no_name(home: Understander) -> None:
    """ "set the reading mode": "reading" beside another word is no "reading lamp"."""
    part = only_part(home.understand("set the reading mode"))
    assert "l_reading" not in _slot_ids(home, part.slots.get("device"))


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("set the study air conditioner to cool and 20 degrees", "temperature", 20),
        ("turn on the pendant light and 40 percent", "brightness", 40),
    ],
)
def test_the_bare_value_is_read(home: Understander, text: str, slot: str, value: int) -> None:
    last = home.understand(text).parts()[-1]
    assert last.slots.get(slot) == value, last.to_dict()


@pytest.mark.parametrize("text", ["switch it off", "switch on"])
def test_the_verb_switch_names_no_switch(home: Understander, text: str) -> None:
    """With nothing named, "switch" is the verb: no switch is acted on."""
    part = only_part(home.understand(text, room="kitchen"))
    assert part.slots.get("device") is None, part.to_dict()


def test_switch_off_everything_is_everything(home: Understander) -> None:
    part = only_part(home.understand("switch off everything"))
    ids = _slot_ids(home, part.slots.get("device"))
    assert {"l_pendant", "s_toaster", "f_kitchen"} <= set(ids), ids
