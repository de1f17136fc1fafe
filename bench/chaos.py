"""Issue 17's probes, repeated against a running `mnemolis serve`.

Starts everything itself on free loopback ports (a Mosquitto, the simulated
default home, the replayed Open-Meteo server, a test ZIM) and the daemon as a
real subprocess under ``ulimit -n 1024`` (soft and hard, as the issue found
it), then throws at it what went wrong before: lone surrogates and
non-finite numbers on every front-end, truncated Wyoming events, requests
begun and never finished, 1,100 idle Wyoming and 1,100 idle HTTP sockets, a
broker killed and restarted while requests stream in, plain-text "yes" from
a stranger. Issue 21's web and session attacks are a section of their own,
on a daemon of their own (`bench/chaos_web.py`). Each request is counted as
*answered* (its answer came back),
*clear error* (a JSON refusal or an ``error`` event with a code and a
sentence) or *lost* (nothing, a closed connection, or bytes that are not
strict JSON); after each probe the daemon must still answer "what time is
it" over HTTP. Prints one Markdown table (for bench/RESULTS.md) and the log
lines the daemon wrote during the socket flood.

    .venv/bin/python bench/chaos.py [--repeat 100] [--section all|daemon|web]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.serve.client import Daemon, NoAnswer, Unreachable
from tests import support_attacks as attacks
from tests.support_kiwix import build_test_zims
from tests.support_serve import (
    MqttProbe,
    ServeHome,
    ServeProcess,
    bearer,
    config_variant,
    http_call,
    open_files,
    raw_http,
    running_daemon,
    running_home,
    send_slowly,
)

LIMITS = "limits: {read_timeout_s: 2}\n"
HOST = b"Host: 127.0.0.1\r\n"
ANSWERED, CLEAR, LOST = "answered", "clear error", "lost"
NO_MATCHING_SUBSCRIBERS = 0x10  # an MQTT 5 PUBACK reason code
REPLY_TIMEOUT_S = 5.0  # a reply that takes longer is counted lost


@dataclass
class Row:
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


# --------------------------------------------------------------------------- one request each


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


# --------------------------------------------------------------------------- probes


def surrogates(daemon: ServeProcess, home: ServeHome, n: int) -> list[Row]:
    text = Row("lone surrogate in the text (HTTP)")
    ident = Row("lone surrogate in session and id (HTTP)")
    mqtt = Row("lone surrogate in the text (MQTT)")
    wyo = Row("lone surrogate in conversation_id (Wyoming)")
    for _ in range(n):
        text.count(
            judge(http_raw(daemon.http_port, b'{"text": "\\ud800 turn on the kitchen light"}'))
        )
        body = b'{"text": "what time is it", "session": "\\udc00", "id": "\\ud800"}'
        ident.count(judge(http_raw(daemon.http_port, body)))
        data = b'{"text": "what time is it", "context": {"conversation_id": "\\ud800"}}'
        wyo.count(judge(wyoming_event(daemon.wyoming_address, data)))
    with MqttProbe(home.broker.host, home.broker.port, ["mnemolis/chaos/s"]) as client:
        for i in range(n):
            payload = b'{"text": "\\ud800 unlock the front door", "id": %d}' % i
            client.publish("mnemolis/ask", payload, "mnemolis/chaos/s", b"%d" % i)
        judge_replies(client, mqtt, n, 2 * REPLY_TIMEOUT_S)
    return [text, ident, mqtt, wyo]


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


def non_finite(daemon: ServeProcess, n: int) -> list[Row]:
    http = Row("NaN, 1e400, -Infinity ids (HTTP)")
    wyo = Row("NaN in an event (Wyoming)")
    for i in range(n):
        number = (b"NaN", b"1e400", b"-Infinity")[i % 3]
        http.count(
            judge(http_raw(daemon.http_port, b'{"text": "what time is it", "id": %s}' % number))
        )
        data = b'{"text": "what time is it", "context": {"id": NaN}}'
        wyo.count(judge(wyoming_event(daemon.wyoming_address, data)))
    return [http, wyo]


def truncated(daemon: ServeProcess, n: int) -> Row:
    """``data_length: 10`` and 3 bytes, all at once: each must end in a timeout error."""
    row = Row("truncated Wyoming events (data_length 10, 3 bytes sent)")
    started = time.monotonic()

    async def one() -> Any:
        try:
            reader, writer = await asyncio.open_connection(*daemon.wyoming_address)
            writer.write(b'{"type": "transcript", "data_length": 10}\nabc')
            await writer.drain()
            header = strict(await asyncio.wait_for(reader.readline(), 3 * REPLY_TIMEOUT_S))
            header["data"] = strict(await reader.readexactly(header["data_length"]))
            writer.close()
            return header
        except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError):
            return None

    async def all_at_once() -> list[Any]:
        return await asyncio.gather(*(one() for _ in range(n)))

    for reply in asyncio.run(all_at_once()):
        row.count(judge(reply))
    row.note = f"all closed within {time.monotonic() - started:.1f} s (read_timeout_s 2)"
    return row


def unfinished_http(daemon: ServeProcess, n: int) -> Row:
    """Requests begun and never ended: the request line alone, or headers a byte at a time."""
    row = Row("HTTP begun, never finished (request line; headers byte by byte)")
    waits: list[float] = []

    def one(i: int) -> None:
        started = time.monotonic()
        slow = [bytes([c]) for c in b"GET /health HTTP/1.1\r\nX-Slow: " + b"x" * 40]
        try:
            reply = send_slowly(daemon.http_port, [b"GET /hea"] if i % 2 == 0 else slow, 0.2)
        except OSError:
            reply = b""
        waits.append(time.monotonic() - started)
        try:
            verdict = judge(strict(reply.partition(b"\r\n\r\n")[2]))
        except ValueError:
            verdict = LOST
        with lock:
            row.count(verdict)

    lock = threading.Lock()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    row.note = f"408 after {min(waits):.1f} to {max(waits):.1f} s (read_timeout_s 2)"
    return row


def idle_flood(daemon: ServeProcess, count: int) -> tuple[list[Row], str]:
    """``count`` idle Wyoming, then ``count`` idle HTTP sockets; meanwhile every way in."""
    refused_w = Row(f"{count:,} idle Wyoming sockets (ulimit -n 1024)")
    refused_h = Row(f"{count:,} idle HTTP sockets (ulimit -n 1024)")
    during = Row("asks and pings during the floods")
    mark = daemon.mark()
    started = time.monotonic()
    with ExitStack() as stack:
        early = stack.enter_context(socket.create_connection(daemon.wyoming_address, timeout=10))
        early.settimeout(REPLY_TIMEOUT_S)
        flood = connect_many(daemon.wyoming_address, count, stack)
        time.sleep(1.0)
        for sock in flood:
            refused_w.count(flood_verdict(sock))
        during.count(judge(attempt(read_wyoming_ping, early)))
        ask = {"text": "what time is it"}
        during.count(judge(attempt(lambda: http_call(daemon.http_port, "POST", "/ask", ask)[1])))
        for sock in connect_many(("127.0.0.1", daemon.http_port), count, stack):
            refused_h.count(flood_verdict(sock, http=True))
        assert daemon.socket_path is not None
        during.count(judge(unix_ask(daemon.socket_path)))
        during.count(judge(attempt(read_wyoming_ping, early)))
    logged = daemon.output(mark)
    minutes = (time.monotonic() - started) / 60
    note = (
        f"{len(logged.splitlines())} log lines, {len(logged.encode()):,} bytes for both floods "
        f"({minutes:.1f} min)"
    )
    refused_w.note = refused_h.note = (
        "accepted up to the cap and held idle; the rest refused in words"
    )
    return [refused_w, refused_h, during], note


def connect_many(
    where: tuple[str, int], count: int, stack: ExitStack
) -> list[socket.socket | None]:
    """``count`` connections (None: could not connect) from 200 addresses: many clients."""
    opened: list[socket.socket | None] = []
    for i in range(count):
        source = (f"127.0.0.{2 + i % 200}", 0)
        try:
            sock = socket.create_connection(where, timeout=2, source_address=source)
            opened.append(stack.enter_context(sock))
        except OSError:
            opened.append(None)
    return opened


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


def read_wyoming_ping(sock: socket.socket) -> Any:
    sock.sendall(b'{"type": "ping"}\n')
    return read_wyoming(sock)


def unix_ask(path: Path) -> Any:
    """An ask through the CLI's own client, over the daemon's unix socket."""
    try:
        return Daemon(socket_path=path).ask({"text": "what time is it"}, REPLY_TIMEOUT_S)
    except (Unreachable, NoAnswer):
        return None


def broker_restart(home: ServeHome, seconds: float = 8.0, every_s: float = 0.05) -> Row:
    """Requests stream in over MQTT; the broker is killed at 2 s and back at 4 s."""
    row = Row("MQTT requests while the broker is killed and restarted")
    reply_to = "mnemolis/chaos/broker"
    client = MqttProbe(home.broker.host, home.broker.port, [reply_to])
    client.client.reconnect_delay_set(0.2, 1)  # type: ignore[arg-type]
    acked: dict[int, int] = {}  # mid -> PUBACK reason code
    client.client.on_publish = lambda _c, _u, mid, reason, _p: acked.__setitem__(mid, reason.value)
    client.start()
    sent: dict[str, float] = {}
    mids: dict[str, int] = {}
    started = time.monotonic()
    killed = restarted = False
    n = 0
    while time.monotonic() - started < seconds:
        elapsed = time.monotonic() - started
        if elapsed > 2 and not killed:
            home.broker.kill()
            killed = True
        if elapsed > 4 and not restarted:
            home.broker.start()
            restarted = True
        ident = f"b{n}"
        payload = json.dumps({"text": "what time is it", "session": "chaos", "id": ident})
        info = client.client.publish(
            "mnemolis/ask", payload, qos=1, properties=properties(reply_to, ident)
        )
        sent[ident], mids[ident] = elapsed, info.mid
        n += 1
        time.sleep(every_s)
    answers: dict[str, str] = {}
    deadline = time.monotonic() + 15
    while len(answers) < len(sent) and time.monotonic() < deadline:
        try:
            got = client.next(timeout_s=max(0.1, deadline - time.monotonic()))
        except AssertionError:
            break
        try:
            reply = strict(got.payload)
        except ValueError:
            continue
        answers[str(reply.get("id"))] = judge(reply)
    client.stop()
    told = 0
    for ident in sent:
        verdict = answers.get(ident, LOST)
        if verdict == LOST and acked.get(mids[ident]) == NO_MATCHING_SUBSCRIBERS:
            verdict, told = CLEAR, told + 1  # the broker told the sender nobody got it
        row.count(verdict)
    unanswered = sorted(sent[i] for i in sent if i not in answers)
    if unanswered:
        row.note = (
            f"{told} told by the broker: no matching subscribers (PUBACK 0x10); unanswered "
            f"were published at {unanswered[0]:.1f} to {unanswered[-1]:.1f} s (broker down "
            "from 2 to 4 s)"
        )
    return row


def properties(reply_to: str, ident: str) -> Any:
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.ResponseTopic = reply_to
    props.CorrelationData = ident.encode()
    return props


def strangers_yes(home: ServeHome, n: int) -> Row:
    """Plain text "unlock the front door" from one client, "yes" from another: no unlock."""
    row = Row('plain-text "yes" to another client\'s unlock (MQTT)')
    home.simulator.clear()
    with MqttProbe(home.broker.host, home.broker.port, ["mnemolis/answer"]) as client:
        for _ in range(n):
            client.publish("mnemolis/ask", "unlock the front door")
            client.next()
            client.publish("mnemolis/ask", "yes")
            row.count(judge(strict(client.next().payload)))
    unlocked = len(home.simulator.received("front door"))
    row.note = f"doors unlocked: {unlocked}"
    return row


# --------------------------------------------------------------------------- section: templates
# and discovery topics (issue 21). Self-contained: its own daemon, started with the poison
# already retained on the broker (a restart is when it froze before), and its own rows.


def rss_mib(pid: int) -> float:
    """A process's resident memory, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def ask_http(daemon: ServeProcess, text: str) -> tuple[str, str]:
    """(verdict, answer text) of one HTTP ask."""
    try:
        status, body, _ = http_call(
            daemon.http_port, "POST", "/ask", {"text": text}, timeout_s=REPLY_TIMEOUT_S
        )
    except (OSError, ValueError):
        return LOST, ""
    return (judge(body) if status == 200 else LOST), str(body.get("answer", ""))


def publish_all(home: ServeHome, messages: list[tuple[str, bytes, bool]]) -> None:
    for topic, payload, retain in messages:
        home.simulator.publish(topic, payload, retain)


def poison_rows(daemon: ServeProcess, home: ServeHome, n: int, started_s: float) -> list[Row]:
    """V1, V2, V7 retained before the start: the light driven while the poison comes again."""
    drive = Row("light on/off while V1/V2 poison states are re-sent (HTTP)")
    health = Row("/health while the poison is re-sent")
    home.simulator.clear()
    for i in range(n):
        publish_all(home, attacks.poison_states())
        verdict, answer = ask_http(
            daemon, f"turn {'on' if i % 2 == 0 else 'off'} the kitchen light"
        )
        drive.count(verdict if answer.startswith("Done") else LOST)
        try:
            ok = http_call(daemon.http_port, "GET", "/health", timeout_s=REPLY_TIMEOUT_S)[0] == 200
        except OSError:
            ok = False
        health.count(ANSWERED if ok else LOST)
    received = len(home.simulator.received("kitchen light"))
    drive.note = (
        f"light commands received {received} of {n}; listening {started_s:.1f} s after start"
    )
    health.note = "poison: 3 sensors (regex, backtracking regex, 3**30000 squared), 60 x 54 KB"
    return [drive, health]


def stolen_topic_rows(daemon: ServeProcess, home: ServeHome, n: int) -> list[Row]:
    """V4: each switch on another's topic refused in words, the front door never commanded."""
    row = Row("switches on the lock's, Hermes' and the ask topic (V4, HTTP)")
    home.simulator.clear()
    names = [name for name, _topic, _on in attacks.V4_SWITCHES]
    for i in range(n):
        verdict, answer = ask_http(daemon, f"turn on the {names[i % len(names)]}")
        refused = "configuration was refused: its command topic" in answer
        row.count(CLEAR if verdict == ANSWERED and refused else LOST)
    time.sleep(0.3)
    row.note = f"front door commands: {len(home.simulator.received('front door'))}"
    return [row]


def kettle_known(daemon: ServeProcess, known: bool, wait_s: float = 240.0) -> tuple[str, str]:
    """Ask for the kettle until the daemon knows it (or no longer does): (verdict, answer)."""
    deadline = time.monotonic() + wait_s
    verdict, answer = LOST, ""
    while time.monotonic() < deadline:
        verdict, answer = ask_http(daemon, "turn on the porch kettle")
        if ("porch kettle" in answer and "don't know" not in answer) == known:
            break
        time.sleep(1.0)
    return verdict, answer


def flood_rows(daemon: ServeProcess, home: ServeHome, configs: int) -> list[Row]:
    """V10: a flood past the cap, then a real new device, twice; resident memory each time
    (a second flood shows whether what the first left is reused or grows)."""
    row = Row(f"{configs:,} discovery configs, then a real new device (V10), twice")
    figures = [rss_mib(daemon.process.pid)]
    answers = []
    flood = attacks.flood(configs)
    kettle = attacks.real_device("porch kettle", "porch/kettle")
    for _round in range(2):
        publish_all(home, [*flood, kettle])
        verdict, answer = kettle_known(daemon, True)
        known = "porch kettle" in answer and "don't know" not in answer
        row.count(verdict if known else LOST)
        answers.append(answer[:40])
        figures.append(rss_mib(daemon.process.pid))
        publish_all(home, attacks.cleared([*flood, kettle]))
        kettle_known(daemon, False)  # the removals flushed: the kettle went last
        time.sleep(2.0)
        figures.append(rss_mib(daemon.process.pid))
    mib = ", ".join(f"{f:.0f}" for f in figures)
    row.note = f"kettle: {answers[0]!r}; RSS MiB before, flooded, cleared, again: {mib}"
    return [row]


def templates_and_topics(home: ServeHome, repeat: int, flood: int) -> list[Row]:
    """The section's rows: its own daemon, started with the poison retained."""
    left = [
        *attacks.poison_sensors(),
        *attacks.poison_states(),
        *attacks.stolen_topics(),
        *attacks.heavy_templates(),
    ]
    publish_all(home, left)
    rows: list[Row] = []
    try:
        t0 = time.monotonic()
        with running_daemon(home, ["--http", "127.0.0.1:0"], ["http"]) as daemon:
            started_s = time.monotonic() - t0
            rows += poison_rows(daemon, home, repeat, started_s)
            rows += stolen_topic_rows(daemon, home, repeat)
            rows += flood_rows(daemon, home, flood)
            answering = still_answering(daemon)
            for row in rows:
                row.still_answering = answering
    finally:
        publish_all(home, attacks.cleared(left))
    return rows


# --------------------------------------------------------------------------- confirmation attacks

# Issue 21: nobody opens the house without a yes. Every way a prober found (or might
# try) to open the garage door, unlock a door or open a valve, each from a session of
# its own and followed by a "yes" from a stranger's session; then the watches are set
# off and the delays run out. Everything the guarded devices' command topics got is
# counted by a client of our own: it must be nothing. (A garden tap is announced by
# discovery first; no alarm disarm here: no shipped intent disarms.)

CONFIRM_ATTACKS = [
    "set the garage door to 100 percent",
    "open the garage door halfway",
    "open the garage door a bit more",
    "raise the garage door",
    "in 2 seconds set the garage door to 100 percent",
    "in 2 seconds open the garage door halfway",
    "in 2 seconds open the garage door a bit more",
    "when the kitchen light turns on open the garage door halfway",
    "when the kitchen light turns on set the garage door to 100 percent",
    "if the kitchen light is off open the garage door a bit more",
    "unlock the front door",
    "unlock the back door in 2 seconds",
    "open the garden tap",
    "turn on the garden tap",
]
GUARDED_TOPICS = ["home/garage_door/set", "home/front_door/set", "home/back_door/set", "tap/set"]
GARDEN_TAP = {"name": "Garden Tap", "cmd_t": "tap/set", "stat_t": "tap/state"}


def confirmation_attacks(daemon: ServeProcess, home: ServeHome, n: int) -> list[Row]:
    """Each attack ``n`` times (a session each, a stranger's "yes" after it), then what
    the guarded devices got: the last row counts every such command as lost."""
    tap = "homeassistant/valve/garden_tap/config"
    with MqttProbe(home.broker.host, home.broker.port, ["mnemolis/chaos/tap"]) as announcer:
        announcer.publish(tap, json.dumps(GARDEN_TAP), retain=True)
    time.sleep(1.0)  # the daemon discovers the tap
    home.simulator.report("kitchen light", state="OFF")
    rows = []
    with MqttProbe(home.broker.host, home.broker.port, GUARDED_TOPICS) as watcher:
        for k, text in enumerate(CONFIRM_ATTACKS):
            row = Row(f'"{text}", then a stranger\'s "yes" (HTTP)')
            waited = 0
            for i in range(n):
                ask = {"text": text, "session": f"attack-{k}-{i}"}
                try:
                    _status, body, _ = http_call(daemon.http_port, "POST", "/ask", ask)
                    stranger = {"text": "yes", "session": "stranger"}
                    http_call(daemon.http_port, "POST", "/ask", stranger)
                except (OSError, ValueError):
                    row.count(LOST)
                    continue
                row.count(judge(body))
                waited += body.get("outcome") == "waiting"
            row.note = f"asked for a yes: {waited} of {n}"
            rows.append(row)
        home.simulator.report("kitchen light", state="ON")  # every watch set off
        time.sleep(3.0)  # every delay ran out
        opened: list[str] = []
        while True:
            try:
                got = watcher.next(timeout_s=0.5)
            except AssertionError:
                break
            opened.append(f"{got.topic} {got.payload.decode()}")
    total = Row("commands that reached a door, the garage door or the tap (all of the above)")
    total.tried = sum(r.tried for r in rows)
    total.lost = len(opened)
    total.note = f"opened without a yes: {len(opened)}" + (f" ({opened[:3]})" if opened else "")
    return [*rows, total]


# --------------------------------------------------------------------------- the run


def run(daemon: ServeProcess, home: ServeHome, repeat: int, sockets: int) -> tuple[list[Row], str]:
    rows: list[Row] = []

    def probe(made: Callable[[], Row | list[Row]]) -> None:
        found = made()
        batch = found if isinstance(found, list) else [found]
        answering = still_answering(daemon)
        for row in batch:
            row.still_answering = answering
        rows.extend(batch)

    probe(lambda: surrogates(daemon, home, repeat))
    probe(lambda: non_finite(daemon, repeat))
    probe(lambda: truncated(daemon, repeat))
    probe(lambda: unfinished_http(daemon, max(10, repeat // 5)))
    flood_note = ""

    def flood() -> list[Row]:
        nonlocal flood_note
        found, flood_note = idle_flood(daemon, sockets)
        return found

    probe(flood)
    probe(lambda: strangers_yes(home, max(5, repeat // 10)))
    probe(lambda: confirmation_attacks(daemon, home, max(3, repeat // 20)))
    probe(lambda: broker_restart(home))
    return rows, flood_note


# --------------------------------------------------------------------------- issue 21: the web


def web_section(home: ServeHome, repeat: int) -> list[Row]:
    """Issue 21's web and session attacks, on a daemon of their own (`bench/chaos_web.py`)."""
    from bench.chaos_web import web_and_sessions

    return web_and_sessions(home, repeat)


def report(rows: list[Row], flood_note: str) -> None:
    print("| probe | tried | answered | clear error | lost | still answering after | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        after = "yes" if r.still_answering else "**no**"
        counts = f"{r.tried:,} | {r.answered:,} | {r.clear:,} | {r.lost:,}"
        print(f"| {r.probe} | {counts} | {after} | {r.note} |")
    total = sum(r.tried for r in rows)
    lost = sum(r.lost for r in rows)
    floods = f"; during the socket floods: {flood_note}" if flood_note else ""
    print(f"\n{total:,} requests, {lost:,} lost{floods}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=100, help="requests per probe")
    parser.add_argument("--sockets", type=int, default=1100, help="idle sockets per front-end")
    parser.add_argument(
        "--section",
        choices=("all", "daemon", "web", "templates"),
        default="all",
        help="templates: only issue 21's template and discovery-topic attacks",
    )
    parser.add_argument("--flood", type=int, default=6000, help="discovery configs (V10)")
    args = parser.parse_args()
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this side holds the floods
    with tempfile.TemporaryDirectory(prefix="mnemolis-chaos-") as scratch:
        folder = Path(scratch)
        zims = build_test_zims(folder)
        with running_home(folder, zims.main) as home:
            rows, note = [], ""
            if args.section in ("all", "daemon"):  # issue 17's probes, the confirmations
                config = config_variant(home, "chaos", LIMITS)
                with running_daemon(home, config_dir=config, preexec=open_files(1024)) as daemon:
                    rows, note = run(daemon, home, args.repeat, args.sockets)
            if args.section in ("all", "web"):
                rows += web_section(home, args.repeat)
            if args.section in ("all", "templates"):
                rows += templates_and_topics(home, args.repeat, args.flood)
    report(rows, note)
    return 1 if any(r.lost or not r.still_answering for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
