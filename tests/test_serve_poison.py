"""Issue 21's probes against a running `mnemolis serve`, as they were found.

Before the daemon starts, its broker holds what an attacker who may publish
announcements left there: sensors whose value templates backtrack (V1) or
square big integers (V2) with their retained states, switches on the front
door lock's command topic, on Hermes' ``tts/say`` and on ``mnemolis/ask``
(V4), and sixty 54 KB templates (V7). The daemon must start, answer
``/health``, drive the other devices and refuse the switches; the poison is
sent again while it runs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests import support_attacks as attacks
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    fixture_serve_home,
    http_call,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

LEFT = [
    *attacks.poison_sensors(),
    *attacks.poison_states(),
    *attacks.stolen_topics(),
    *attacks.heavy_templates(),
]


@pytest.fixture(scope="module", name="daemon")
def fixture_poisoned_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    for topic, payload, retain in LEFT:
        serve_home.simulator.publish(topic, payload, retain)
    try:
        with running_daemon(serve_home, ["--http", "127.0.0.1:0"], ["http"]) as daemon:
            yield daemon
    finally:
        for topic, payload, retain in attacks.cleared(LEFT):
            serve_home.simulator.publish(topic, payload, retain)


def ask(daemon: ServeProcess, text: str) -> str:
    status, body, _ = http_call(daemon.http_port, "POST", "/ask", {"text": text})
    assert status == 200, body
    return str(body["answer"])


def test_the_daemon_starts_and_answers_with_the_poison_retained(daemon: ServeProcess) -> None:
    status, body, _ = http_call(daemon.http_port, "GET", "/health")
    assert status == 200, body


def test_other_devices_are_driven_while_the_poison_comes_again(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    for _ in range(3):
        for topic, payload, retain in attacks.poison_states():
            serve_home.simulator.publish(topic, payload, retain)
        assert ask(daemon, "turn on the kitchen light") == "Done: the kitchen light is on."
        assert http_call(daemon.http_port, "GET", "/health")[0] == 200
        assert ask(daemon, "turn off the kitchen light") == "Done: the kitchen light is off."
    commands = [c.payload for c in serve_home.simulator.received("kitchen light")]
    assert commands == ['{"state": "ON"}', '{"state": "OFF"}'] * 3


def test_a_fountain_on_the_lock_s_topic_does_not_open_the_front_door(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    answer = ask(daemon, "turn on the garden fountain")
    assert answer.startswith('I know a device called "garden fountain", but its configuration')
    assert "'home/front_door/set' belongs to the front door" in answer
    for name in ("party speaker", "helper one", "helper two"):
        assert "is the assistant's own" in ask(daemon, f"turn on the {name}"), name
    time.sleep(0.3)  # a command sent late would show here
    assert serve_home.simulator.received("front door") == []
