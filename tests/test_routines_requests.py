"""Routines in a conversation and beside other sources: the yes a routine that unlocks
asks (the same as the plain command's), a `confirm:` step, replies answered rather than
declined, external intents published for Mnemolis clients and Rhasspy apps, routines in
compound and conditional requests, and `mnemolis demo --ask "good night"`."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.runtime.answer import Outcome
from mnemolis.sources.base import Status
from tests.support_demo import demo_cache
from tests.support_mqtt import broker
from tests.support_open_meteo import OpenMeteoReplay, open_meteo
from tests.support_routines import (
    LIGHTS,
    LOCKS,
    RoutineHouse,
    owner_config,
    play,
    step_statuses,
    wake_the_house,
)
from tests.support_serve import MqttProbe

__all__ = ["broker", "demo_cache", "open_meteo"]


# --------------------------------------------------------------------------- confirmations

WELCOME = """
intents:
  test.welcome:
    phrases: [welcome home]
    do:
      - action: turn_on
        device: hallway light
      - action: unlock
        device: front door
      - say: Welcome home.
  test.party:
    phrases: [party time]
    do:
      - confirm: Shall I start the party?
      - publish: {topic: test/party, payload: started}
      - say: The party has started.
"""


def test_a_routine_that_unlocks_asks_the_same_yes_as_the_plain_command(
    tmp_path: Path, broker: Mosquitto
) -> None:
    config = owner_config(tmp_path, WELCOME)

    async def scenario(house: RoutineHouse) -> None:
        plain = await house.ask("unlock the front door", session="other")
        answer = await house.ask("welcome home")
        assert answer.outcome is Outcome.WAITING
        assert plain.text == "Do you want me to unlock the front door?"
        assert answer.text == f"Done: the hallway light is on. {plain.text}"
        assert answer.parts[0].status is Status.NEEDS_CONFIRMATION
        assert answer.parts[0].answer.data["waiting_for"] == "confirmation"
        assert house.state("hallway light")["state"] == "ON"  # the step before it ran
        assert house.commands("front door") == []  # nothing unlocked without a yes
        done = await house.ask("yes")
        assert done.outcome is Outcome.ANSWERED, done.text
        assert done.text == "Welcome home."
        assert house.commands("front door") == [{"state": "UNLOCK"}]
        assert len(house.commands("hallway light")) == 1  # not switched on twice
        assert step_statuses(done) == [("2", "action", "done"), ("3", "say", "ok")]

    play(config, broker, scenario)


@pytest.mark.parametrize(
    ("reply", "unlocked", "said"),
    [("no", False, "All right, I did not welcome home."), ("what time is it", False, None)],
)
def test_without_a_yes_a_routine_never_unlocks(
    tmp_path: Path, broker: Mosquitto, reply: str, unlocked: bool, said: str | None
) -> None:
    config = owner_config(tmp_path, WELCOME)

    async def scenario(house: RoutineHouse) -> None:
        await house.ask("welcome home")
        answer = await house.ask(reply)
        if said is not None:
            assert answer.text == said
        assert (house.commands("front door") != []) is unlocked
        late = await house.ask("yes")
        assert late.text == "There is nothing waiting for a yes or a no."
        assert house.commands("front door") == []

    play(config, broker, scenario)


def test_a_confirm_step_waits_for_a_yes_before_the_rest(tmp_path: Path, broker: Mosquitto) -> None:
    config = owner_config(tmp_path, WELCOME)
    probe = MqttProbe(broker.host, broker.port, ["test/#"]).start()

    async def scenario(house: RoutineHouse) -> None:
        asked = await house.ask("party time")
        assert asked.text == "Shall I start the party?"
        assert asked.outcome is Outcome.WAITING
        await asyncio.sleep(0.2)
        assert probe.inbox.empty()
        done = await house.ask("yes")
        assert done.text == "The party has started."
        assert step_statuses(done) == [
            ("1", "confirm", "ok"),
            ("2", "publish", "done"),
            ("3", "say", "ok"),
        ]

    try:
        play(config, broker, scenario)
        assert probe.inbox.get(timeout=5).payload == b"started"
        time.sleep(0.1)
        assert probe.inbox.empty()  # published once
    finally:
        probe.stop()


def test_two_routines_waiting_in_one_turn_each_go_on_from_where_they_stopped(
    tmp_path: Path, broker: Mosquitto
) -> None:
    config = owner_config(tmp_path, WELCOME)
    probe = MqttProbe(broker.host, broker.port, ["test/#"]).start()

    async def scenario(house: RoutineHouse) -> None:
        asked = await house.ask("welcome home and party time")
        assert [p.status for p in asked.parts] == [Status.NEEDS_CONFIRMATION] * 2
        done = await house.ask("yes")
        assert done.outcome is Outcome.ANSWERED, done.text
        assert done.text == "Welcome home. The party has started."
        assert house.commands("front door") == [{"state": "UNLOCK"}]
        assert len(house.commands("hallway light")) == 1

    try:
        play(config, broker, scenario)
        assert probe.inbox.get(timeout=5).payload == b"started"
        time.sleep(0.1)
        assert probe.inbox.empty()
    finally:
        probe.stop()


def test_an_expired_yes_runs_nothing_more(tmp_path: Path, broker: Mosquitto) -> None:
    config = owner_config(tmp_path, WELCOME)

    async def scenario(house: RoutineHouse) -> None:
        await house.ask("welcome home")
        house.turns.advance(60)  # confirm_expiry_s is 30
        late = await house.ask("yes")
        assert late.text.startswith("That question has expired")
        assert house.commands("front door") == []

    play(config, broker, scenario)


# --------------------------------------------------------------------------- replies, external

EXTERNAL = """
intents:
  garden.water:
    source: external
    phrases: [water the garden]
    slots: [room]
    say: "Watering{% if room %} by the {{ room }}{% endif %}."
  garden.lights:
    source: external
    phrases: [garden lights]
"""


def test_an_external_intent_is_published_for_mnemolis_clients_and_rhasspy_apps(
    tmp_path: Path, broker: Mosquitto
) -> None:
    config = owner_config(tmp_path, EXTERNAL)
    probe = MqttProbe(broker.host, broker.port, ["mnemolis/intent/#", "hermes/intent/#"]).start()

    async def scenario(house: RoutineHouse) -> None:
        answer = await house.ask("water the garden by the porch", session="s1")
        assert answer.outcome is Outcome.ANSWERED
        assert answer.text == "Watering by the porch."
        assert answer.parts[0].status is Status.DONE
        other = await house.ask("garden lights")
        assert other.text == "OK."

    try:
        play(config, broker, scenario)
        got = {}
        for _ in range(4):
            message = probe.inbox.get(timeout=5)
            got.setdefault(message.topic, json.loads(message.payload))
    finally:
        probe.stop()
    ours = got["mnemolis/intent/garden.water"]
    assert (ours["intent"], ours["slots"], ours["session"]) == (
        "garden.water",
        {"room": "porch"},
        "s1",
    )
    hermes = got["hermes/intent/garden.water"]
    assert hermes["input"] == "water the garden by the porch"
    assert hermes["intent"] == {"intentName": "garden.water", "confidenceScore": 1.0}
    assert hermes["slots"] == [
        {
            "entity": "room",
            "slotName": "room",
            "rawValue": "porch",
            "value": {"kind": "Unknown", "value": "porch"},
            "confidence": 1.0,
        }
    ]
    assert (hermes["siteId"], hermes["sessionId"]) == ("default", "s1")
    assert hermes["id"] == ours["id"]
    assert "mnemolis/intent/garden.lights" in got and "hermes/intent/garden.lights" in got


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("who are you", "I'm Mnemolis, a home assistant that runs here"),
        ("thank you", "You're welcome."),
        ("well done", "Thank you, glad I could help."),
    ],
)
def test_a_reply_only_intent_is_answered_not_declined(
    config: Config, broker: Mosquitto, said: str, reply: str
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        answer = await house.ask(said)
        assert answer.outcome is Outcome.ANSWERED
        assert [p.status for p in answer.parts] == [Status.OK]
        assert answer.text.startswith(reply)

    play(config, broker, scenario)


# --------------------------------------------------------------------------- in compound and conditional requests


def test_a_routine_in_a_compound_request_runs_beside_another_source(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        await wake_the_house(house)
        answer = await house.ask("good night and what time is it")
        assert [p.part.intent for p in answer.parts] == ["routine.good_night", "clock.time"]
        assert answer.outcome is Outcome.ANSWERED
        assert "It's 10:00." in answer.text
        assert all(house.state(light)["state"] == "OFF" for light in LIGHTS)

    play(config, broker, scenario)


def test_a_device_step_after_a_routine_keeps_its_order(config: Config, broker: Mosquitto) -> None:
    async def scenario(house: RoutineHouse) -> None:
        await wake_the_house(house)
        await house.ask("good night and then turn on the porch light")
        assert house.state("porch light")["state"] == "ON"  # after the routine, not before
        assert [c["state"] for c in house.commands("porch light")] == ["OFF", "ON"]

    play(config, broker, scenario)


@pytest.mark.parametrize(
    ("said", "ran"),
    [
        ("if it rains tomorrow run good night", True),  # Thursday: 80% chance of rain
        ("if it is raining tomorrow run good night", True),
        ("if it rains on friday run good night", False),  # Friday: 30%
        ("unless it rains on friday good night", True),
    ],
)
def test_a_routine_as_the_consequence_of_a_condition(
    config: Config,
    broker: Mosquitto,
    open_meteo: OpenMeteoReplay,
    tmp_path: Path,
    said: str,
    ran: bool,
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        await wake_the_house(house)
        answer = await house.ask(said)
        routine = next(p for p in answer.parts if p.part.intent == "routine.good_night")
        assert routine.ran is ran
        assert all((house.state(light)["state"] == "OFF") is ran for light in LIGHTS)
        assert all((house.state(lock)["state"] == "LOCKED") is ran for lock in LOCKS)

    play(config, broker, scenario, weather_url=open_meteo.url, cache_dir=tmp_path / "weather")


def test_mnemolis_demo_good_night_turns_every_light_off_and_locks_both_doors(
    demo_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--cache", str(demo_cache), "--json", "--ask", "good night"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["outcome"] == "answered"
    (part,) = result["parts"]
    assert (part["intent"], part["source"], part["status"]) == (
        "routine.good_night",
        "routines",
        "done",
    )
    lights, locks, heating = part["data"]["steps"]
    switched = {d["device"]: d["state"]["state"] for d in lights["data"]["devices"]}
    assert switched == dict.fromkeys(sorted(LIGHTS), "off")
    locked = {d["device"]: d["state"]["state"] for d in locks["data"]["devices"]}
    assert locked == dict.fromkeys(sorted(LOCKS), "locked")
    assert heating["data"]["state"]["target_temperature"] == 17
