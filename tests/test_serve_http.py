"""The HTTP front-end of a running `mnemolis serve`: answers, the token, bad input."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    fixture_serve_home,
    http_call,
    raw_http,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

TOKEN = "test-token-1234"


@pytest.fixture(scope="module", name="daemon")
def fixture_token_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    """HTTP and Wyoming only, with a token given by flag."""
    flags = ["--http", "127.0.0.1:0", "--no-wyoming", "--no-mqtt-api", "--no-hermes"]
    with running_daemon(serve_home, [*flags, "--token", TOKEN], ["http"]) as daemon:
        yield daemon


def test_ask_answers_with_the_structured_result(daemon: ServeProcess) -> None:
    status, body, headers = http_call(
        daemon.http_port,
        "POST",
        "/ask",
        {"text": "what time is it and who was ada lovelace", "session": "h1", "id": "q-1"},
        TOKEN,
    )
    assert status == 200
    assert headers["content-type"] == "application/json; charset=utf-8"
    assert (body["id"], body["session"], body["outcome"]) == ("q-1", "h1", "answered")
    assert [p["source"] for p in body["parts"]] == ["clock", "kiwix"]
    assert body["answer"].startswith("It's ") and "mathematician" in body["answer"]


def test_a_session_carries_context_between_requests(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    port = daemon.http_port
    http_call(port, "POST", "/ask", {"text": "unlock the front door", "session": "door"}, TOKEN)
    status, body, _ = http_call(port, "POST", "/ask", {"text": "yes", "session": "door"}, TOKEN)
    assert status == 200 and body["outcome"] == "answered"
    assert [c.payload for c in serve_home.simulator.received("front door")] == [
        '{"state": "UNLOCK"}'
    ]
    _, other, _ = http_call(port, "POST", "/ask", {"text": "yes"}, TOKEN)  # session "http"
    assert other["outcome"] == "not_understood"
    assert other["session"] == "http"


@pytest.mark.parametrize(
    ("method", "path", "token", "status"),
    [
        ("POST", "/ask", None, 401),
        ("POST", "/ask", "wrong-token", 401),
        ("GET", "/intents", None, 401),
        ("POST", "/reload", None, 401),
        ("GET", "/health", None, 200),
        ("GET", "/intents", TOKEN, 200),
    ],
)
def test_the_token_guards_everything_but_health(
    daemon: ServeProcess, method: str, path: str, token: str | None, status: int
) -> None:
    got, body, headers = http_call(daemon.http_port, method, path, {"text": "hi"}, token)
    assert got == status
    if status == 401:
        assert body["code"] == "unauthorized"
        assert headers["www-authenticate"].startswith("Bearer")


def test_health_says_little_and_intents_list_the_configuration(daemon: ServeProcess) -> None:
    status, health, _ = http_call(daemon.http_port, "GET", "/health")
    assert status == 200
    assert set(health) == {"status", "version", "generation", "uptime_s", "in_flight", "answered"}
    assert health["status"] == "ok" and health["generation"] == 1
    _, listed, _ = http_call(daemon.http_port, "GET", "/intents", token=TOKEN)
    by_name = {i["name"]: i for i in listed["intents"]}
    assert by_name["clock.time"]["source"] == "clock"
    assert "time is it" in " ".join(by_name["clock.time"]["phrases"])
    assert by_name["device.turn_on"]["examples"]


@pytest.mark.parametrize(
    ("method", "path", "raw", "status", "code"),
    [
        ("POST", "/ask", b"", 400, "empty"),
        ("POST", "/ask", b"{not json", 400, "invalid_json"),
        ("POST", "/ask", b"[1, 2]", 400, "invalid_json"),
        ("POST", "/ask", b'{"session": "a"}', 400, "missing_text"),
        ("POST", "/ask", b'{"text": ""}', 400, "missing_text"),
        ("POST", "/ask", b'{"text": 12}', 400, "missing_text"),
        ("POST", "/ask", b'{"text": "hi", "session": ""}', 400, "invalid_session"),
        ("POST", "/ask", b"\xff\xfe", 400, "encoding"),
        ("POST", "/ask", json.dumps({"text": "a" * 1001}).encode(), 413, "too_long"),
        ("POST", "/ask", b"x" * 70_000, 413, "too_large"),
        ("GET", "/ask", None, 405, "method_not_allowed"),
        ("DELETE", "/health", None, 405, "method_not_allowed"),
        ("GET", "/nowhere", None, 404, "not_found"),
    ],
)
def test_bad_input_gets_a_json_error_and_a_status(
    daemon: ServeProcess, method: str, path: str, raw: bytes | None, status: int, code: str
) -> None:
    got, body, _ = http_call(daemon.http_port, method, path, token=TOKEN, raw=raw)
    assert (got, body["code"]) == (status, code)
    assert body["error"][0].isupper() and "Traceback" not in body["error"]


HOST = b"Host: 127.0.0.1\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GARBAGE\r\n\r\n", 400, "bad_request"),
        (b"GET /health SPDY/3\r\n\r\n", 505, "bad_version"),
        (b"GET /health HTTP/2.0\r\n\r\n", 505, "bad_version"),
        (b"POST /ask HTTP/1.1\r\n" + HOST + b"Content-Length: nine\r\n\r\n", 400, "bad_request"),
        (
            b"POST /ask HTTP/1.1\r\n"
            + HOST
            + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            501,
            "chunked",
        ),
        (b"GET /health HTTP/1.1\r\n" + HOST + b"Broken header line\r\n\r\n", 400, "bad_request"),
        (
            b"GET /health HTTP/1.1\r\nX-Long: " + b"a" * 20_000 + b"\r\n\r\n",
            431,
            "header_too_large",
        ),
        (
            b"GET /health HTTP/1.1\r\n"
            + b"".join(b"X-%d: 1\r\n" % n for n in range(150))
            + b"\r\n",
            431,
            "header_too_large",
        ),
        (b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\n\r\n", 414, "uri_too_long"),
        (b"GET /health HTTP/1.1\r\n\r\n", 400, "bad_request"),  # HTTP/1.1 needs a Host
    ],
)
def test_malformed_http_is_refused_and_the_connection_closed(
    daemon: ServeProcess, request_bytes: bytes, status: int, code: str
) -> None:
    reply = raw_http(daemon.http_port, request_bytes)  # reads until the server closes
    head, _, body = reply.partition(b"\r\n\r\n")
    version, got, _ = head.split(b" ", 2)
    assert (version in (b"HTTP/1.0", b"HTTP/1.1"), int(got)) == (True, status), head
    assert head.count(b"HTTP/1.") == 1, "more than one response"
    error = json.loads(body)
    assert error["code"] == code
    assert error["error"][0].isupper() and "Traceback" not in error["error"]


def test_keep_alive_serves_several_requests_on_one_connection(daemon: ServeProcess) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.http_port, timeout=10)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    try:
        statuses = []
        for n in range(3):
            body = json.dumps({"text": "what time is it", "id": n})
            connection.request("POST", "/ask", body=body, headers=headers)
            response = connection.getresponse()
            statuses.append((response.status, json.loads(response.read())["id"]))
    finally:
        connection.close()
    assert statuses == [(200, 0), (200, 1), (200, 2)]


def test_expect_100_continue_is_honoured(daemon: ServeProcess) -> None:
    body = json.dumps({"text": "what time is it"}).encode()
    reply = raw_http(
        daemon.http_port,
        b"POST /ask HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\n"
        + f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body,
    )
    assert reply.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n")
