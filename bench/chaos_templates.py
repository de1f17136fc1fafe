"""Issue 21's templates and discovery topics: the ``--section templates`` of `bench/chaos.py`.

Self-contained: its own daemon, started with the poison already retained on the broker
(a restart is when it froze before), and its own rows.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.chaos_judge import ANSWERED, CLEAR, LOST, REPLY_TIMEOUT_S, Row, ask_http, still_answering
from tests import support_attacks as attacks
from tests.support_serve import ServeHome, ServeProcess, http_call, running_daemon


def rss_mib(pid: int) -> float:
    """A process's resident memory, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


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
