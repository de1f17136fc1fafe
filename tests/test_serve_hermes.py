"""Rhasspy's Hermes topics on a running `mnemolis serve`, on a real Mosquitto."""

from __future__ import annotations

import json

import pytest

from mnemolis.serve.hermes import Utterance, read_utterance
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    fixture_daemon,
    fixture_serve_home,
    probe,
)

__all__ = ["fixture_daemon", "fixture_serve_home", "fixture_test_zims"]

TEXT_CAPTURED = "hermes/asr/textCaptured"
NLU_QUERY = "hermes/nlu/query"
SAY = "hermes/tts/say"


def message(**fields: object) -> str:
    return json.dumps(fields)


def test_text_captured_is_said_back_to_the_same_site_and_session(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    with probe(serve_home, SAY) as client:
        client.publish(
            TEXT_CAPTURED,
            message(text="what time is it", siteId="kitchen", sessionId="s-1", likelihood=1),
        )
        say = client.next().json()
    assert say["text"].startswith("It's ")
    assert (say["siteId"], say["sessionId"]) == ("kitchen", "s-1")
    assert isinstance(say["id"], str) and len(say["id"]) == 32


def test_nlu_query_reads_input_and_a_repeat_on_the_other_topic_is_answered_once(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    mark = daemon.mark()
    with probe(serve_home, SAY) as client:
        client.publish(
            NLU_QUERY, message(input="who was ada lovelace", siteId="den", sessionId="s-2")
        )
        say = client.next().json()
        client.publish(
            TEXT_CAPTURED, message(text="Who was Ada Lovelace", siteId="den", sessionId="s-2")
        )
        assert client.nothing(0.5), "the same utterance was answered twice"
    assert "mathematician" in say["text"]
    assert (say["siteId"], say["sessionId"]) == ("den", "s-2")
    daemon.wait_for("repeated 'Who was Ada Lovelace'; answered once", mark)


def test_each_site_keeps_its_own_conversation(serve_home: ServeHome, daemon: ServeProcess) -> None:
    serve_home.simulator.clear()
    with probe(serve_home, SAY) as client:
        client.publish(
            TEXT_CAPTURED, message(text="turn on the hallway light", siteId="hall", sessionId="a")
        )
        on = client.next().json()
        client.publish(TEXT_CAPTURED, message(text="turn it off", siteId="attic", sessionId="b"))
        elsewhere = client.next().json()
        client.publish(TEXT_CAPTURED, message(text="turn it off", siteId="hall", sessionId="c"))
        off = client.next().json()
    assert (on["siteId"], off["siteId"], elsewhere["siteId"]) == ("hall", "hall", "attic")
    payloads = [c.payload for c in serve_home.simulator.received("hallway light")]
    assert len(payloads) == 2 and '"ON"' in payloads[0] and '"OFF"' in payloads[1]
    assert elsewhere["text"].startswith("Which device")  # the attic never named one


def test_a_null_session_id_is_echoed_as_null(serve_home: ServeHome, daemon: ServeProcess) -> None:
    with probe(serve_home, SAY) as client:
        client.publish(NLU_QUERY, message(input="what day is it", siteId="office", sessionId=None))
        say = client.next().json()
    assert (say["siteId"], say["sessionId"]) == ("office", None)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"siteId": "x"}', "no text"),
        (b'{"text": "hi", "siteId": 3}', "siteId is not a short string"),
    ],
)
def test_malformed_messages_are_logged_and_not_answered(
    serve_home: ServeHome, daemon: ServeProcess, payload: bytes, reason: str
) -> None:
    mark = daemon.mark()
    with probe(serve_home, SAY) as client:
        client.publish(TEXT_CAPTURED, payload)
        daemon.wait_for(f"hermes ignored a message on {TEXT_CAPTURED}: {reason}", mark)
        assert client.nothing(0.2)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b'{"text": "hi"}', Utterance("hi", "default", None)),
        (
            b'{"input": "hi", "siteId": "k", "sessionId": "s", "lang": "en"}',
            Utterance("hi", "k", "s", "en"),
        ),
        (b'{"text": "", "siteId": "k"}', Utterance("", "k", None)),
        (b'{"text": "' + b"x" * 2000 + b'"}', "the text is longer than 1000 characters"),
        (b'{"text": "hi", "sessionId": 5}', "sessionId is not a short string"),
    ],
)
def test_reading_an_utterance(payload: bytes, expected: Utterance | str) -> None:
    assert read_utterance(payload, 1000) == expected
