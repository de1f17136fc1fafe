"""Issue 17's probes against a running `mnemolis serve`, one regression test each:
nothing lost after an action, no client can stop the daemon, deadlines from the first
byte, strict JSON out, a reload that lost a file, and someone else's yes.

The module's daemon runs under ``ulimit -n 1024`` (the usual limit the issue was found
under) with ``read_timeout_s: 1``, so the deadlines are seen quickly."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.ping import Ping

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    bearer,
    config_variant,
    fixture_serve_home,
    http_call,
    open_files,
    probe,
    raw_http,
    running_daemon,
    send_slowly,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

LIMITS = "limits: {read_timeout_s: 1}\n"
HOST = b"Host: 127.0.0.1\r\n"
JSON = b"Content-Type: application/json\r\n"


@pytest.fixture(scope="module", name="daemon")
def fixture_hard_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    config = config_variant(serve_home, "hard", LIMITS)
    with running_daemon(serve_home, config_dir=config, preexec=open_files(1024)) as daemon:
        yield daemon


def strict_json(data: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"the reply holds {name}, which is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=refuse)


def post_raw(port: int, body: bytes) -> tuple[int, Any]:
    """POST /ask with a body sent as it is; the status and the strictly parsed reply."""
    head = (
        b"POST /ask HTTP/1.1\r\n" + HOST + bearer(port) + b"Content-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    reply = raw_http(port, head + body)
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), strict_json(rest.partition(b"\r\n\r\n")[2])


# --------------------------------------------------------------------------- 1: lone surrogates


def test_a_lone_surrogate_in_the_text_is_refused_before_the_light_turns_on(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    status, body = post_raw(daemon.http_port, b'{"text": "\\ud800 turn on the kitchen light"}')
    assert (status, body["code"]) == (400, "encoding")
    assert "lone UTF-16 surrogate" in body["error"]
    time.sleep(0.3)
    assert serve_home.simulator.received("kitchen light") == []


def test_a_lone_surrogate_in_a_session_or_id_still_gets_its_answer(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    status, body = post_raw(
        daemon.http_port,
        b'{"text": "turn on the kitchen light", "session": "s\\udc00", "id": "\\ud800"}',
    )
    assert status == 200 and body["outcome"] == "answered"
    assert (body["session"], body["id"]) == ("s\ufffd", "\ufffd")
    assert len(serve_home.simulator.received("kitchen light")) == 1


def test_mqtt_and_wyoming_answer_a_lone_surrogate_too(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    with probe(serve_home, "mnemolis/answer") as client:
        client.publish("mnemolis/ask", b'{"text": "\\ud800 unlock the front door", "id": 1}')
        refused = strict_json(client.next().payload)
        client.publish("mnemolis/ask", b'{"text": "what time is it", "session": "\\ud800"}')
        answered = strict_json(client.next().payload)
    assert (refused["code"], refused["id"]) == ("encoding", 1)
    assert answered["outcome"] == "answered" and answered["session"] == "\ufffd"

    async def talk() -> list[bytes]:
        reader, writer = await asyncio.open_connection(*daemon.wyoming_address)
        data = b'{"text": "what time is it", "context": {"conversation_id": "\\ud800"}}'
        writer.write(b'{"type": "transcript", "data_length": %d}\n' % len(data) + data)
        await writer.drain()
        header = await asyncio.wait_for(reader.readline(), 10)
        length = json.loads(header)["data_length"]
        body = await asyncio.wait_for(reader.readexactly(length), 5)
        writer.close()
        return [header, body]

    header, body = asyncio.run(talk())
    assert strict_json(header)["type"] == "handled"
    handled = strict_json(body)
    assert handled["text"].startswith("It's ")
    assert handled["context"] == {"conversation_id": "\ufffd"}


# --------------------------------------------------------------------------- 2: idle sockets


def idle_sockets(where: tuple[str, int], count: int, stack: ExitStack) -> list[socket.socket]:
    """From 200 loopback addresses: many clients, each under its own cap, so the listener's
    cap is what they meet (one client's cap: test_serve_private.py)."""
    opened = []
    for n in range(count):
        source = (f"127.0.0.{2 + n % 200}", 0)
        sock = stack.enter_context(socket.create_connection(where, timeout=5, source_address=source))
        opened.append(sock)
    return opened


def test_1100_idle_connections_cannot_stop_the_daemon(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """Issue 17, item 2, under ``ulimit -n 1024``: idle Wyoming and then HTTP connections
    beyond the cap are refused at once in words; asks and pings still answer; the log
    does not flood."""
    mark = daemon.mark()

    async def ping(client: AsyncTcpClient) -> Event | None:
        await client.write_event(Ping(text="still there").event())
        return await asyncio.wait_for(client.read_event(), 5)

    async def scenario() -> dict[str, Any]:
        host, port = daemon.wyoming_address
        async with AsyncTcpClient(host, port) as early:  # connected before the flood
            with ExitStack() as stack:
                flood = idle_sockets((host, port), 1100, stack)
                refusal = await asyncio.to_thread(first_event, flood[-1])
                pong = await ping(early)
                status, body, _ = await asyncio.to_thread(
                    http_call, daemon.http_port, "POST", "/ask", {"text": "what time is it"}
                )
                http_flood = idle_sockets(("127.0.0.1", daemon.http_port), 1100, stack)
                refused_http = await asyncio.to_thread(raw_http, daemon.http_port, b"")
                del http_flood
            return {
                "refusal": refusal,
                "pong": pong,
                "ask": (status, body.get("outcome")),
                "refused_http": refused_http,
            }

    found = asyncio.run(scenario())
    assert found["refusal"]["type"] == "error"
    assert found["refusal"]["data"]["code"] == "too_many_connections"
    assert found["pong"] is not None and found["pong"].data == {"text": "still there"}
    assert found["ask"] == (200, "answered")
    head, _, body = found["refused_http"].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 ")
    assert json.loads(body)["code"] == "too_many_connections"
    # ... and afterwards, with the flood gone
    status, after, _ = http_call(daemon.http_port, "POST", "/ask", {"text": "what time is it"})
    assert (status, after["outcome"]) == (200, "answered")
    logged = daemon.output(mark).splitlines()
    assert len(logged) < 60, f"{len(logged)} log lines for 2,200 refused connections"
    assert not any("Errno 24" in line or "Too many open files" in line for line in logged)


def first_event(sock: socket.socket) -> dict[str, Any]:
    """The first event a Wyoming server sends on ``sock``, with its data."""
    stream = sock.makefile("rb")
    header = json.loads(stream.readline())
    if header.get("data_length"):
        header["data"] = json.loads(stream.read(header["data_length"]))
    return dict(header)


# --------------------------------------------------------------------------- 3 and 4: deadlines


def test_a_truncated_wyoming_event_is_closed_after_the_read_timeout(daemon: ServeProcess) -> None:
    """Issue 17, item 3: a header promising 10 bytes of data, then 3 bytes, and silence."""
    with socket.create_connection(daemon.wyoming_address, timeout=10) as sock:
        started = time.monotonic()
        sock.sendall(b'{"type": "transcript", "data_length": 10}\nabc')
        event = first_event(sock)
        waited = time.monotonic() - started
        closed = sock.recv(1) == b""
    assert (event["type"], event["data"]["code"]) == ("error", "timeout")
    assert "within 1 s of its first byte" in event["data"]["text"]
    assert 0.8 < waited < 5 and closed


@pytest.mark.parametrize(
    "pieces",
    [
        [b"GET /hea"],  # the request line, begun and never ended
        # the request line and the headers byte by byte, a byte every 0.1 s, for 6 s
        [bytes([c]) for c in b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 30],
        [b"POST /ask HTTP/1.1\r\n" + HOST + JSON + b"Content-Length: 100\r\n\r\n", b'{"text": '],
    ],
    ids=["request-line", "slow-headers", "slow-body"],
)
def test_an_http_request_has_read_timeout_s_from_its_first_byte(
    daemon: ServeProcess, pieces: list[bytes]
) -> None:
    """Issue 17, item 4: 408 after read_timeout_s (1 s here), not silence after 30 s."""
    if pieces[0].startswith(b"POST"):  # past the token, so the body is waited for
        pieces = [pieces[0].replace(HOST, HOST + bearer(daemon.http_port)), *pieces[1:]]
    started = time.monotonic()
    reply = send_slowly(daemon.http_port, pieces)
    waited = time.monotonic() - started
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"408", reply[:200]
    assert json.loads(body)["code"] == "timeout"
    assert 0.8 < waited < 4.5  # one second, not the six the bytes take nor thirty


# --------------------------------------------------------------------------- 5: non-finite ids


@pytest.mark.parametrize("number", [b"NaN", b"1e400", b"-Infinity"])
def test_a_non_finite_id_is_bad_input_and_the_reply_is_json(
    daemon: ServeProcess, number: bytes
) -> None:
    status, body = post_raw(daemon.http_port, b'{"text": "what time is it", "id": %s}' % number)
    assert (status, body["code"]) == (400, "invalid_json")
    assert "id" not in body


def test_a_non_finite_number_in_a_wyoming_event_is_refused_as_json(daemon: ServeProcess) -> None:
    with socket.create_connection(daemon.wyoming_address, timeout=10) as sock:
        sock.sendall(b'{"type": "transcript", "data": {"text": "hi", "context": {"id": NaN}}}\n')
        stream = sock.makefile("rb")
        header = strict_json(stream.readline())
        data = strict_json(stream.read(header["data_length"]))
    assert (header["type"], data["code"]) == ("error", "bad_event")
    assert "NaN is not a JSON number" in data["text"]


# --------------------------------------------------------------------------- 6: a lost file


def test_a_reload_that_lost_the_device_file_is_refused(serve_home: ServeHome) -> None:
    config = config_variant(serve_home, "lost", LIMITS)
    devices = config / "sources" / "mqtt.yaml"
    flags = ["--http", "127.0.0.1:0", "--no-wyoming", "--no-mqtt-api", "--no-hermes"]
    with running_daemon(serve_home, flags, ["http"], config_dir=config) as lost:
        kept = devices.read_text(encoding="utf-8")
        devices.unlink()
        status, body, _ = http_call(lost.http_port, "POST", "/reload")
        assert (status, body["reloaded"]) == (422, False)
        assert "sources/mqtt.yaml: the file is gone" in body["error"]
        lost.wait_for("reload refused, the running configuration keeps serving: .*mqtt.yaml")
        _, on, _ = http_call(lost.http_port, "POST", "/ask", {"text": "turn on the porch light"})
        assert on["answer"] == "Done: the porch light is on."
        devices.write_text(kept, encoding="utf-8")
        status, body, _ = http_call(lost.http_port, "POST", "/reload")
        assert (status, body["reloaded"]) == (200, True)


# --------------------------------------------------------------------------- 9: someone else's yes


def test_a_plain_mqtt_yes_cannot_confirm_another_clients_unlock(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    with probe(serve_home, "mnemolis/answer", "mnemolis/reply/x") as client:
        client.publish("mnemolis/ask", "unlock the front door")  # client X, plain text
        asked = client.next().json()
        client.publish("mnemolis/ask", "yes")  # client Y, plain text
        other = client.next().json()
        # a client with a response topic is a session of its own, and its yes counts
        client.publish("mnemolis/ask", "unlock the front door", "mnemolis/reply/x")
        own = client.next().json()
        client.publish("mnemolis/ask", "yes", "mnemolis/reply/x")
        confirmed = client.next().json()
    assert asked["outcome"] == "waiting" and "session" in asked["note"]
    assert other["outcome"] == "not_understood"
    assert (own["session"], own["outcome"]) == ("mqtt:mnemolis/reply/x", "waiting")
    assert "note" not in own
    assert confirmed["answer"] == "Done: the front door is unlocked."
    assert [c.payload for c in serve_home.simulator.received("front door")] == [
        '{"state": "UNLOCK"}'
    ]


def test_a_hermes_yes_counts_only_in_the_session_that_was_asked(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()

    def said(text: str, session: str) -> str:
        return json.dumps({"text": text, "siteId": "hall", "sessionId": session})

    topics = ("hermes/tts/say", "hermes/dialogueManager/continueSession")
    with probe(serve_home, *topics) as client:
        client.publish("hermes/asr/textCaptured", said("unlock the front door", "s-1"))
        question = client.next()
        client.publish("hermes/asr/textCaptured", said("yes", "s-2"))
        elsewhere = client.next().json()
        client.publish("hermes/asr/textCaptured", said("unlock the front door", "s-3"))
        client.next()
        client.publish("hermes/asr/textCaptured", said("yes", "s-3"))
        done = client.next().json()
    assert question.topic == "hermes/dialogueManager/continueSession"
    asked = question.json()
    assert (asked["sessionId"], asked["text"]) == (
        "s-1",
        "Do you want me to unlock the front door?",
    )
    assert asked["sendIntentNotRecognized"] is True
    assert elsewhere["sessionId"] == "s-2" and "unlocked" not in elsewhere["text"]
    assert (done["sessionId"], done["text"]) == ("s-3", "Done: the front door is unlocked.")
    assert len(serve_home.simulator.received("front door")) == 1


def test_hermes_publishes_intent_not_recognized(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """Issue 16, item 4: as Rhasspy's NLU does, besides saying so."""
    with probe(serve_home, "hermes/nlu/intentNotRecognized", "hermes/tts/say") as client:
        client.publish(
            "hermes/nlu/query",
            json.dumps({"input": "blah blah", "siteId": "den", "sessionId": "s-9", "id": "q-9"}),
        )
        first, second = client.next(), client.next()
    by_topic = {first.topic: first.json(), second.topic: second.json()}
    assert by_topic["hermes/nlu/intentNotRecognized"] == {
        "input": "blah blah",
        "siteId": "den",
        "sessionId": "s-9",
        "id": "q-9",
        "customData": None,
    }
    assert by_topic["hermes/tts/say"]["text"] == 'I didn\'t understand "blah blah".'
