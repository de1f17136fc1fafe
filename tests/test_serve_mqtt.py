"""The MQTT ask/answer front-end of a running `mnemolis serve`, on a real Mosquitto."""

from __future__ import annotations

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    config_variant,
    fixture_daemon,
    fixture_serve_home,
    probe,
    running_daemon,
)

__all__ = ["fixture_daemon", "fixture_serve_home", "fixture_test_zims"]

ASK = "mnemolis/ask"
ANSWER = "mnemolis/answer"


def test_plain_text_is_answered_on_the_answer_topic(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    with probe(serve_home, ANSWER) as client:
        client.publish(ASK, "what time is it")
        got = client.next()
    answer = got.json()
    assert got.topic == ANSWER
    assert got.content_type == "application/json"
    assert answer["query"] == "what time is it"
    assert answer["answer"].startswith("It's ")
    assert answer["outcome"] == "answered"
    assert answer["session"] == "mqtt"
    assert [p["source"] for p in answer["parts"]] == ["clock"]
    assert "id" not in answer


def test_json_request_keeps_its_session_and_id(serve_home: ServeHome, daemon: ServeProcess) -> None:
    serve_home.simulator.clear()
    with probe(serve_home, ANSWER) as client:
        client.publish(ASK, '{"text": "turn on the porch light", "session": "porch-1", "id": "r1"}')
        first = client.next().json()
        client.publish(ASK, '{"text": "turn it off", "session": "porch-1", "id": 2}')
        second = client.next().json()
    assert (first["id"], first["session"], first["outcome"]) == ("r1", "porch-1", "answered")
    assert (second["id"], second["session"], second["outcome"]) == (2, "porch-1", "answered")
    assert second["parts"][0]["data"]["device"] == "porch light"  # "it" from the session
    payloads = [c.payload for c in serve_home.simulator.received("porch light")]
    assert len(payloads) == 2 and '"ON"' in payloads[0] and '"OFF"' in payloads[1]


def test_mqtt5_response_topic_and_correlation_data_are_honoured(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    reply_to = "mnemolis/reply/probe-7"
    with probe(serve_home, ANSWER, reply_to) as client:
        client.publish(ASK, "who was ada lovelace", reply_to, b"\x00corr-7\xff")
        got = client.next()
        assert client.nothing(0.3), "the answer also went to the answer topic"
    assert got.topic == reply_to
    assert got.correlation_data == b"\x00corr-7\xff"
    assert "mathematician" in got.json()["answer"]


def test_a_response_topic_outside_the_allowed_prefixes_is_not_used(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    mark = daemon.mark()
    device_topic = "home/front_door/set"
    with probe(serve_home, ANSWER, device_topic, "mnemolis/+/wild") as client:
        client.publish(ASK, "what time is it", device_topic, b"c1")
        got = client.next()
        client.publish(ASK, "what time is it", "mnemolis/+/wild", b"c2")
        wild = client.next()
        assert client.nothing(0.3)
    assert (got.topic, got.correlation_data) == (ANSWER, b"c1")
    assert (wild.topic, wild.correlation_data) == (ANSWER, b"c2")
    daemon.wait_for("response topic 'home/front_door/set' is not allowed", mark)


def test_many_requests_at_once_are_each_answered_once(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """Answers published concurrently while acknowledgements arrive (this once deadlocked)."""
    reply_to = "mnemolis/reply/burst"
    queries = ["what time is it", "who was ada lovelace", "is the front door locked"]
    with probe(serve_home, reply_to) as client:
        for n in range(60):
            text = queries[n % len(queries)]
            client.publish(ASK, f'{{"text": "{text}", "session": "b{n}"}}', reply_to, b"%d" % n)
        got = sorted(int(client.next().correlation_data or b"-1") for _ in range(60))
        assert client.nothing(0.3), "an answer came twice"
    assert got == list(range(60))


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"", "empty"),
        (b"   ", "empty"),
        (b'{"text": "what time', "invalid_json"),
        (b'{"text": 5}', "missing_text"),
        (b'{"text": "  "}', "missing_text"),
        (b'{"session": "x"}', "missing_text"),
        (b'{"text": "hi", "session": 7}', "invalid_session"),
        (b'{"text": "hi", "id": [1]}', "invalid_id"),
        (b"\xff\xfe not utf-8", "encoding"),
        (b"a" * 1001, "too_long"),
        (b"b" * 70_000, "too_large"),
    ],
)
def test_bad_requests_get_an_error_with_the_correlation_data(
    serve_home: ServeHome, daemon: ServeProcess, payload: bytes, code: str
) -> None:
    with probe(serve_home, ANSWER) as client:
        client.publish(ASK, payload, correlation_data=b"bad")
        got = client.next()
    error = got.json()
    assert error["code"] == code
    assert error["error"][0].isupper()
    assert got.correlation_data == b"bad"


def test_each_request_is_one_log_line(serve_home: ServeHome, daemon: ServeProcess) -> None:
    mark = daemon.mark()
    with probe(serve_home, ANSWER) as client:
        client.publish(ASK, '{"text": "what time is it\\nforged line", "session": "log"}')
        client.next()
    line = daemon.wait_for(r"ask via=mqtt session=\"mqtt:log\"", mark).string
    assert "outcome=answered parts=1 sources=clock ms=" in line
    assert line.endswith('query="what time is it\\nforged line"')


SECURE = """
token: null
http: {enabled: false}
wyoming: {enabled: false}
mqtt_api:
  ask_topic: mnemolis/secure/ask
  answer_topic: mnemolis/secure/answer
  require_token: true
"""


def test_a_second_daemon_ignores_retained_requests_and_can_require_the_token(
    serve_home: ServeHome,
) -> None:
    config = config_variant(serve_home, "secure", SECURE)
    with probe(serve_home, "mnemolis/secure/answer") as client:
        client.publish("mnemolis/secure/ask", '{"text": "what time is it"}', retain=True)
        with running_daemon(
            serve_home,
            flags=["--no-hermes"],
            front_ends=["mqtt-api"],
            env={"MNEMOLIS_TOKEN": "s3cret-token"},
            config_dir=config,
        ) as secure:
            assert secure.where["mqtt-api"].endswith("topic mnemolis/secure/ask")
            assert client.nothing(0.5), "a retained request was answered"
            secure.wait_for("ignored a retained request")
            client.publish("mnemolis/secure/ask", b"", retain=True)  # clear it
            client.next()  # the empty message: refused as empty
            client.publish("mnemolis/secure/ask", '{"text": "what time is it", "id": 1}')
            refused = client.next().json()
            client.publish("mnemolis/secure/ask", "what time is it")
            plain = client.next().json()
            client.publish(
                "mnemolis/secure/ask",
                '{"text": "what time is it", "id": 2, "token": "s3cret-token"}',
            )
            allowed = client.next().json()
    assert (refused["code"], refused["id"]) == ("unauthorized", 1)
    assert plain["code"] == "unauthorized"
    assert (allowed["outcome"], allowed["id"]) == ("answered", 2)
