"""Issue 21's web and session attacks: a section of `bench/chaos.py` (``--section web``).

Its own daemon, as the attacker's probe found it: no token (``token_file: false``),
every front-end on, loopback. Thrown at it: a web page's "simple" POSTs (``text/plain``)
and POSTs from a foreign ``Origin`` asking to unlock the front door and then saying yes;
a DNS-rebinding page's ``Host`` on ``/ask`` and ``/events``; 30,000 nested ``[`` on
HTTP, MQTT and Wyoming; ``/hello`` guesses at ``$MNEMOLIS_MQTT_URL``; 300 idle sockets
from one address while others ask; and a "yes" from another front-end or another client
to an unlock that is waiting (MQTT to a Hermes site and to a Wyoming satellite, guessed
Wyoming connections, HTTP without a session). Each request is counted as in the rest of
the chaos table (answered, clear error, lost), and the front door's commands are
counted: none may be an unlock.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from bench.chaos_judge import (
    LOST,
    Row,
    attempt,
    flood_verdict,
    judge,
    judge_replies,
    still_answering,
    strict,
)
from tests.support_serve import (
    ALL_FLAGS,
    ALL_FRONT_ENDS,
    MqttProbe,
    ServeHome,
    ServeProcess,
    config_variant,
    http_call,
    running_daemon,
)

SERVE = "token_file: false\n"  # the probe's daemon: no token
EVIL = "http://evil.example"
REPLY = "mnemolis/chaos/web"
DEEP = b"[" * 30_000
JSON = {"Content-Type": "application/json"}


def web_and_sessions(home: ServeHome, repeat: int) -> list[Row]:
    """Every probe of the section, each row with whether the daemon still answered."""
    config = config_variant(home, "chaos-web", SERVE)
    rows: list[Row] = []
    with running_daemon(home, ALL_FLAGS, ALL_FRONT_ENDS, config_dir=config) as daemon:
        probes: list[Callable[[], list[Row]]] = [
            lambda: page_requests(daemon, home, repeat),
            lambda: deep_json(daemon, home, repeat),
            lambda: [hello_guesses(daemon, repeat)],
            lambda: one_address_flood(daemon, 300),
            lambda: [yes_from_elsewhere(daemon, home, max(5, repeat // 10))],
        ]
        for made in probes:
            batch = made()
            answering = still_answering(daemon)
            for row in batch:
                row.still_answering = answering
            rows.extend(batch)
    return rows


def unlocks(home: ServeHome) -> int:
    return sum('"UNLOCK"' in c.payload for c in home.simulator.received("front door"))


# --------------------------------------------------------------------------- a web page


def request(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Any:
    """The JSON reply, or a verdict-ready dict for a stream that was let in (lost: a
    page would be reading the announcements); None when nothing came."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            return None
        return strict(response.read())
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def page_requests(daemon: ServeProcess, home: ServeHome, n: int) -> list[Row]:
    plain = Row('a page\'s text/plain POSTs: "unlock the front door", "yes" (HTTP)')
    foreign = Row("POSTs from a foreign Origin: unlock, yes (HTTP)")
    rebound = Row("a rebound Host (DNS rebinding): POST /ask, GET /events")
    home.simulator.clear()
    port = daemon.http_port
    for i in range(n):
        for text in ("unlock the front door", "yes"):
            body = json.dumps({"text": text, "session": f"page-{i}"}).encode()
            plain.count(judge(request(port, "POST", "/ask", body, {"Content-Type": "text/plain"})))
            sent = {"Content-Type": "application/json", "Origin": EVIL}
            foreign.count(judge(request(port, "POST", "/ask", body, sent)))
        host = {"Host": f"evil.example:{port}", "Content-Type": "application/json"}
        body = json.dumps({"text": "unlock the front door"}).encode()
        rebound.count(judge(request(port, "POST", "/ask", body, host)))
        rebound.count(judge(request(port, "GET", "/events", None, host)))
    note = f"doors unlocked: {unlocks(home)}"
    plain.note = f"415; {note}"
    foreign.note = f"403; {note}"
    rebound.note = f"421 on both routes; {note}"
    return [plain, foreign, rebound]


def hello_guesses(daemon: ServeProcess, n: int) -> Row:
    """Half right, half wrong guesses at the broker URL (its password in it)."""
    row = Row("/hello and /ask guessing $MNEMOLIS_MQTT_URL through expect.env")
    right = hashlib.sha256(daemon.environ["MNEMOLIS_MQTT_URL"].encode()).hexdigest()[:16]
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for i in range(n):
        guess = i % 2 == 0
        expect = {"config": "/etc/mnemolis", "env": {"MNEMOLIS_MQTT_URL": right if guess else "0"}}
        path = "/hello" if i % 4 < 2 else "/ask"
        body = {"expect": expect, "text": "what time is it"}
        try:
            status, reply, _ = http_call(daemon.http_port, "POST", path, body)
        except (OSError, ValueError):
            row.count(LOST)
            continue
        row.count(judge(reply))
        seen[guess].add(f"{status} {json.dumps(reply, sort_keys=True)}")
    alike = seen[True] == seen[False]
    replies = len(seen[True] | seen[False])
    said = "(one reply to every guess)" if replies == 1 else f"({replies} different replies)"
    row.note = f"right and wrong guesses answered alike: {'yes' if alike else '**no**'} {said}"
    return row


# --------------------------------------------------------------------------- bounded parsing


def deep_json(daemon: ServeProcess, home: ServeHome, n: int) -> list[Row]:
    over_http = Row("30,000 nested [ (HTTP /ask)")
    over_mqtt = Row("30,000 nested [ (MQTT)")
    over_wyoming = Row("30,000 nested [ (Wyoming event)")
    for _ in range(n):
        over_http.count(judge(request(daemon.http_port, "POST", "/ask", DEEP, JSON)))
        line = b'{"type": "transcript", "data": {"text": "hi", "context": %s}}\n' % DEEP
        over_wyoming.count(judge(wyoming_line(daemon.wyoming_address, line)))
    with MqttProbe(home.broker.host, home.broker.port, [REPLY]) as client:
        for i in range(n):
            client.publish("mnemolis/ask", b'{"text": "hi", "x": ' + DEEP, REPLY, b"%d" % i)
        judge_replies(client, over_mqtt, n, 10)
    over_http.note = "400 `invalid_json`: nested deeper than 64 levels"
    over_mqtt.note = "an error answer on the response topic"
    over_wyoming.note = "an `error` event"
    return [over_http, over_mqtt, over_wyoming]


def wyoming_line(address: tuple[str, int], line: bytes, sock: socket.socket | None = None) -> Any:
    """Send one raw event line; the event that answers it, with its data (None: nothing)."""
    try:
        with ExitStack() as stack:
            if sock is None:
                sock = stack.enter_context(socket.create_connection(address, timeout=5))
            sock.sendall(line)
            stream = sock.makefile("rb")
            header = strict(stream.readline())
            if header.get("data_length"):
                header["data"] = strict(stream.read(header["data_length"]))
            return header
    except (OSError, ValueError):
        return None


# --------------------------------------------------------------------------- one client's sockets


def one_address_flood(daemon: ServeProcess, count: int) -> list[Row]:
    """``count`` idle HTTP sockets from 127.0.0.2; meanwhile asks from 127.0.0.1."""
    flood = Row(f"{count} idle HTTP sockets from one address")
    others = Row("asks from other addresses during that flood")
    with ExitStack() as stack:
        for _ in range(count):
            try:
                sock = stack.enter_context(
                    socket.create_connection(
                        ("127.0.0.1", daemon.http_port), timeout=2, source_address=("127.0.0.2", 0)
                    )
                )
            except OSError:
                flood.count(LOST)
                continue
            flood.count(flood_verdict(sock, http=True, wait_s=0.05))

        def asked_from(source: str) -> Any:
            return http_call(
                daemon.http_port, "POST", "/ask", {"text": "what time is it"}, source=source
            )[1]

        for source in ("127.0.0.1", "127.0.0.3"):
            others.count(judge(attempt(asked_from, source)))
    flood.note = "32 held (max_connections_per_client), the rest refused in words (503)"
    return [flood, others]


# --------------------------------------------------------------------------- whose yes


def yes_from_elsewhere(daemon: ServeProcess, home: ServeHome, n: int) -> Row:
    """An unlock waits in one conversation; the yes comes from another front-end or
    another client of the same one. Every yes is answered; none unlocks."""
    row = Row("a yes from another front-end or client (MQTT, Hermes, Wyoming, HTTP)")
    home.simulator.clear()
    address = daemon.wyoming_address
    topics = [REPLY, "hermes/tts/say", "hermes/dialogueManager/continueSession"]
    with MqttProbe(home.broker.host, home.broker.port, topics) as client:

        def mqtt(text: str, session: str) -> Any:
            body = json.dumps({"text": text, "session": session})
            client.publish("mnemolis/ask", body, REPLY, b"y")
            return strict(client.next().payload)

        def hermes(text: str, site: str, session_id: str) -> Any:
            said = {"text": text, "siteId": site, "sessionId": session_id}
            client.publish("hermes/asr/textCaptured", json.dumps(said))
            reply = strict(client.next().payload)
            return {"answer": reply["text"]} if isinstance(reply.get("text"), str) else None

        def transcript(sock: socket.socket | None, text: str, context: Any) -> Any:
            data = json.dumps({"text": text, "context": context}).encode()
            line = b'{"type": "transcript", "data_length": %d}\n' % len(data) + data
            return wyoming_line(address, line, sock)

        for i in range(n):
            site, satellite = f"site-{i}", {"satellite_id": f"sat-{i}"}
            mqtt("unlock the front door", f"hermes:{site}")
            row.count(judge(hermes("yes", site, "any")))  # MQTT asked, Hermes says yes
            mqtt("no", f"hermes:{site}")  # the MQTT client's own question, answered
            hermes("unlock the front door", site, "h-1")
            row.count(judge(mqtt("yes", f"hermes:{site}")))  # Hermes asked, MQTT says yes
            mqtt("unlock the front door", f"wyoming:satellite:sat-{i}")
            row.count(judge(transcript(None, "yes", satellite)))  # ... Wyoming says yes
            with socket.create_connection(address, timeout=5) as own:
                transcript(own, "unlock the front door", None)
                for guess in range(1, 4):  # the numbers connections used to have
                    row.count(judge(mqtt("yes", f"wyoming:connection:{guess}")))
            named = {"text": "unlock the front door", "session": "http"}
            http_call(daemon.http_port, "POST", "/ask", named)
            row.count(judge(http_call(daemon.http_port, "POST", "/ask", {"text": "yes"})[1]))
    row.note = f"doors unlocked: {unlocks(home)}"
    return row
