"""Issue 21, item 5: one namespace of conversations across front-ends. The probe's
attacks against a running `mnemolis serve` with every front-end on a real Mosquitto:
a "yes" from one front-end to what another's client was asked, a guessed Wyoming
connection, a stranger's yes within one front-end's shared session. After each, the
client that was asked says its own yes, and only that unlocks the door."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    MqttProbe,
    ServeHome,
    ServeProcess,
    fixture_daemon,
    fixture_serve_home,
    http_call,
    probe,
)

__all__ = ["fixture_daemon", "fixture_serve_home", "fixture_test_zims"]

UNLOCKED = "Done: the front door is unlocked."
CAPTURED = "hermes/asr/textCaptured"
SAY = "hermes/tts/say"
CONTINUE = "hermes/dialogueManager/continueSession"
REPLY = "mnemolis/sessions"


@pytest.fixture(name="door")
def fixture_door(serve_home: ServeHome) -> Iterator[ServeHome]:
    serve_home.simulator.clear()
    yield serve_home


def unlocks(home: ServeHome) -> int:
    return sum('"UNLOCK"' in c.payload for c in home.simulator.received("front door"))


def mqtt_ask(client: MqttProbe, text: str, session: str) -> dict[str, Any]:
    client.publish("mnemolis/ask", json.dumps({"text": text, "session": session}), REPLY, b"1")
    answer: dict[str, Any] = client.next().json()
    return answer


def hermes_say(client: MqttProbe, text: str, site: str, session_id: str) -> dict[str, Any]:
    client.publish(CAPTURED, json.dumps({"text": text, "siteId": site, "sessionId": session_id}))
    said: dict[str, Any] = client.next().json()
    return said


def wyoming_say(sock: socket.socket, text: str, context: dict[str, Any] | None) -> dict[str, Any]:
    """One transcript on an open connection; the event that answers it, with its data."""
    data = json.dumps({"text": text, "context": context}).encode()
    sock.sendall(b'{"type": "transcript", "data_length": %d}\n' % len(data) + data)
    stream = sock.makefile("rb")
    header: dict[str, Any] = json.loads(stream.readline())
    header["data"] = json.loads(stream.read(header["data_length"]))
    return header


def wyoming(daemon: ServeProcess) -> socket.socket:
    return socket.create_connection(daemon.wyoming_address, timeout=10)


def http_ask(daemon: ServeProcess, text: str, session: str | None) -> dict[str, Any]:
    body = {"text": text} if session is None else {"text": text, "session": session}
    status, answer, _ = http_call(daemon.http_port, "POST", "/ask", body)
    assert status == 200, answer
    return answer


# --------------------------------------------------------------------------- across front-ends


def test_one_session_name_on_http_and_on_mqtt_is_two_conversations(
    door: ServeHome, daemon: ServeProcess
) -> None:
    asked = http_ask(daemon, "unlock the front door", "shared")
    with probe(door, REPLY) as client:
        other = mqtt_ask(client, "yes", "shared")
    assert asked["outcome"] == "waiting" and other["answer"] != UNLOCKED
    assert unlocks(door) == 0
    assert http_ask(daemon, "yes", "shared")["answer"] == UNLOCKED
    assert unlocks(door) == 1


def test_an_mqtt_client_cannot_say_a_hermes_sites_yes_nor_the_other_way(
    door: ServeHome, daemon: ServeProcess
) -> None:
    """The probe: MQTT in session ``hermes:kitchen`` asks to unlock, a Hermes "yes" from
    site kitchen (any sessionId) confirmed it; and the other way round."""
    with probe(door, REPLY, SAY, CONTINUE) as client:
        asked = mqtt_ask(client, "unlock the front door", "hermes:kitchen")
        site_yes = hermes_say(client, "yes", "kitchen", "any-session")
        assert asked["outcome"] == "waiting" and asked["session"] == "hermes:kitchen"
        assert site_yes["text"] != UNLOCKED
        mqtt_ask(client, "no", "hermes:kitchen")  # its own question answered: none left
        question = hermes_say(client, "unlock the front door", "kitchen", "h-1")
        mqtt_yes = mqtt_ask(client, "yes", "hermes:kitchen")
        assert question["sessionId"] == "h-1" and "unlock" in question["text"]
        assert mqtt_yes["answer"] != UNLOCKED and unlocks(door) == 0
        done = hermes_say(client, "yes", "kitchen", "h-1")
    assert (done["sessionId"], done["text"]) == ("h-1", UNLOCKED)
    assert unlocks(door) == 1


def test_an_mqtt_client_cannot_say_a_wyoming_satellites_yes_nor_the_other_way(
    door: ServeHome, daemon: ServeProcess
) -> None:
    den = {"satellite_id": "den"}
    with probe(door, REPLY) as client, wyoming(daemon) as satellite:
        asked = mqtt_ask(client, "unlock the front door", "wyoming:satellite:den")
        satellite_yes = wyoming_say(satellite, "yes", den)
        assert asked["outcome"] == "waiting"
        assert satellite_yes["data"]["text"] != UNLOCKED
        mqtt_ask(client, "no", "wyoming:satellite:den")
        question = wyoming_say(satellite, "unlock the front door", den)
        mqtt_yes = mqtt_ask(client, "yes", "wyoming:satellite:den")
        assert "unlock" in question["data"]["text"] and mqtt_yes["answer"] != UNLOCKED
        assert unlocks(door) == 0
        done = wyoming_say(satellite, "yes", den)
    assert done["data"]["text"] == UNLOCKED and unlocks(door) == 1


def test_a_wyoming_connections_own_session_cannot_be_guessed(
    door: ServeHome, daemon: ServeProcess
) -> None:
    """Connections were numbered from 1, so ``wyoming:connection:2`` could be named
    from MQTT; now every connection's session is random, and Wyoming's own."""
    mark = daemon.mark()
    with wyoming(daemon) as first, wyoming(daemon) as second:
        asked = wyoming_say(first, "unlock the front door", None)
        wyoming_say(second, "what time is it", None)
        with probe(door, REPLY) as client:
            guesses = [mqtt_ask(client, "yes", f"wyoming:connection:{n}") for n in range(1, 6)]
            guesses.append(http_ask(daemon, "yes", "wyoming:connection:1"))
        assert "unlock" in asked["data"]["text"] and unlocks(door) == 0
        assert all(g["answer"] != UNLOCKED for g in guesses)
        done = wyoming_say(first, "yes", None)
    assert done["data"]["text"] == UNLOCKED and unlocks(door) == 1
    logged = re.findall(r'ask via=wyoming session="wyoming:connection:([^"]+)"', daemon.output(mark))
    assert len(logged) == 3 and len(set(logged)) == 2  # two connections, one with two turns
    assert all(re.fullmatch(r"[0-9a-f]{32}", ident) for ident in logged), logged


# --------------------------------------------------------------------------- within one front-end


def test_a_request_that_names_no_session_cannot_say_a_named_sessions_yes(
    door: ServeHome, daemon: ServeProcess
) -> None:
    """HTTP's default session is "http": a client that names it owns its questions; one
    that names none shares the context but not the right to confirm."""
    asked = http_ask(daemon, "unlock the front door", "http")
    stranger = http_ask(daemon, "yes", None)
    assert asked["outcome"] == "waiting" and stranger["answer"] != UNLOCKED
    assert unlocks(door) == 0
    assert http_ask(daemon, "unlock the front door", "http")["outcome"] == "waiting"
    assert http_ask(daemon, "yes", "http")["answer"] == UNLOCKED and unlocks(door) == 1


def test_answers_show_the_session_as_the_client_named_it(
    daemon: ServeProcess,
) -> None:
    assert http_ask(daemon, "what time is it", "kitchen")["session"] == "kitchen"
    assert http_ask(daemon, "what time is it", None)["session"] == "http"
