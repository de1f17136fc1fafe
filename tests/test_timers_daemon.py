"""Timers against a running `mnemolis serve` on a real Mosquitto: what is due is said on
`mnemolis/say` on time, survives SIGTERM and a restart, and a delayed command reaches
its device then and not before (with its yes asked for when it was set)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    fixture_serve_home,
    http_call,
    probe,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

SAY = "mnemolis/say"
FLAGS = ("--http", "127.0.0.1:0", "--no-wyoming", "--mqtt-api", "--no-hermes")
FRONT_ENDS = ("http", "mqtt-api")


def ask(daemon: ServeProcess, text: str, session: str = "timers") -> dict[str, Any]:
    status, body, _ = http_call(
        daemon.http_port, "POST", "/ask", {"text": text, "session": session}
    )
    assert status == 200, body
    return body


@pytest.fixture(scope="module", name="state")
def fixture_state(serve_home: ServeHome) -> Path:
    return serve_home.folder / "timers-state"


@pytest.fixture(scope="module", name="timers_daemon")
def fixture_timers_daemon(serve_home: ServeHome, state: Path) -> Iterator[ServeProcess]:
    env = {"MNEMOLIS_STATE": str(state)}
    with running_daemon(serve_home, FLAGS, FRONT_ENDS, env=env) as daemon:
        yield daemon


def test_a_two_second_timer_is_said_on_mnemolis_say_on_time(
    serve_home: ServeHome, timers_daemon: ServeProcess
) -> None:
    with probe(serve_home, SAY) as ear:
        answer = ask(timers_daemon, "set a timer for 2 seconds")
        assert answer["answer"] == "Timer set for 2 seconds."
        due = answer["parts"][0]["data"]["due_at"]
        said = ear.next(timeout_s=5)
        arrived = time.time()
    assert -0.05 <= arrived - due <= 2.0, f"said {arrived - due:+.3f} s from when it was due"
    body = said.json()
    assert {k: body[k] for k in ("text", "kind", "session", "room")} == {
        "text": "Your 2 second timer is done",
        "kind": "timer",
        "session": "timers",
        "room": None,
    }
    assert body["id"] == answer["parts"][0]["data"]["id"] and said.topic == SAY


def test_a_delayed_command_is_sent_then_and_not_before(
    serve_home: ServeHome, timers_daemon: ServeProcess
) -> None:
    command = "home/porch_light/set"
    with probe(serve_home, command, SAY) as ear:
        asked = time.time()
        answer = ask(timers_daemon, "in 2 seconds turn on the porch light")
        assert answer["answer"] == "I'll turn on the porch light in 2 seconds."
        first = ear.next(timeout_s=5)
        at = time.time() - asked
        assert first.topic == command, "the command comes first, then what was said of it"
        assert json.loads(first.payload) == {"state": "ON"}
        assert 1.9 <= at <= 4.5, f"the command came after {at:.2f} s"
        said = ear.next(timeout_s=5)
    assert said.topic == SAY and said.json()["kind"] == "scheduled"
    assert said.json()["text"].endswith("Done: the porch light is on.")


def test_a_delayed_unlock_asks_for_its_yes_when_it_is_set(
    serve_home: ServeHome, timers_daemon: ServeProcess
) -> None:
    command = "home/front_door/set"
    with probe(serve_home, command) as door:
        asked = ask(timers_daemon, "unlock the front door in 2 seconds", "door")
        assert asked["answer"] == "Do you want me to unlock the front door in 2 seconds?"
        assert asked["outcome"] == "waiting"
        assert door.nothing(within_s=2.5), "nothing is unlocked before the yes"
        yes = ask(timers_daemon, "yes", "door")
        assert yes["answer"] == "I'll unlock the front door in 2 seconds."
        confirmed = time.time()
        unlock = door.next(timeout_s=5)
        assert json.loads(unlock.payload) == {"state": "UNLOCK"}
        assert 1.9 <= time.time() - confirmed <= 4.5


def test_a_timer_set_before_sigterm_is_said_after_the_restart(
    serve_home: ServeHome, tmp_path: Path
) -> None:
    env = {"MNEMOLIS_STATE": str(tmp_path / "state")}
    with probe(serve_home, SAY) as ear:
        with running_daemon(serve_home, FLAGS, FRONT_ENDS, env=env) as first:
            answer = ask(first, "set a 3 second tea timer", "kitchen")
            assert answer["answer"] == "Tea timer set for 3 seconds."
            timer = answer["parts"][0]["data"]["id"]
        # stopped with SIGTERM (exit 0) before the timer was due; started again
        with running_daemon(serve_home, FLAGS, FRONT_ENDS, env=env) as second:
            said = ear.next(timeout_s=20).json()
            while said["id"] != timer:  # another daemon of this module may speak too
                said = ear.next(timeout_s=20).json()
            status = ask(second, "what timers do i have", "kitchen")
    assert said["id"] == timer and said["kind"] == "timer" and said["session"] == "kitchen"
    assert said["text"].startswith("Your tea timer is done")
    if said["late_s"] > 5:  # the restart took longer than the timer: it says how late
        assert "ago; I could not say it sooner" in said["text"]
    assert status["answer"] == "You have no timers."
