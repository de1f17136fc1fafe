"""Actions for a while and actions at a time no clock places, end to end: the default
home on a real Mosquitto, the assistant with its real sources and the timers source.

"Turn on the porch light for 1 second" turns it on now and off a second later;
"turn on the porch light at sunset" turns nothing on and says why."""

from __future__ import annotations

import asyncio
import time

from mnemolis.sources.base import Status
from tests.support_assistant import House, World, fixture_world
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.support_timers import Heard, play

__all__ = ["broker", "fixture_test_zims", "fixture_world", "open_meteo"]

ON, OFF = '{"state": "ON"}', '{"state": "OFF"}'


def test_an_action_for_a_while_is_put_back_then(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        asked = time.time()
        answer = await house.ask("turn on the porch light for 1 second")
        assert (
            answer.text == "Done: the porch light is on. I'll turn off the porch light in 1 second."
        )
        assert house.commands("porch light") == [ON]  # now, not later
        (part,) = answer.parts
        assert part.answer.status is Status.DONE
        assert part.answer.data["revert"]["status"] == "ok"  # kept for then
        at, said = await heard.next(timeout_s=5)
        assert at - asked >= 0.9, "put back after the second, not before"
        assert house.commands("porch light") == [ON, OFF]
        assert said.kind == "scheduled" and said.text.endswith("Done: the porch light is off.")

    play(world, scenario)


def test_an_action_for_a_while_that_asks_which_one_keeps_nothing(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        answer = await house.ask("turn on the light for 1 second")
        assert answer.text.startswith("Which one do you mean"), answer.text
        await asyncio.sleep(1.5)
        assert heard.spoken() == []  # nothing was turned on, so nothing is put back

    play(world, scenario)


def test_an_action_at_a_time_no_clock_places_is_not_run(world: World) -> None:
    async def scenario(house: House, heard: Heard) -> None:
        for query, said in [
            ("turn on the porch light at sunset", '"at sunset"'),
            ("close the living room blinds in the evening", '"in the evening"'),
            ("turn off the hallway light tonight", '"tonight"'),
        ]:
            answer = await house.ask(query)
            assert answer.text.startswith(f"I don't know when {said} is yet, so I did nothing")
        await asyncio.sleep(0.3)
        for device in ("porch light", "living room blinds", "hallway light"):
            assert house.commands(device) == []
        assert heard.spoken() == []

    play(world, scenario)
