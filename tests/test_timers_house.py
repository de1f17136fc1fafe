"""Timers, plans and watches end to end: the default home on a real Mosquitto, the
assistant with its real sources and the timers source, conversations included."""

from __future__ import annotations

import asyncio
import dataclasses
import time

from mnemolis.runtime.answer import Outcome
from mnemolis.sources.base import Status
from mnemolis.sources.timers.source import TimersSource
from tests.support_assistant import House, World, fixture_world
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.support_timers import Heard, play

__all__ = ["broker", "fixture_test_zims", "fixture_world", "open_meteo"]

ON = {"state": "ON"}


def test_a_delayed_command_runs_then_and_not_before(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        asked = time.time()
        answer = await house.ask("in 1 second turn on the porch light")
        assert answer.text == "I'll turn on the porch light in 1 second."
        assert answer.outcome is Outcome.ANSWERED
        await asyncio.sleep(0.5)
        assert house.commands("porch light") == []  # not now
        at, said = await heard.next(timeout_s=5)
        assert 0.9 <= at - asked <= 3.5
        assert house.commands("porch light")[-1:] == ['{"state": "ON"}']
        assert said.kind == "scheduled" and said.origin.session == "default"
        assert said.text.endswith("Done: the porch light is on.")

    play(world, scenario)


def test_an_action_at_the_edge_of_a_conditional_is_scheduled(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.report("garage door", state="open", position=100)
        answer = await house.ask("if the garage door is open close it in 1 second")
        assert "in 1 second" in answer.text, answer.text
        assert house.commands("garage door") == []
        _at, said = await heard.next(timeout_s=5)
        assert house.commands("garage door")[-1:] == ['{"state": "CLOSE"}']
        assert said.kind == "scheduled"

    play(world, scenario)


def test_a_delayed_unlock_asks_for_its_yes_when_it_is_set(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        first = await house.ask("unlock the front door in 1 second")
        assert first.text == "Do you want me to unlock the front door in 1 second?"
        assert first.outcome is Outcome.WAITING
        yes = await house.ask("yes")
        assert yes.text == "I'll unlock the front door in 1 second."
        assert house.commands("front door") == []
        await heard.next(timeout_s=5)
        assert house.commands("front door")[-1:] == ['{"state": "UNLOCK"}']

    play(world, scenario)


def test_a_delayed_unlock_refused_is_never_set(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.ask("unlock the front door in 1 second")
        no = await house.ask("no")
        assert no.text == "All right, I did not unlock the front door in 1 second."
        await asyncio.sleep(1.5)
        assert house.commands("front door") == [] and heard.spoken() == []

    play(world, scenario)


def test_cancel_that_cancels_the_plan_just_set(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.ask("turn off the porch light in 1 second")
        cancelled = await house.ask("cancel that")
        assert cancelled.text.startswith("Cancelled the plan to turn off the porch light today at")
        await asyncio.sleep(1.5)
        assert house.commands("porch light") == [] and heard.spoken() == []

    play(world, scenario)


def test_add_two_minutes_then_cancel_that_in_one_conversation(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        assert (await house.ask("set a timer for 10 minutes")).text == "Timer set for 10 minutes."
        more = await house.ask("add two minutes")
        assert more.text == "Added 2 minutes: the 10 minute timer now has 12 minutes left."
        left = await house.ask("how much time is left")
        assert left.text == "The 10 minute timer has 12 minutes left."
        other = await house.ask("set a timer for 5 minutes", session="kitchen")
        assert other.parts[0].status is Status.DONE
        gone = await house.ask("cancel that")  # this conversation's timer, not the kitchen's
        assert gone.text == "Cancelled the 10 minute timer."
        assert (await house.ask("what timers do i have")).text.startswith("The 5 minute timer has ")

    play(world, scenario)


def test_a_timer_and_an_action_in_one_request(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        answer = await house.ask("set a timer for 1 second and turn on the kitchen light")
        assert answer.text == "Timer set for 1 second. Done: the kitchen light is on."
        assert house.commands("kitchen light") == ['{"state": "ON"}']
        _at, said = await heard.next(timeout_s=5)
        assert (said.kind, said.text) == ("timer", "Your 1 second timer is done")
        assert heard.events() == ["started", "finished"]

    play(world, scenario)


def test_tell_me_when_the_garage_door_opens(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.report("garage door", state="closed", position=0)
        set_ = await house.ask("let me know when the garage door opens")
        assert set_.text == "I'll tell you when the garage door opens."
        assert house.commands("garage door") == []  # telling is not opening
        await house.report("living room blinds", state="open", position=100)
        await asyncio.sleep(0.2)
        assert heard.spoken() == []
        await house.report("garage door", state="open", position=100)
        _at, said = await heard.next(timeout_s=5)
        assert said.kind == "notify" and "garage door is open" in said.text.lower()
        await house.report("garage door", state="closed", position=0)
        await house.report("garage door", state="open", position=100)
        await asyncio.sleep(0.3)
        assert len(heard.spoken()) == 1  # once

    play(world, scenario)


def test_when_a_device_changes_an_action_runs(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.report("hallway motion", state="OFF")
        answer = await house.ask("when the hallway motion turns on turn on the porch light")
        assert answer.text == "I'll turn on the porch light when the hallway motion turns on."
        assert house.commands("porch light") == []
        await house.report("hallway motion", state="ON")
        _at, said = await heard.next(timeout_s=5)
        assert house.commands("porch light") == ['{"state": "ON"}']
        assert said.text.endswith("Done: the porch light is on.")

    play(world, scenario)


def test_a_watch_that_is_already_true_waits_for_nothing(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        await house.report("garage door", state="open", position=100)
        answer = await house.ask("tell me when the garage door is open")
        assert answer.text.endswith("so there is nothing to wait for.")

    play(world, scenario)


def test_a_watch_on_the_weather_is_declined_honestly(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        answer = await house.ask("when it rains close the garage door")
        assert answer.text == (
            "I can only wait for a device to change, not until it rains, "
            "so I did not close the garage door."
        )
        assert house.commands("garage door") == []

    play(world, scenario)


def test_a_plan_for_a_device_that_is_gone_is_reported_not_run(world: World) -> None:
    built: list[TimersSource] = []

    async def scenario(house: House, heard: Heard) -> None:
        await house.ask("turn on the porch light in 1 second")
        porch = house.assistant.registry.by_name("porch light")
        assert porch is not None
        house.assistant.registry.remove(porch.id)
        _at, said = await heard.next(timeout_s=5)
        assert "I no longer know the porch light" in said.text
        assert house.commands("porch light") == []
        assert built[0].items == {}

    play(world, scenario, built)


def test_a_watch_stops_waiting_after_its_limit_and_says_so(world: World) -> None:
    built: list[TimersSource] = []

    async def scenario(house: House, heard: Heard) -> None:
        timers = built[0]
        assert timers.settings is not None
        timers.settings = dataclasses.replace(timers.settings, watch_limit_s=1.0)
        await house.report("garage door", state="closed", position=0)
        await house.ask("tell me when the garage door opens")
        _at, said = await heard.next(timeout_s=5)
        assert (
            said.text == "I stopped waiting for the moment the garage door opens: 1 second passed"
        )
        await house.report("garage door", state="open", position=100)
        await asyncio.sleep(0.3)
        assert len(heard.spoken()) == 1  # expired: the opening is not told any more

    play(world, scenario, built)


def test_a_plan_asks_which_device_and_keeps_its_time(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        which = await house.ask("turn on the light in 1 second")
        assert which.text.startswith("Which one do you mean:")
        chosen = await house.ask("the kitchen one")
        assert chosen.text == "I'll turn on the light (the kitchen light) in 1 second."
        assert house.commands("kitchen light") == []
        await heard.next(timeout_s=5)
        assert house.commands("kitchen light") == ['{"state": "ON"}']

    play(world, scenario)
