"""Routines, replies and external intents end to end: a real Mosquitto, the simulated
default home, a loopback webhook, the Open-Meteo replay, and the assistant over them.

Every step kind is run for real: device actions (by name, area, type, device class)
through the MQTT source, `say:` with slots and device states, `publish:` seen by
another MQTT client, `call:` received by an HTTP server, `wait:`, `if:`, `confirm:`,
`together:` and another source's intent; and routines inside compound and
conditional requests.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from mnemolis.answer import Outcome
from mnemolis.cli import main
from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Status
from tests.support_demo import demo_cache
from tests.support_mqtt import broker
from tests.support_open_meteo import OpenMeteoReplay, open_meteo
from tests.support_routines import (
    RoutineHouse,
    owner_config,
    routine_house,
    running_webhook,
    step_statuses,
)
from tests.support_serve import MqttProbe

__all__ = ["broker", "demo_cache", "open_meteo"]

LIGHTS = ["kitchen light", "living room lamp", "bedroom light", "porch light", "hallway light"]
LOCKS = ["front door", "back door"]


def play(config: Config, broker: Mosquitto, scenario: Any, **options: Any) -> None:
    async def main() -> None:
        async with routine_house(config, broker, **options) as house:
            await scenario(house)

    asyncio.run(main())


def report_lock(house: RoutineHouse, lock: str, state: str) -> None:
    """A lock reports its state on its own (zigbee2mqtt sends `state` and `lock_state`)."""
    house.simulator.report(lock, state=state.upper(), lock_state=state)


async def wake_the_house(house: RoutineHouse) -> None:
    """Every light on and both doors unlocked, reported by the devices themselves."""
    for light in LIGHTS:
        house.simulator.report(light, state="ON")
    for lock in LOCKS:
        report_lock(house, lock, "unlocked")
    await house.ask("is the back door locked")  # the source has heard the reports by then
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        answer = await house.ask("is the front door unlocked")
        if answer.text.startswith("Yes"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the reports did not arrive")


# --------------------------------------------------------------------------- shipped routines


def test_good_night_turns_every_light_off_and_locks_both_doors(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        await wake_the_house(house)
        answer = await house.ask("good night")
        assert answer.outcome is Outcome.ANSWERED
        assert [p.part.intent for p in answer.parts] == ["routine.good_night"]
        assert step_statuses(answer) == [
            ("1", "action", "done"),
            ("2", "action", "done"),
            ("3", "action", "done"),
        ]
        for light in LIGHTS:
            assert house.commands(light)[-1]["state"] == "OFF", light
            assert house.state(light)["state"] == "OFF", light
        for lock in LOCKS:
            assert house.commands(lock) == [{"state": "LOCK"}], lock
            assert house.state(lock)["state"] == "LOCKED", lock
        assert house.commands("thermostat")[-1]["temperature"] == 17
        assert house.commands("garage door") == []  # a cover is not a light or a lock
        assert "locked" in answer.text and "off" in answer.text

    play(config, broker, scenario)


def test_good_morning_opens_the_blinds_not_the_garage_and_says_the_time(
    config: Config, broker: Mosquitto, open_meteo: OpenMeteoReplay, tmp_path: Path
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        answer = await house.ask("good morning")
        assert answer.outcome is Outcome.ANSWERED, answer.text
        assert house.commands("living room blinds") == [{"state": "OPEN"}]
        assert house.commands("garage door") == []
        assert house.commands("thermostat")[-1]["temperature"] == 21
        # the say: and the intents are said; the device steps that went well are not
        assert answer.text.startswith("Good morning. It's 10:00.")
        assert "Today:" in answer.text
        assert "blinds" not in answer.text

    play(config, broker, scenario, weather_url=open_meteo.url, cache_dir=tmp_path / "weather")


@pytest.mark.parametrize(
    ("said", "room", "lamp", "blinds"),
    [
        ("movie time", None, "living room lamp", "living room blinds"),
        ("movie time in the living room", None, "living room lamp", "living room blinds"),
        ("movie time", "living room", "living room lamp", "living room blinds"),
        ("movie time in the kitchen", None, "kitchen light", None),
    ],
)
def test_movie_time_acts_in_the_room_asked_for_or_the_one_spoken_in(
    config: Config,
    broker: Mosquitto,
    said: str,
    room: str | None,
    lamp: str,
    blinds: str | None,
) -> None:
    async def scenario(house: RoutineHouse) -> None:
        answer = await house.ask(said, room=room)
        assert answer.outcome is Outcome.ANSWERED, answer.text
        assert house.state(lamp)["state"] == "ON"
        assert house.commands(lamp)[-1]["brightness"] == 51  # 20 % of 255
        others = [d for d in ("kitchen light", "living room lamp") if d != lamp]
        assert all(house.commands(d) == [] for d in others)
        if blinds is not None:
            assert house.commands(blinds) == [{"state": "CLOSE"}]
        assert house.commands("garage door") == []

    play(config, broker, scenario)


# --------------------------------------------------------------------------- every step kind

EVENING = """
intents:
  test.evening:
    phrases: [evening routine]
    slots: [room]
    do:
      - action: turn_on
        area: "{{{{ room or 'kitchen' }}}}"
        type: light
      - publish:
          topic: test/evening
          payload: '{{"room": "{{{{ room }}}}", "lamp": "{{{{ state("kitchen light").state }}}}"}}'
      - call:
          url: {url}
          json: {{event: evening, room: "{{{{ room }}}}"}}
      - wait: 0.3
      - if: {{device: back door, state: unlocked}}
        then:
          - action: lock
            device: back door
        else:
          - say: The back door was locked already.
      - say: "Good evening in the {{{{ room or 'kitchen' }}}}; it is {{{{ sensor('outdoor temperature') }}}} degrees out."
"""


def test_every_step_kind_runs_through_the_real_parts(
    tmp_path: Path, broker: Mosquitto
) -> None:
    with running_webhook() as hook:
        config = owner_config(tmp_path, EVENING.format(url=hook.url()))
        probe = MqttProbe(broker.host, broker.port, ["test/#"]).start()

        async def scenario(house: RoutineHouse) -> None:
            report_lock(house, "back door", "unlocked")
            house.simulator.report("outdoor temperature", temperature=4)
            await asyncio.sleep(0.2)
            started = time.monotonic()
            answer = await house.ask("evening routine in the kitchen")
            assert time.monotonic() - started >= 0.3  # the wait
            assert step_statuses(answer) == [
                ("1", "action", "done"),
                ("2", "publish", "done"),
                ("3", "call", "done"),
                ("4", "wait", "ok"),
                ("5", "if", "ok"),
                ("5.then.1", "action", "done"),
                ("6", "say", "ok"),
            ]
            assert answer.text == "Good evening in the kitchen; it is 4.0 degrees out."
            assert house.state("kitchen light")["state"] == "ON"
            assert house.state("back door")["state"] == "LOCKED"
            assert house.commands("porch light") == []

        try:
            play(config, broker, scenario)
            message = probe.inbox.get(timeout=5)
            assert message.topic == "test/evening"
            assert json.loads(message.payload) == {"room": "kitchen", "lamp": "on"}
        finally:
            probe.stop()
        assert [(h.method, h.path, h.json()) for h in hook.received] == [
            ("POST", "/api/webhook/mnemolis", {"event": "evening", "room": "kitchen"})
        ]
        assert hook.received[0].headers["Content-Type"] == "application/json"


IF_ROUTINE = """
intents:
  test.check_door:
    phrases: [check the back door routine]
    do:
      - if: {device: back door, state: unlocked}
        then:
          - action: lock
            device: back door
          - say: I locked the back door.
        else:
          - say: The back door was locked.
"""


@pytest.mark.parametrize(
    ("reported", "said", "steps", "locks"),
    [
        ("UNLOCKED", "I locked the back door.", ["1", "1.then.1", "1.then.2"], 1),
        ("LOCKED", "The back door was locked.", ["1", "1.else.1"], 0),
    ],
)
def test_an_if_step_runs_the_branch_the_device_state_chooses(
    tmp_path: Path, broker: Mosquitto, reported: str, said: str, steps: list[str], locks: int
) -> None:
    config = owner_config(tmp_path, IF_ROUTINE)

    async def scenario(house: RoutineHouse) -> None:
        report_lock(house, "back door", reported.lower())
        await asyncio.sleep(0.2)
        answer = await house.ask("check the back door routine")
        assert answer.text == said
        assert [s for s, _k, _st in step_statuses(answer)] == steps
        assert len(house.commands("back door")) == locks

    play(config, broker, scenario)


def test_an_if_step_on_a_device_that_never_reported_runs_neither_branch(
    tmp_path: Path, broker: Mosquitto
) -> None:
    config = owner_config(tmp_path, IF_ROUTINE)

    async def scenario(house: RoutineHouse) -> None:
        house.simulator.set_available("back door", False)
        await asyncio.sleep(0.2)
        answer = await house.ask("check the back door routine")
        assert step_statuses(answer) == [("1", "if", "error")]
        assert answer.text.startswith("I couldn't tell whether the back door is unlocked")
        assert house.commands("back door") == []

    play(config, broker, scenario)


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


def test_a_confirm_step_waits_for_a_yes_before_the_rest(
    tmp_path: Path, broker: Mosquitto
) -> None:
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


def test_an_expired_yes_runs_nothing_more(tmp_path: Path, broker: Mosquitto) -> None:
    config = owner_config(tmp_path, WELCOME)

    async def scenario(house: RoutineHouse) -> None:
        await house.ask("welcome home")
        house.turns.advance(60)  # confirm_expiry_s is 30
        late = await house.ask("yes")
        assert late.text.startswith("That question has expired")
        assert house.commands("front door") == []

    play(config, broker, scenario)


# --------------------------------------------------------------------------- together, webhooks

TOGETHER = """
intents:
  test.together:
    phrases: [both at once]
    do:
      - together:
          - wait: 0.4
          - wait: 0.4
          - action: turn_on
            device: porch light
      - say: Both done.
"""


def test_together_steps_run_at_the_same_time(tmp_path: Path, broker: Mosquitto) -> None:
    config = owner_config(tmp_path, TOGETHER)

    async def scenario(house: RoutineHouse) -> None:
        started = time.monotonic()
        answer = await house.ask("both at once")
        elapsed = time.monotonic() - started
        assert 0.4 <= elapsed < 0.75, elapsed
        assert answer.text == "Both done."
        assert [s for s, _k, _st in step_statuses(answer)] == ["1.1", "1.2", "1.3", "2"]
        assert house.state("porch light")["state"] == "ON"

    play(config, broker, scenario)


HOOKED = """
intents:
  test.hooked:
    phrases: [ring the webhook]
    do:
      - call: {{url: {url}, method: PUT, body: "hello from {{{{ intent }}}}", timeout_s: 0.5}}
      - action: turn_on
        device: porch light
"""


@pytest.mark.parametrize(
    ("status", "delay_s", "reason"),
    [
        (500, 0.0, "HTTP 500"),
        (404, 0.0, "HTTP 404"),
        (200, 1.5, "no answer within 0.5 s"),
    ],
)
def test_a_failing_webhook_is_an_error_step_and_the_rest_still_runs(
    tmp_path: Path, broker: Mosquitto, status: int, delay_s: float, reason: str
) -> None:
    with running_webhook(status, delay_s) as hook:
        config = owner_config(tmp_path, HOOKED.format(url=hook.url("/hook")))

        async def scenario(house: RoutineHouse) -> None:
            answer = await house.ask("ring the webhook")
            assert step_statuses(answer) == [("1", "call", "error"), ("2", "action", "done")]
            assert answer.outcome is Outcome.FAILED  # the routine, as a whole, did not go to plan
            assert reason in answer.text
            assert house.state("porch light")["state"] == "ON"

        play(config, broker, scenario)
        assert [(h.method, h.body) for h in hook.received] == [("PUT", b"hello from test.hooked")]


def test_a_webhook_nobody_listens_on_says_so(tmp_path: Path, broker: Mosquitto) -> None:
    with running_webhook() as hook:
        url = hook.url()
    config = owner_config(tmp_path, HOOKED.format(url=url))  # the server is gone now

    async def scenario(house: RoutineHouse) -> None:
        answer = await house.ask("ring the webhook")
        assert step_statuses(answer)[0] == ("1", "call", "error")
        assert "connection refused" in answer.text.lower()

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
    assert (ours["intent"], ours["slots"], ours["session"]) == ("garden.water", {"room": "porch"}, "s1")
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
