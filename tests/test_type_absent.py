"""A type asked for (a type word, or work only that type does: "mop", "mow") with no
device of it in the named area or the home is none, said so ("there is no fan in the
kitchen"), never a device of another type the intent could act on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mnemolis.config import Config, load_config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request, Status
from mnemolis.understand import Understander
from tests.support_mqtt import broker, running_home

__all__ = ["broker"]

BIG_HOME = Path(__file__).parent / "data" / "big_home"

#: (text, intent, device slot, the type said to be missing) over the demo home
DEMO_ROWS = [
    ("mow the lawn", "device.start", None, "lawn_mower"),  # no mower: not the coffee maker
    ("cut the grass in the kitchen", "device.start", None, "lawn_mower"),
    ("turn on the fan", "device.turn_on", None, "fan"),
    ("turn on the fan in the kitchen", "device.turn_on", None, "fan"),
    ("close the blinds in the kitchen", "device.close", None, "cover"),
    ("mop the kitchen", "device.start", "robot vacuum", None),  # a vacuum's work: the robot
    ("sweep the bedroom", "device.start", "robot vacuum", None),
    ("close the living room shades", "device.close", "living room blinds", None),
]


@pytest.fixture(scope="module")
def demo(config: Config) -> Understander:
    return Understander(config)


@pytest.mark.parametrize(("text", "intent", "device", "missing"), DEMO_ROWS)
def test_a_type_with_no_device_there_is_none_never_another_type(
    demo: Understander, text: str, intent: str, device: str | None, missing: str | None
) -> None:
    (part,) = demo.understand(text).parts()
    assert part.intent == intent
    assert part.slots.get("device") == device
    assert "options" not in part.provenance
    assert part.provenance.get("missing") == missing


@pytest.mark.parametrize(
    "text", ["vacuum the living room", "sweep the living room", "start the vacuum"]
)
def test_the_big_home_without_its_discovered_robot_vacuums_nothing(text: str) -> None:
    """The YAML big home has no vacuum: not the christmas tree, a switch there."""
    understander = Understander(load_config(str(BIG_HOME)))
    (part,) = understander.understand(text).parts()
    assert (part.intent, part.slots.get("device")) == ("device.start", None)
    assert part.provenance.get("missing") == "vacuum"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("turn on the fan in the kitchen", "There is no fan in the kitchen"),
        ("mow the lawn", "I don't know of any lawn mower here"),
    ],
)
def test_the_answer_says_there_is_none(
    config: Config, broker: Mosquitto, text: str, said: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            understander = Understander(config, home.registry)
            (part,) = understander.understand(text).parts()
            answer = await home.source.answer(part, Request())
            assert (answer.status, answer.text) == (Status.ERROR, said)
            assert answer.data["missing"] == part.provenance["missing"]

    asyncio.run(scenario())
