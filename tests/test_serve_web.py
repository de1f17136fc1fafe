"""Issue 21's probes of the HTTP API from a web page, and of bounded parsing, against a
running `mnemolis serve` (a real Mosquitto, the simulated home, real HTTP, MQTT and
Wyoming clients), one regression test each.

The module's daemon runs as the probe found it: no token (here because the owner said
``token_file: false``), so what stops a page is the web rules alone; it allows one
dashboard origin and one host name, to show the allow-lists letting through what they
name. Each attack checks the front door stayed locked."""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ALL_FLAGS,
    ALL_FRONT_ENDS,
    ServeHome,
    ServeProcess,
    config_variant,
    fixture_serve_home,
    http_call,
    probe,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

DASHBOARD = "http://dash.example:8123"
SERVE = f"""token_file: false
http: {{allowed_origins: ["{DASHBOARD}"], allowed_hosts: [mnemolis.example]}}
"""
EVIL = "http://evil.example"
UNLOCK = {"text": "unlock the front door", "session": "page"}
YES = {"text": "yes", "session": "page"}


@pytest.fixture(scope="module", name="daemon")
def fixture_open_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    config = config_variant(serve_home, "web", SERVE)
    with running_daemon(serve_home, ALL_FLAGS, ALL_FRONT_ENDS, config_dir=config) as daemon:
        assert daemon.token is None, "the probe's daemon has no token"
        yield daemon


def door_commands(home: ServeHome) -> list[str]:
    return [c.payload for c in home.simulator.received("front door")]


def status_of(
    port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    """The status and headers of one request, and its body unless it is a stream (a
    refusal is read whole; an `/events` stream that was let in is not waited for)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        streaming = response.getheader("Content-Type", "").startswith("text/event-stream")
        data = b"" if streaming else response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


# --------------------------------------------------------------------------- V5: a web page


def test_a_page_posting_text_plain_cannot_unlock_the_door(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """The probe: two "simple" cross-site POSTs (no preflight), "unlock", then "yes"."""
    serve_home.simulator.clear()
    replies = []
    for body in (UNLOCK, YES):
        headers = {"Content-Type": "text/plain;charset=UTF-8"}  # what a page may send
        sent = json.dumps(body).encode()
        replies.append(status_of(daemon.http_port, "POST", "/ask", sent, headers))
    assert [(status, json.loads(data)["code"]) for status, _, data in replies] == [
        (415, "unsupported_media_type")
    ] * 2
    assert door_commands(serve_home) == []


def test_a_request_from_another_sites_page_is_refused_whatever_it_sends(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    for content_type in ("application/json", "text/plain"):
        for body in (UNLOCK, YES):
            status, _, data = status_of(
                daemon.http_port,
                "POST",
                "/ask",
                json.dumps(body).encode(),
                {"Content-Type": content_type, "Origin": EVIL},
            )
            assert (status, json.loads(data)["code"]) == (403, "forbidden_origin")
    assert door_commands(serve_home) == []
    status, _, data = status_of(daemon.http_port, "GET", "/events", None, {"Origin": EVIL})
    assert status == 403 and "http.allowed_origins" in json.loads(data)["error"]


@pytest.mark.parametrize(("method", "path"), [("POST", "/ask"), ("GET", "/events")])
def test_a_rebound_name_is_refused_on_every_route(
    serve_home: ServeHome, daemon: ServeProcess, method: str, path: str
) -> None:
    """DNS rebinding: the page's own name now points at 127.0.0.1, so to the browser the
    daemon is the page's origin; its requests still carry that name in Host."""
    serve_home.simulator.clear()
    host = f"evil.example:{daemon.http_port}"
    body = json.dumps(UNLOCK).encode() if method == "POST" else None
    headers = {"Host": host, "Content-Type": "application/json"}
    status, _, data = status_of(daemon.http_port, method, path, body, headers)
    assert (status, json.loads(data)["code"]) == (421, "misdirected")
    assert door_commands(serve_home) == []


def test_the_names_and_the_page_that_are_allowed_get_in(daemon: ServeProcess) -> None:
    ask = json.dumps({"text": "what time is it"}).encode()
    named = {"Host": f"mnemolis.example:{daemon.http_port}", "Content-Type": "application/json"}
    assert status_of(daemon.http_port, "POST", "/ask", ask, named)[0] == 200
    local = {"Host": f"localhost:{daemon.http_port}"}
    assert status_of(daemon.http_port, "GET", "/health", None, local)[0] == 200
    preflight = {
        "Origin": DASHBOARD,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    status, headers, _ = status_of(daemon.http_port, "OPTIONS", "/ask", None, preflight)
    assert status == 204 and headers["access-control-allow-origin"] == DASHBOARD
    assert "POST" in headers["access-control-allow-methods"]
    assert "Content-Type" in headers["access-control-allow-headers"]
    page = {"Origin": DASHBOARD, "Content-Type": "application/json"}
    status, headers, data = status_of(daemon.http_port, "POST", "/ask", ask, page)
    assert status == 200 and json.loads(data)["outcome"] == "answered"
    assert headers["access-control-allow-origin"] == DASHBOARD
    assert headers["vary"] == "Origin"


# --------------------------------------------------------------------------- V9: an oracle


def test_hello_tells_a_client_without_the_token_nothing_about_the_environment(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """The probe guessed $MNEMOLIS_MQTT_URL (it holds the broker's password) through
    ``expect.env``: 200 for the right value, 409 for a wrong one."""
    right = hashlib.sha256(daemon.environ["MNEMOLIS_MQTT_URL"].encode()).hexdigest()[:16]
    replies = []
    for guess in (right, "0" * 16):
        expect = {"config": str(serve_home.config_dir), "env": {"MNEMOLIS_MQTT_URL": guess}}
        for path, body in (("/hello", {}), ("/ask", {"text": "what time is it"})):
            status, reply, _ = http_call(daemon.http_port, "POST", path, {**body, "expect": expect})
            replies.append((path, status, reply))
    assert replies[:2] == replies[2:], "a right guess is told from a wrong one"
    for _path, status, reply in replies:
        assert (status, reply["code"]) == (409, "other_home")
        assert "MNEMOLIS" not in reply["error"] and "/" not in reply["error"]
    status, hello, _ = http_call(daemon.http_port, "POST", "/hello", {})
    assert status == 200 and "quit_words" in hello  # without expect: nothing to compare


# --------------------------------------------------------------------------- V8: depth


DEEP = b"[" * 30_000  # under 64 KB, the probe's
JUST_TOO_DEEP = b'{"text": "what time is it", "x": ' + b"[" * 65 + b"]" * 65 + b"}"


@pytest.mark.parametrize("body", [DEEP, JUST_TOO_DEEP], ids=["30000", "65"])
def test_deep_json_over_http_is_a_400_in_words(daemon: ServeProcess, body: bytes) -> None:
    status, reply, _ = http_call(daemon.http_port, "POST", "/ask", raw=body)
    assert (status, reply["code"]) == (400, "invalid_json")
    assert "nested deeper than 64 levels" in reply["error"]
    status, hello, _ = http_call(daemon.http_port, "POST", "/hello", raw=body)
    assert (status, hello["code"]) == (400, "invalid_json")
    status, after, _ = http_call(daemon.http_port, "POST", "/ask", {"text": "what time is it"})
    assert (status, after["outcome"]) == (200, "answered")
    assert "RecursionError" not in daemon.output()


def test_deep_json_over_mqtt_gets_an_error_answer(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    reply_to = "mnemolis/deep"
    with probe(serve_home, reply_to) as client:
        for n, body in enumerate((b'{"a": ' + DEEP, JUST_TOO_DEEP)):
            client.publish("mnemolis/ask", body, reply_to, b"deep-%d" % n)
            answer = client.next()
            assert answer.correlation_data == b"deep-%d" % n
            assert answer.json()["code"] == "invalid_json"
            assert "nested deeper" in answer.json()["error"]
        client.publish("mnemolis/ask", '{"text": "what time is it"}', reply_to, b"after")
        assert client.next().json()["outcome"] == "answered"


def wyoming_reply(daemon: ServeProcess, line: bytes) -> dict[str, Any]:
    """Send one raw event line; the event that comes back, with its data."""
    with socket.create_connection(daemon.wyoming_address, timeout=10) as sock:
        sock.sendall(line)
        stream = sock.makefile("rb")
        header: dict[str, Any] = json.loads(stream.readline())
        if header.get("data_length"):
            header["data"] = json.loads(stream.read(header["data_length"]))
    return header


@pytest.mark.parametrize("depth", [30_000, 65])
def test_deep_json_over_wyoming_gets_an_error_event(daemon: ServeProcess, depth: int) -> None:
    context = b"[" * depth + b"]" * depth
    line = b'{"type": "transcript", "data": {"text": "hi", "context": %s}}\n' % context
    event = wyoming_reply(daemon, line)
    assert (event["type"], event["data"]["code"]) == ("error", "bad_event")
    assert "nested deeper than 64 levels" in event["data"]["text"]
    still = wyoming_reply(daemon, b'{"type": "ping"}\n')
    assert still["type"] == "pong"


def test_deep_json_on_hermes_is_logged_and_the_site_still_answered(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    mark = daemon.mark()
    with probe(serve_home, "hermes/tts/say") as client:
        client.publish("hermes/asr/textCaptured", b'{"text": "hi", "x": ' + DEEP + b"}")
        said = {"text": "what time is it", "siteId": "deep", "sessionId": "d-1"}
        client.publish("hermes/asr/textCaptured", json.dumps(said))
        assert client.next().json()["siteId"] == "deep"
    daemon.wait_for(r"hermes ignored a message .*nested deeper than 64 levels", mark)
    assert "Traceback" not in daemon.output(mark)

