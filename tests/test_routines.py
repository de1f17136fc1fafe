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

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.runtime.answer import Outcome
from tests.support_demo import demo_cache
from tests.support_mqtt import broker
from tests.support_open_meteo import OpenMeteoReplay, open_meteo
from tests.support_routines import (
    LIGHTS,
    LOCKS,
    RoutineHouse,
    owner_config,
    play,
    report_lock,
    running_webhook,
    step_statuses,
    wake_the_house,
)
from tests.support_serve import MqttProbe

__all__ = ["broker", "demo_cache", "open_meteo"]

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


def test_every_step_kind_runs_through_the_real_parts(tmp_path: Path, broker: Mosquitto) -> None:
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


# --------------------------------------------------------------------------- together, webhooks

TOGETHER = """
intents:
  test.together:
    phrases: [both at once]
    do:
      - together:
          - wait: 1.0
          - wait: 1.0
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
        assert 1.0 <= elapsed < 1.9, elapsed  # one second, not two one after the other
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


def test_doctor_says_which_webhooks_of_the_routines_do_not_answer(
    tmp_path: Path, broker: Mosquitto
) -> None:
    from mnemolis.sources.base import Level
    from mnemolis.sources.routines.source import RoutinesSource

    with running_webhook() as gone:
        dead = gone.url()
    with running_webhook() as hook:
        routines = HOOKED.format(url=hook.url()) + HOOKED.format(url=dead).replace(
            "intents:\n  test.hooked:\n    phrases: [ring the webhook]",
            "  test.dead:\n    phrases: [ring the dead webhook]",
        )
        config = owner_config(tmp_path, routines)

        async def scenario(house: RoutineHouse) -> None:
            source = house.assistant.source_of(RoutinesSource)
            assert source is not None
            (finding,) = await source.diagnose()
            assert finding.level is Level.WARNING
            assert dead in finding.text and hook.url() not in finding.text
            assert finding.text.startswith("5 routines, 5 replies")

        play(config, broker, scenario)
    assert hook.received == []  # the doctor connects, it never calls a webhook
