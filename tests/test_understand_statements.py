"""A question's word order (issue 24).

A question's verb after a statement's subject states: "it's cold in the living room" is
how the room feels, the heating's business, not "is it cold" asked of a temperature
sensor; the question in the other word order, or after "if", still asks. "is there any
sound from the baby monitor" asks a reading of what exists (the class's word after
"there"), not a state "sound" of some device.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.support_targets import home_config, only_part, part_ids

HEATING = "device.set_temperature"


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("it's cold in here", HEATING),
        ("it is cold in the bedroom", HEATING),
        ("brrr it's cold", HEATING),
        ("ugh it's freezing", HEATING),
    ],
)
def test_a_statement_is_not_a_question(understander: Understander, text: str, intent: str) -> None:
    part = only_part(understander.understand(text))
    assert part.intent == intent, part.to_dict()


@pytest.mark.parametrize(
    "text", ["is it cold in the bedroom", "is it on", "is the front door locked"]
)
def test_the_question_still_asks(understander: Understander, text: str) -> None:
    part = only_part(understander.understand(text))
    assert part.intent in ("device.state", "sensor.read"), part.to_dict()


def test_an_if_asks_in_a_statement_s_order(understander: Understander) -> None:
    analysis = understander.analyzer.analyze("tell me if it is on")
    assert any(m.rule.text.startswith("is ") for m in analysis.matches)


EXISTS = [
    _d("baby_sound", "Baby Monitor Sound", "binary_sensor", "nursery", device_class="sound"),
    _d("dish_problem", "Dishwasher Problem", "binary_sensor", "kitchen", device_class="problem"),
    _d("hall_light", "Hall Light", "light", "hall"),
    _d("hall_blind", "Hall Blind", "cover", "hall", features=["position"]),
]


@pytest.fixture(scope="module")
def sensors(config: Config) -> Understander:
    registry = DeviceRegistry(list(EXISTS))
    for room in ("nursery", "kitchen", "hall"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


@pytest.mark.parametrize(
    ("text", "intent", "ids"),
    [
        ("is there any sound from the baby monitor", "sensor.read", ["baby_sound"]),
        ("is there a problem with the dishwasher", "sensor.read", ["dish_problem"]),
        ("is the dishwasher problem on", "device.state", ["dish_problem"]),
        ("is there a light on in the hall", "device.state", ["hall_light"]),
        ("what position is the hall blind at", "device.state", ["hall_blind"]),
    ],
)
def test_what_exists_is_read(sensors: Understander, text: str, intent: str, ids: list[str]) -> None:
    """ "is there a problem": the class's word after "there" names what exists."""
    part = only_part(sensors.understand(text))
    assert part.intent == intent, part.to_dict()
    assert part_ids(sensors.registry, part) == ids, part.to_dict()
