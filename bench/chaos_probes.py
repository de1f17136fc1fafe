"""Issue 17's probes and issue 21's confirmation attacks: the daemon section of `bench/chaos.py`.

Each probe throws one kind of bad input at a running daemon and returns its rows of the
chaos table; `bench/chaos.py` asks after each whether the daemon still answers.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.chaos_judge import (
    CLEAR,
    LOST,
    REPLY_TIMEOUT_S,
    Row,
    attempt,
    flood_verdict,
    http_raw,
    judge,
    judge_replies,
    read_wyoming,
    strict,
    wyoming_event,
)
from mnemolis.serve.client import Daemon, NoAnswer, Unreachable
from tests.support_serve import MqttProbe, ServeHome, ServeProcess, http_call, send_slowly

NO_MATCHING_SUBSCRIBERS = 0x10  # an MQTT 5 PUBACK reason code


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
