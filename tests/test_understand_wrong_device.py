"""Never the wrong device (issue 24): the mechanisms behind the held-out wrong-device
actions of the third, fourth and fifth homes, on a small home of their own.

- a name said word for word as its owner wrote it ("Garage Lights", a switch) is that
  device, not the area and a type word (the light in the garage);
- of two intents as sure, the one that acts on the device named ("set the ceiling fan
  to 50%": a fan's speed), not on another device named with its words (the "ceiling
  fan light"'s brightness);
- numbers said after a brand or a type word ("sonoff basic 3") are part of the name:
  no device has them, so none is acted on (the brand alone meant "sonoff_basic_1";
  of several, it asks which),
  and a brand heard slightly wrong keeps its numbers ("sonoff s31 04" is no "Sonoff
  S31 03");
- a bare "on" with an area is the area's lights, never the scene there.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.support_targets import home_config, only_part, part_ids


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


DEVICES = [
    _d("sw_garage_lights", "Garage Lights", "switch", "garage"),
    _d("l_opener", "Garage Door Light", "light", "garage"),
    _d("f_lounge", "Ceiling Fan", "fan", "lounge", features=["percentage"]),
    _d("f_bedroom", "Ceiling Fan", "fan", "bedroom", features=["percentage"]),
    _d("l_bedroom_fan", "Ceiling Fan Light", "light", "bedroom", features=["brightness"]),
    _d("sonoff_basic_1", "sonoff_basic_1", "switch", "lounge", aliases=["fish tank"]),
    _d("sonoff_s31_03", "Sonoff S31 03", "switch", "bedroom"),
    _d("l_lounge", "Big Light", "light", "lounge"),
    _d("l_kitchen", "Kitchen Light", "light", "kitchen"),
    _d("scene_lounge", "Cosy", "scene", "lounge"),
]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry(list(DEVICES))
    for room in ("garage", "lounge", "bedroom", "kitchen"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


@pytest.mark.parametrize(
    ("text", "intent", "ids"),
    [
        ("turn on the garage lights", "device.turn_on", ["sw_garage_lights"]),
        ("switch the garage lights off", "device.turn_off", ["sw_garage_lights"]),
        ("turn on the garage door light", "device.turn_on", ["l_opener"]),
        ("set the lounge ceiling fan to 40 percent", "device.set_speed", ["f_lounge"]),
        ("turn on the ceiling fan light", "device.turn_on", ["l_bedroom_fan"]),
        ("turn off sonoff basic 1", "device.turn_off", ["sonoff_basic_1"]),
        ("turn off the fish tank", "device.turn_off", ["sonoff_basic_1"]),
        ("cosy on", "device.activate", ["scene_lounge"]),
    ],
)
def test_the_device_named_is_the_one_acted_on(
    home: Understander, text: str, intent: str, ids: list[str]
) -> None:
    part = only_part(home.understand(text))
    assert part.intent == intent, part.to_dict()
    assert part_ids(home.registry, part) == ids, part.to_dict()


def test_a_shared_name_asks_with_the_intent_its_devices_can_do(home: Understander) -> None:
    part = only_part(home.understand("set the ceiling fan to 50%"))
    assert part.intent == "device.set_speed", part.to_dict()
    assert "device" not in part.slots
    assert sorted(part.provenance["options"]) == ["bedroom ceiling fan", "lounge ceiling fan"]


@pytest.mark.parametrize(
    "text", ["turn off sonoff basic 3", "turn on sonoff basic 7", "turn off sonoff s31 04"]
)
def test_numbers_no_name_has_act_on_nothing(home: Understander, text: str) -> None:
    """Asked which of the two Sonoffs, or declined: never one acted on."""
    part = only_part(home.understand(text))
    assert part.intent in ("device.turn_on", "device.turn_off"), part.to_dict()
    assert "device" not in part.slots, part.to_dict()


def test_a_bare_on_with_an_area_is_its_lights_not_its_scene(home: Understander) -> None:
    parts = home.understand("lights off in the kitchen and on in the lounge").parts()
    assert [p.intent for p in parts] == ["device.turn_off", "device.turn_on"]
    assert [part_ids(home.registry, p) for p in parts] == [["l_kitchen"], ["l_lounge"]]
