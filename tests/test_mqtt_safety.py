"""Safety (unlocking waits for a yes, allow/confirm lists), state questions, conditions\nand an understood sentence end to end, on a real Mosquitto."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request, Status, Truth
from mnemolis.understand import Understander
from tests.support_mqtt import (
    broker,
    eventually,
    part_for,
    running_home,
    with_device,
)

__all__ = ["broker"]


# ----------------------------------------------------------------------------------------- safety


def test_unlocking_waits_for_a_yes(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            asked = await home.ask("device.unlock", device="front door")
            assert (asked.status, asked.text) == (
                Status.NEEDS_CONFIRMATION,
                "Do you want me to unlock the front door?",
            )
            garage = await home.ask("device.open", device="garage door")
            assert (garage.status, garage.text) == (
                Status.NEEDS_CONFIRMATION,
                "Do you want me to open the garage door?",
            )
            both = await home.ask("device.unlock", device=["front door", "back door"])
            assert both.status == Status.NEEDS_CONFIRMATION
            assert both.text == "Do you want me to unlock the front door and unlock the back door?"
            assert home.sim().received() == []
            done = await home.ask("device.unlock", confirmed=True, device="front door")
            assert (done.status, done.text) == (Status.DONE, "done: the front door is unlocked")
            blinds = await home.ask("device.open", device="living room blinds")
            assert blinds.status == Status.DONE  # only garage doors ask

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("changes", "intent", "device", "status", "text"),
    [
        (
            {"allow": ["lock"]},
            "device.unlock",
            "front door",
            Status.DECLINED,
            "I'm not allowed to unlock the front door",
        ),
        (
            {"allow": ["lock"]},
            "device.lock",
            "front door",
            Status.DONE,
            "done: the front door is locked",
        ),
        (
            {"confirm": ["start"]},
            "device.start",
            "coffee maker",
            Status.NEEDS_CONFIRMATION,
            "Do you want me to start the coffee maker?",
        ),
        (
            {"confirm": []},
            "device.turn_on",
            "coffee maker",
            Status.DONE,
            "done: the coffee maker is on",
        ),
    ],
)
def test_allow_and_confirm_lists(
    config: Config,
    broker: Mosquitto,
    changes: dict[str, Any],
    intent: str,
    device: str,
    status: Status,
    text: str,
) -> None:
    changed = with_device(config, device, **changes)

    async def scenario() -> None:
        async with running_home(changed, broker) as home:
            answer = await home.ask(intent, device=device)
            assert (answer.status, answer.text) == (status, text)
            assert bool(home.sim().received()) == (status == Status.DONE)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("intent", "slots", "status", "text"),
    [
        (
            "device.lock",
            {"device": "porch light"},
            Status.OUT_OF_SCOPE,
            "I can't lock the porch light: the porch light is a light",
        ),
        (
            "device.turn_on",
            {"device": "outdoor temperature"},
            Status.OUT_OF_SCOPE,
            "the outdoor temperature is a sensor; it can only be read",
        ),
        (
            "device.set_brightness",
            {"device": "porch light", "brightness": 20},
            Status.OUT_OF_SCOPE,
            "I can't set the porch light to 20 %: the porch light can't be dimmed",
        ),
        (
            "device.set_color",
            {"device": "kitchen light", "color": "chartreuse"},
            Status.ERROR,
            "I don't know the colour chartreuse",
        ),
        (
            "device.set_temperature",
            {"device": "thermostat"},
            Status.ERROR,
            "I didn't catch the value to set the thermostat to",
        ),
    ],
)
def test_what_cannot_be_done_is_said(
    config: Config, broker: Mosquitto, intent: str, slots: dict[str, Any], status: Status, text: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask(intent, **slots)
            assert (answer.status, answer.text) == (status, text)
            assert home.sim().received() == []

    asyncio.run(scenario())


# ----------------------------------------------------------------------- questions and conditions

STATE_QUESTIONS = [
    ("device.state", {"device": "front door", "state": "locked"}, "yes, the front door is locked"),
    ("device.state", {"device": "back door", "state": "unlocked"}, "no, the back door is locked"),
    ("device.state", {"device": "porch light", "state": "on"}, "no, the porch light is off"),
    ("device.state", {"device": "garage door"}, "the garage door is closed"),
    (
        "device.state",
        {"device": "living room blinds", "state": "open"},
        "no, the living room blinds are closed",
    ),
    ("device.state", {"device": "robot vacuum"}, "the robot vacuum is docked"),
    (
        "device.state",
        {"device": "thermostat"},
        "the thermostat is set to 20 °C, and it is 19.5 °C now",
    ),
    ("sensor.read", {"device": "living room temperature"}, "the living room is 21.5 °C"),
    ("sensor.read", {"device": "outdoor temperature"}, "the outdoor temperature is 21.5 °C"),
    ("sensor.read", {"device": "hallway motion"}, "there is no motion in the hallway"),
]


@pytest.mark.parametrize(("intent", "slots", "text"), STATE_QUESTIONS)
def test_state_questions_from_the_cache(
    config: Config, broker: Mosquitto, intent: str, slots: dict[str, Any], text: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask(intent, **slots)
            assert (answer.status, answer.text) == (Status.OK, text)
            assert answer.ms < 50

    asyncio.run(scenario())


CONDITIONS = [
    ({"device": "back door", "state": "unlocked"}, Truth.FALSE),
    ({"device": "front door", "state": "locked"}, Truth.TRUE),
    ({"device": "porch light", "state": "off"}, Truth.TRUE),
    ({"device": ["porch light", "kitchen light"], "state": "off"}, Truth.TRUE),
    ({"device": "hallway motion"}, Truth.FALSE),
    ({"device": "outdoor temperature", "state": "on"}, Truth.UNKNOWN),
    ({"device": "porch light", "state": "locked"}, Truth.UNKNOWN),
    ({"device": "unicorn"}, Truth.UNKNOWN),
]


@pytest.mark.parametrize(("slots", "truth"), CONDITIONS)
def test_conditions(config: Config, broker: Mosquitto, slots: dict[str, Any], truth: Truth) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            part = part_for(config, "device.state", **slots)
            evaluation = await home.source.evaluate(part, Request())
            assert evaluation.truth == truth, evaluation.text

    asyncio.run(scenario())


def test_an_old_reading_says_its_age(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker, stale_s=600) as home:
            home.source.cache.clock = lambda: time.time() + 2 * 3600 + 5
            answer = await home.ask("sensor.read", device="living room temperature")
            assert answer.text == "the living room is 21.5 °C (as of 2 hours ago)"

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("slots", "start"),
    [
        (
            {"device": "unicorn lamp"},
            'I don\'t know a device called "unicorn lamp". I know the living room lamp',
        ),
        ({}, "Which device do you mean? I know the back door, the bedroom light, "),
        (
            {"room": "kitchen"},
            "Which device in the kitchen do you mean: the back door, the coffee maker "
            "and the kitchen light?",
        ),
    ],
)
def test_unknown_or_missing_device(
    config: Config, broker: Mosquitto, slots: dict[str, Any], start: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask("device.turn_on", **slots)
            assert answer.status == Status.ERROR
            assert answer.text.startswith(start), answer.text

    asyncio.run(scenario())


# ------------------------------------------------------------------------------------- end to end


def test_understood_sentence_changes_the_simulated_device(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            understander = Understander(config, home.registry)
            await asyncio.to_thread(home.sim().report, "porch light", state="ON")
            porch = home.registry.by_name("porch light")
            assert porch is not None
            await eventually(lambda: home.source.state_of(porch.id).values.get("state") == "on")  # type: ignore[union-attr]
            part = understander.understand("turn off the porch light").parts()[0]
            answer = await home.source.answer(part, Request())
            assert (answer.status, answer.text) == (Status.DONE, "done: the porch light is off")
            assert home.sim().state("porch light")["state"] == "OFF"

            question = understander.understand("is the porch light on").parts()[0]
            assert (
                await home.source.answer(question, Request())
            ).text == "no, the porch light is off"

            plan = understander.understand("if the back door is unlocked lock it")
            condition = plan.parts()[0]
            assert (await home.source.evaluate(condition, Request())).truth == Truth.FALSE

    asyncio.run(scenario())
