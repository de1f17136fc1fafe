"""Set questions answered over a real Mosquitto: count, which, any and all.

The demo home's simulated devices (plus two window sensors) report their
states to a real broker; the questions are understood from text, then
answered by the MQTT source from what the broker delivered, so the whole
path (routing, the device set, the tally, the YAML phrasing) is tested.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request, Status
from mnemolis.understand import Understander
from tests.support_mqtt import Home, broker, eventually, running_home

__all__ = ["broker"]


def _window(name: str, room: str) -> Device:
    slug = name.replace(" ", "_")
    return Device(
        name=name,
        type="binary_sensor",
        room=room,
        device_class="window",
        schema="json",
        topics={"state": f"home/{slug}", "availability": f"home/{slug}/availability"},
    )


@pytest.fixture
def home_config(config: Config) -> Config:
    windows = [_window("kitchen window", "kitchen"), _window("bedroom window", "bedroom")]
    return dataclasses.replace(config, devices=[*config.devices, *windows])


def _part(understander: Understander, text: str) -> Part:
    plan = understander.understand(text)
    (part,) = plan.parts()
    return part


async def _answer(home: Home, understander: Understander, text: str) -> tuple[Part, str, dict]:  # type: ignore[type-arg]
    part = _part(understander, text)
    answer = await home.source.answer(part, Request())
    return part, answer.text, answer.data


def test_count_which_any_and_all_over_the_lights(home_config: Config, broker: Mosquitto) -> None:
    understander = Understander(home_config)

    async def scenario() -> None:
        async with running_home(home_config, broker) as home:
            done = await home.ask("device.turn_on", device=["kitchen light", "porch light"])
            assert done.status == Status.DONE
            part, text, data = await _answer(home, understander, "how many lights are on")
            assert part.intent == "device.count"
            assert data["count"] == 2
            assert text == "2 lights are on: the kitchen light and the porch light"
            _, text, data = await _answer(home, understander, "which lights are off")
            assert data["matching"] == ["bedroom light", "hallway light", "living room lamp"]
            assert text == "the bedroom light, the hallway light and the living room lamp are off"
            _, text, data = await _answer(home, understander, "are any lights on in the kitchen")
            assert data["truth"] == "true"
            assert text == "yes, the kitchen light is on in the kitchen"
            _, text, data = await _answer(home, understander, "are all the lights on")
            assert data["truth"] == "false"
            assert text.startswith("no, the bedroom light, the hallway light and the living room")
            _, text, data = await _answer(home, understander, "are all the doors locked")
            assert data["truth"] == "true"
            assert text == "yes, all 2 locks are locked"
            # nothing was commanded by any of the questions
            assert sorted(c.device for c in home.sim().received()) == [
                "kitchen light",
                "porch light",
            ]

    asyncio.run(scenario())


def test_binary_sensors_by_class_as_a_set(home_config: Config, broker: Mosquitto) -> None:
    understander = Understander(home_config)

    async def scenario() -> None:
        async with running_home(home_config, broker) as home:
            home.sim().report("kitchen window", state="ON")
            await eventually(lambda: _state(home, "kitchen_window") == "on")
            part, text, data = await _answer(home, understander, "are any windows open")
            assert part.slots["quantifier"] == "any"
            assert sorted(data["devices"]) == ["bedroom window", "kitchen window"]
            assert text == "yes, the kitchen window is open"
            _, text, data = await _answer(home, understander, "how many windows are open")
            assert (data["count"], text) == (1, "one of the windows is open: the kitchen window")
            _, text, data = await _answer(home, understander, "are any windows open in the bedroom")
            assert data["truth"] == "false"
            assert text == "no, no windows are open in the bedroom"
            home.sim().report("kitchen window", state="OFF")
            await eventually(lambda: _state(home, "kitchen_window") == "off")
            _, text, data = await _answer(home, understander, "which windows are open")
            assert (data["count"], text) == (0, "no windows are open")
            assert home.sim().received() == []

    asyncio.run(scenario())


def _state(home: Home, device_id: str) -> object:
    state = home.source.state_of(device_id)
    return state.values.get("state") if state is not None else None


def test_a_set_with_nothing_known_or_nothing_in_it_is_never_a_yes(
    home_config: Config, broker: Mosquitto
) -> None:
    """Issue 21: "Yes, all 0 sensors are on" (an all-question over devices none of which
    said anything, or over none): neither a yes nor a count of nothing."""
    understander = Understander(home_config)

    async def scenario() -> None:
        async with running_home(home_config, broker) as home:
            # the window sensors went offline: nothing is known about them
            for window in ("kitchen window", "bedroom window"):
                home.sim().set_available(window, False)
            await eventually(lambda: _available(home, "kitchen_window") is False)
            await eventually(lambda: _available(home, "bedroom_window") is False)
            part, text, data = await _answer(home, understander, "are all the windows open")
            assert part.slots["quantifier"] == "all"
            assert data["truth"] == "unknown"
            assert text == "I can't tell whether the bedroom window and the kitchen window are open"
            _, text, data = await _answer(home, understander, "are any windows open")
            assert text == "I can't tell whether the bedroom window and the kitchen window are open"
            home.sim().set_available("kitchen window", True)
            home.sim().report("kitchen window", state="ON")
            await eventually(lambda: _state(home, "kitchen_window") == "on")
            await eventually(lambda: _available(home, "kitchen_window") is True)
            _, text, data = await _answer(home, understander, "are all the windows open")
            assert data["truth"] == "unknown"
            assert text == "the kitchen window is open; I can't tell for the bedroom window"
            _, text, data = await _answer(
                home, understander, "are all the windows open in the kitchen"
            )
            assert (data["truth"], text) == (
                "true",
                "yes, the kitchen window is open in the kitchen",
            )
            # a set with nothing in it (a routine's or a discovered area's, say)
            empty = Part(
                "are all the sensors on",
                "device.state",
                "mqtt",
                {"device": [], "quantifier": "all", "state": "on", "room": "garage"},
            )
            answer = home.source.answers.sets.answer("all", [], empty)
            assert answer.text == "there are no devices in the garage"
            assert answer.data["truth"] == "unknown"

    asyncio.run(scenario())


def _available(home: Home, device_id: str) -> object:
    state = home.source.state_of(device_id)
    return state.available if state is not None else None
