"""Plans run end to end through the real sources: the simulated home on a real
Mosquitto, a test ZIM, the replayed Open-Meteo server and a frozen clock."""

from __future__ import annotations

import asyncio
import json

import pytest

from mnemolis.runtime.answer import Outcome
from mnemolis.sources.base import Status
from tests.support_assistant import House, World, fixture_world, quick, statuses
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import Canned, open_meteo

__all__ = ["broker", "fixture_test_zims", "fixture_world", "open_meteo"]

ON, OFF = '{"state": "ON"}', '{"state": "OFF"}'
LOCK, UNLOCK = '{"state": "LOCK"}', '{"state": "UNLOCK"}'
COMPOUND = "turn off the kitchen light and what's the weather tomorrow and who was ada lovelace"


# --------------------------------------------------------------------------- compound requests


def test_a_compound_request_across_three_sources(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        await house.ask("turn on the kitchen light")
        answer = await house.ask(COMPOUND)
        assert [p.answer.source for p in answer.parts] == ["mqtt", "weather", "kiwix"]
        assert statuses(answer) == [Status.DONE, Status.OK, Status.OK]
        assert answer.outcome is Outcome.ANSWERED
        assert house.commands("kitchen light")[-1] == OFF
        text = answer.text
        kitchen, rain, ada = (
            text.index("kitchen light is off"),
            text.index("Tomorrow: moderate rain"),
            text.index("Augusta Ada King"),
        )
        assert kitchen < rain < ada, text
        assert text.startswith("Done: the kitchen light is off.")
        assert len(text) <= house.assistant.settings.max_chars

    world.run(scenario)


def test_devices_announced_by_discovery_and_titles_of_the_zim_are_understood(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        answer = await house.ask("turn on the porch light and then turn it off")
        assert statuses(answer) == [Status.DONE, Status.DONE]
        assert house.commands("porch light") == [ON, OFF]  # one device: in the order asked
        assert answer.text == "Done: the porch light is on. Done: the porch light is off."
        # the encyclopedia's titles keep "fire and rain" whole in lower-case speech
        answer = await house.ask("tell me about fire and rain and turn on the hallway light")
        assert [p.part.text for p in answer.parts] == [
            "tell me about fire and rain",
            "turn on the hallway light",
        ]
        assert answer.text.startswith("Fire and Rain is a song by James Taylor.")

    world.run(scenario, announce="homeassistant")


# --------------------------------------------------------------------------- conditionals

CONDITIONALS = [
    # (query, back door unlocked first, reply, branch, device commanded, payload)
    (
        "if the back door is unlocked, lock it",
        False,
        "The back door is locked, so I did nothing.",
        "none",
        None,
        None,
    ),
    (
        "if the back door is unlocked, lock it",
        True,
        "The back door is unlocked, so I locked it.",
        "then",
        "back door",
        LOCK,
    ),
    (
        "if the back door is unlocked lock it otherwise turn on the hallway light",
        False,
        "The back door is locked, so I turned on the hallway light.",
        "else",
        "hallway light",
        ON,
    ),
    (
        "if it rains tomorrow turn on the porch light",
        False,
        "Tomorrow: 80% chance of rain, about 6.4 mm, so I turned on the porch light.",
        "then",
        "porch light",
        ON,
    ),
    (
        "if it is sunny on friday turn on the porch light",
        False,
        "Friday: overcast, with about 3 hours of sunshine, so I did nothing.",
        "none",
        None,
        None,
    ),
    (
        "unless it rains tomorrow turn on the porch light",
        False,
        "Tomorrow: 80% chance of rain, about 6.4 mm, so I did nothing.",
        "none",
        None,
        None,
    ),
    (
        "when it rains close the garage door",
        False,
        "I can't wait until it rains: I only check conditions when you ask, "
        "so I did not close the garage door.",
        "none",
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("query", "unlocked", "reply", "branch", "device", "payload"), CONDITIONALS
)
def test_conditionals_take_the_branch_the_condition_says(
    world: World,
    query: str,
    unlocked: bool,
    reply: str,
    branch: str,
    device: str | None,
    payload: str | None,
) -> None:
    async def scenario(house: House) -> None:
        if unlocked:
            await house.report("back door", state="UNLOCKED", lock_state="unlocked")
        answer = await house.ask(query)
        assert answer.text == reply
        condition, *rest = answer.parts
        assert condition.role == "if"
        assert {p.branch for p in answer.parts} == {branch}
        ran = [p for p in rest if p.ran]
        if device is None:
            assert ran == []
            assert all(p.status is Status.DECLINED for p in rest)
        else:
            assert [p.role for p in ran] == [branch]
            assert house.commands(device) == [payload]
        commanded = {c.device for c in house.simulator.received()}
        assert commanded == ({device} if device else set())

    world.run(scenario)


def test_a_condition_nobody_can_check_leaves_everything_as_it_is(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        world.open_meteo.fail_with(Canned(500, b"<html>down</html>", "text/html"))
        answer = await house.ask("if it rains tomorrow turn on the porch light")
        assert answer.text.startswith(
            "I couldn't tell whether it rains tomorrow, so I did not turn on the porch light. "
        )
        assert "weather" in answer.text.split(". ", 1)[1].lower()  # and why
        condition, porch = answer.parts
        assert condition.status is Status.ERROR
        assert condition.answer.data["truth"] == "unknown"
        assert (porch.ran, porch.branch) == (False, "none")
        assert answer.outcome is Outcome.FAILED
        assert house.simulator.received() == []

    world.run(scenario)


# --------------------------------------------------------------------------- a source down


def test_a_dead_broker_fails_its_part_and_the_others_answer(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        await asyncio.to_thread(world.broker.kill)
        await house.until(lambda: not house.mqtt.connected)
        answer = await house.ask(COMPOUND)
        assert statuses(answer) == [Status.ERROR, Status.OK, Status.OK]
        assert answer.outcome is Outcome.PARTIAL
        assert "MQTT broker" in answer.parts[0].answer.text
        assert "Tomorrow: moderate rain" in answer.text
        assert "Augusta Ada King" in answer.text

    world.run(scenario, confirm_s=0.3)


def test_a_missing_zim_fails_its_part_and_the_others_answer(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        answer = await house.ask(COMPOUND)
        assert statuses(answer) == [Status.DONE, Status.OK, Status.ERROR]
        assert answer.outcome is Outcome.PARTIAL
        assert "nowhere.zim" in answer.parts[2].answer.text
        assert answer.text.startswith("Done: the kitchen light is off. Tomorrow:")

    world.run(scenario, zim=world.zims.missing)


def test_a_slow_weather_service_is_cut_at_the_overall_deadline(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        world.open_meteo.fail_with(Canned(200, b"{}", delay_s=5.0))
        answer = await house.ask("what's the weather tomorrow and what time is it")
        weather, clock = answer.parts
        assert weather.status is Status.ERROR
        assert clock.status is Status.OK
        assert answer.text.endswith("It's 10:00.")
        assert answer.ms < 5000  # the deadline, not the service, ended the wait
        world.open_meteo.release.set()  # the abandoned request ends now, not at its own timeout

    settings = quick(world.config, deadline_s=0.4, grace_s=0.05)
    world.run(scenario, settings=settings)


def test_the_weather_falls_back_on_the_outdoor_sensor_of_the_mqtt_home(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        await house.report("outdoor temperature", temperature=7.5)
        world.open_meteo.fail_with(Canned(500, b"down", "text/plain"))
        answer = await house.ask("how cold is it outside right now")
        (part,) = answer.parts
        assert part.status is Status.OK
        assert part.answer.data["sensor"] == "outdoor temperature"
        assert "7.5" in answer.text or "8" in answer.text

    world.run(scenario)


# --------------------------------------------------------------------------- confirmations

CONFIRMATIONS = [
    # (second turn, minutes between the turns, reply, status, commands to the front door)
    ("yes", 0, "Done: the front door is unlocked.", Status.DONE, [UNLOCK]),
    ("yeah go ahead", 0, "Done: the front door is unlocked.", Status.DONE, [UNLOCK]),
    ("no", 0, "All right, I did not unlock the front door.", Status.DECLINED, []),
    ("don't", 0, "All right, I did not unlock the front door.", Status.DECLINED, []),
    (
        "yes",
        5,
        "That question has expired, so I did not unlock the front door; "
        "ask again if you still want it.",
        Status.DECLINED,
        [],
    ),
]


@pytest.mark.parametrize(("turn", "minutes", "reply", "status", "commands"), CONFIRMATIONS)
def test_an_unlock_waits_for_a_yes_in_the_next_turn(
    world: World,
    turn: str,
    minutes: int,
    reply: str,
    status: Status,
    commands: list[str],
) -> None:
    async def scenario(house: House) -> None:
        asked = await house.ask("unlock the front door")
        assert asked.text == "Do you want me to unlock the front door?"
        assert statuses(asked) == [Status.NEEDS_CONFIRMATION]
        assert asked.parts[0].answer.data["waiting_for"] == "confirmation"
        assert asked.outcome is Outcome.WAITING
        assert house.commands("front door") == []
        house.turns.advance(minutes * 60)
        answer = await house.ask(turn)
        assert answer.text == reply
        assert statuses(answer) == [status]
        assert house.commands("front door") == commands
        again = await house.ask(turn)  # nothing waits any more
        assert again.text == "There is nothing waiting for a yes or a no."
        assert house.commands("front door") == commands

    world.run(scenario)


def test_an_idle_conversation_is_forgotten(world: World) -> None:
    async def scenario(house: House) -> None:
        await house.ask("unlock the front door")
        house.turns.advance(house.assistant.settings.session_idle_s + 1)
        assert (await house.ask("yes")).text == "There is nothing waiting for a yes or a no."
        await house.ask("turn on the kitchen light")
        house.turns.advance(house.assistant.settings.session_idle_s + 1)
        answer = await house.ask("turn it off")  # "it" no longer refers to anything
        assert answer.outcome is not Outcome.ANSWERED
        assert house.commands("kitchen light") == [ON]
        assert house.commands("front door") == []

    world.run(scenario)


def test_a_new_request_instead_of_a_yes_drops_the_waiting_action(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        await house.ask("unlock the front door")
        answer = await house.ask("what time is it")
        assert answer.text == "I did not unlock the front door. It's 10:00."
        assert statuses(answer) == [Status.DECLINED, Status.OK]
        assert (await house.ask("yes")).text == "There is nothing waiting for a yes or a no."
        assert house.commands("front door") == []

    world.run(scenario)


# --------------------------------------------------------------------------- clarification

CLARIFICATIONS = [
    # (second turn, reply, device commanded)
    ("the kitchen one", "Done: the kitchen light is on.", "kitchen light"),
    ("porch", "Done: the porch light is on.", "porch light"),
    ("never mind", "All right, I did not turn on the light.", None),
]


@pytest.mark.parametrize(("turn", "reply", "device"), CLARIFICATIONS)
def test_a_clarifying_question_is_answered_in_the_next_turn(
    world: World,
    turn: str,
    reply: str,
    device: str | None,
) -> None:
    async def scenario(house: House) -> None:
        asked = await house.ask("turn on the light")
        assert asked.text.startswith("Which one do you mean: the bedroom light,")
        (part,) = asked.parts
        assert part.status is Status.NEEDS_CONFIRMATION
        assert part.answer.data["waiting_for"] == "choice"
        assert "kitchen light" in part.answer.data["options"]
        assert house.simulator.received() == []
        answer = await house.ask(turn)
        assert answer.text == reply
        commanded = [c.device for c in house.simulator.received()]
        assert commanded == ([device] if device else [])

    world.run(scenario)


CHOICE_IN_A_BRANCH = [
    # (query, first reply, device commanded after "the kitchen one")
    (
        "if it rains tomorrow turn on the light",
        "Tomorrow: 80% chance of rain, about 6.4 mm. Which one do you mean: the bedroom light,",
        "kitchen light",
    ),
    (
        "if it is sunny on friday turn on the light",
        "Friday: overcast, with about 3 hours of sunshine, so I did nothing.",
        None,
    ),
]


@pytest.mark.parametrize(("query", "reply", "device"), CHOICE_IN_A_BRANCH)
def test_a_question_inside_a_branch_is_asked_only_when_the_branch_runs(
    world: World, query: str, reply: str, device: str | None
) -> None:
    async def scenario(house: House) -> None:
        asked = await house.ask(query)
        assert asked.text.startswith(reply)
        await house.ask("the kitchen one")
        commanded = [c.device for c in house.simulator.received()]
        assert commanded == ([device] if device else [])

    world.run(scenario)


def test_sessions_keep_their_own_context_and_run_concurrently(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        first = await asyncio.gather(
            house.ask("turn on the light", "kitchen"),
            house.ask("unlock the front door", "hallway"),
            house.ask("turn on the bedroom light", "bedroom"),
        )
        assert [a.outcome for a in first] == [Outcome.WAITING, Outcome.WAITING, Outcome.ANSWERED]
        second = await asyncio.gather(
            house.ask("the porch one", "kitchen"),
            house.ask("yes", "hallway"),
            house.ask("turn it off", "bedroom"),
        )
        assert [a.text for a in second] == [
            "Done: the porch light is on.",
            "Done: the front door is unlocked.",
            "Done: the bedroom light is off.",
        ]
        assert [a.session for a in second] == ["kitchen", "hallway", "bedroom"]

    world.run(scenario)


# --------------------------------------------------------------------------- out of scope

OUT_OF_SCOPE = [
    ("play the radio", "I can't play music."),
    ("what's on my calendar today", "I can't read or change a calendar."),
    (
        "turn off the kitchen light and play the radio",
        "Done: the kitchen light is off. I can't play music.",
    ),
]


@pytest.mark.parametrize(("query", "reply"), OUT_OF_SCOPE)
def test_out_of_scope_parts_say_what_mnemolis_cannot_do(
    world: World,
    query: str,
    reply: str,
) -> None:
    async def scenario(house: House) -> None:
        answer = await house.ask(query)
        assert answer.text == reply
        assert answer.parts[-1].status is Status.OUT_OF_SCOPE
        declined = answer.parts[-1].to_dict()["provenance"]["understanding"]["declined"]
        assert declined.startswith("decline.")
        expected = Outcome.PARTIAL if len(answer.parts) > 1 else Outcome.NOT_UNDERSTOOD
        assert answer.outcome is expected

    world.run(scenario)


# --------------------------------------------------------------------------- the structured result

PART_KEYS = {"text", "asked", "intent", "source", "status", "data", "provenance", "ms"}
STATUSES = {str(s) for s in Status}


def test_the_structured_result_has_the_documented_shape(
    world: World,
) -> None:
    async def scenario(house: House) -> None:
        plain = json.loads(json.dumps((await house.ask(COMPOUND)).to_dict()))
        assert set(plain) == {"query", "answer", "parts", "ms", "outcome", "notes"}
        assert plain["query"] == COMPOUND
        for part in plain["parts"]:
            assert set(part) == PART_KEYS
            assert part["status"] in STATUSES
            assert set(part["provenance"]) == {"understanding", "source"}
            assert isinstance(part["ms"], float)
        assert plain["parts"][2]["provenance"]["source"]["article"] == "Ada Lovelace"
        query = "if the back door is unlocked lock it otherwise turn on the hallway light"
        conditional = (await house.ask(query)).to_dict()
        assert [(p["role"], p["branch"], p["ran"]) for p in conditional["parts"]] == [
            ("if", "else", True),
            ("then", "else", False),
            ("else", "else", True),
        ]
        assert conditional["parts"][0]["data"]["truth"] == "false"
        assert all(set(p) == PART_KEYS | {"role", "branch", "ran"} for p in conditional["parts"])

    world.run(scenario)
