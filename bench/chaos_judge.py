"""How the chaos table counts one request: answered, clear error or lost.

Shared by every section of `bench/chaos.py` (and `bench/chaos_web.py`), so that a
reply is judged the same way whichever probe sent it.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.support_serve import MqttProbe, ServeProcess, bearer, http_call, raw_http

HOST = b"Host: 127.0.0.1\r\n"
ANSWERED, CLEAR, LOST = "answered", "clear error", "lost"
REPLY_TIMEOUT_S = 5.0  # a reply that takes longer is counted lost


@dataclass
class Row:
    """One row of the chaos table: a probe and how its requests were answered."""

    probe: str
    tried: int = 0
    answered: int = 0
    clear: int = 0
    lost: int = 0
    still_answering: bool = False
    note: str = ""

    def count(self, verdict: str) -> None:
        self.tried += 1
        if verdict == ANSWERED:
            self.answered += 1
        elif verdict == CLEAR:
            self.clear += 1
        else:
            self.lost += 1


def strict(data: bytes) -> Any:
    """JSON as the daemon must write it: NaN and Infinity are not JSON, so they fail."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=refuse)


def judge(reply: Any) -> str:
    """answered, clear error or lost, for a decoded JSON reply (None: nothing came)."""
    if not isinstance(reply, dict):
        return LOST
    if "answer" in reply or reply.get("type") in ("handled", "not-handled", "pong"):
        return ANSWERED
    if reply.get("type") == "error":  # a Wyoming error event: a code and its reason
        data = reply.get("data") or {}
        return CLEAR if data.get("code") and data.get("text") else LOST
    code, error = reply.get("code"), reply.get("error")
    return CLEAR if code and isinstance(error, str) and error[:1].isupper() else LOST


def http_raw(port: int, body: bytes) -> Any:
    head = (
        b"POST /ask HTTP/1.1\r\n" + HOST + bearer(port) + b"Content-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    try:
        reply = raw_http(port, head + body, timeout_s=REPLY_TIMEOUT_S)
        return strict(reply.partition(b"\r\n\r\n")[2])
    except (OSError, ValueError):
        return None


def wyoming_event(address: tuple[str, int], data: bytes, kind: str = "transcript") -> Any:
    """Send one event (its data as raw bytes); the first event back, or None."""
    try:
        with socket.create_connection(address, timeout=REPLY_TIMEOUT_S) as sock:
            sock.sendall(b'{"type": "%s", "data_length": %d}\n' % (kind.encode(), len(data)) + data)
            return read_wyoming(sock)
    except (OSError, ValueError):
        return None


def read_wyoming(sock: socket.socket) -> Any:
    stream = sock.makefile("rb")
    header = strict(stream.readline())
    if header.get("data_length"):
        header["data"] = strict(stream.read(header["data_length"]))
    return header


def still_answering(daemon: ServeProcess) -> bool:
    try:
        status, body, _ = http_call(daemon.http_port, "POST", "/ask", {"text": "what time is it"})
    except (OSError, ValueError):
        return False
    return status == 200 and body.get("outcome") == "answered"


def judge_replies(client: MqttProbe, row: Row, n: int, within_s: float) -> None:
    """Count the verdicts of the next ``n`` replies ``client`` hears, within ``within_s``
    for all of them; one that does not come in time, or is not JSON, is lost."""
    deadline = time.monotonic() + within_s
    for _ in range(n):
        try:
            left = max(0.01, deadline - time.monotonic())
            row.count(judge(strict(client.next(timeout_s=left).payload)))
        except (AssertionError, ValueError):
            row.count(LOST)


def attempt(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, or None when it fails or times out (a lost request)."""
    try:
        return call(*args)
    except (OSError, ValueError):
        return None


def flood_verdict(sock: socket.socket | None, http: bool = False, wait_s: float = 0.01) -> str:
    """An idle socket the daemon holds open counts as answered (it is served); one it
    refused must have said why (within ``wait_s``)."""
    if sock is None:
        return LOST
    sock.settimeout(wait_s)
    try:
        data = sock.recv(65536)
    except (TimeoutError, BlockingIOError):
        return ANSWERED  # held open, idle, as it asked
    except OSError:
        return LOST
    try:
        if http:
            return judge(strict(data.partition(b"\r\n\r\n")[2]))
        header, _, rest = data.partition(b"\n")
        event = strict(header)
        event["data"] = strict(rest[: event["data_length"]])
        return judge(event)
    except (ValueError, KeyError):
        return LOST


def ask_http(daemon: ServeProcess, text: str) -> tuple[str, str]:
    """(verdict, answer text) of one HTTP ask."""
    try:
        status, body, _ = http_call(
            daemon.http_port, "POST", "/ask", {"text": text}, timeout_s=REPLY_TIMEOUT_S
        )
    except (OSError, ValueError):
        return LOST, ""
    return (judge(body) if status == 200 else LOST), str(body.get("answer", ""))
