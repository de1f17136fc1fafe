"""Timers at scale: 1,000 at once, how late each is said, memory, and start-up.

1. In the process: the timers source with 1,000 timers due within a fraction of a
   second of each other; lateness = when the announcement reached its listener
   minus when it was due.
2. Against `mnemolis serve` (a real subprocess, Mosquitto, the simulated home):
   1,000 timers set over HTTP by 10 clients, each announcement caught on
   ``mnemolis/say`` by an MQTT client and matched to its timer by id; lateness =
   arrival (stamped on the client's network thread) minus due. The daemon's
   resident memory idle, with 1,000 timers, after.
3. Start-up: the daemon's time to its ready line with an empty store and with
   1,000 stored timers (median of three each); the source's own start with 1,000
   rows in SQLite.

    .venv/bin/python bench/timers.py [--timers 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as mqtt

from bench.load import rss_mib
from mnemolis.config import load_config
from mnemolis.core.announce import Announcement, Announcer
from mnemolis.core.origin import Origin
from mnemolis.sources.base import Request
from mnemolis.sources.timers.source import TimersSource
from mnemolis.sources.timers.store import Item, Store
from mnemolis.understand import Understander
from tests.support_kiwix import build_test_zims
from tests.support_serve import MqttProbe, http_call, running_daemon, running_home

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--http", "127.0.0.1:0", "--no-wyoming", "--mqtt-api", "--no-hermes"]
FRONT_ENDS = ["http", "mqtt-api"]


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms "
        f"({len(ordered)} timers)"
    )


async def in_process(count: int, folder: Path) -> list[float]:
    config = load_config(ROOT)
    understander = Understander(config)
    announcer = Announcer()
    late: list[float] = []
    done = asyncio.Event()

    def heard(announcement: Announcement) -> None:
        if announcement.spoken:
            late.append((time.time() - announcement.due_at) * 1000)
            if len(late) == count:
                done.set()

    announcer.subscribe(heard)
    timers = TimersSource(config, understander.registry, folder, announcer)
    assert timers.settings is not None
    timers.settings = dataclasses.replace(timers.settings, max_items=count)
    await timers.start()
    step = understander.understand("set a timer for 5 seconds").steps[0]
    for _ in range(count):
        await timers.answer(step, Request(session="bench"))  # type: ignore[arg-type]
    await asyncio.wait_for(done.wait(), 30)
    await timers.close()
    return late


def stored_start(count: int, folder: Path) -> float:
    """The source's start with ``count`` rows in its SQLite file (ms, median of five)."""
    config = load_config(ROOT)
    store = Store(folder / "timers.sqlite3")
    due = time.time() + 3600
    store.add_many([Item("timer", "bench", Origin(), due, duration_s=3600) for _ in range(count)])
    store.close()
    times = []
    for _ in range(5):

        async def start() -> float:
            timers = TimersSource(config, Understander(config).registry, folder, Announcer())
            t0 = time.perf_counter()
            await timers.start()
            ms = (time.perf_counter() - t0) * 1000
            assert len(timers.items) == count
            await timers.close()
            return ms

        times.append(asyncio.run(start()))
    return statistics.median(times)


class StampingProbe(MqttProbe):
    """Notes when each announcement arrived, on paho's thread, as it arrives (not when
    the bench gets round to reading it)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.arrived: dict[str, float] = {}

    def _on_message(self, client: object, userdata: object, msg: mqtt.MQTTMessage) -> None:
        at = time.time()
        self.arrived.setdefault(json.loads(msg.payload)["id"], at)
        super()._on_message(client, userdata, msg)


def daemon_run(count: int, base: Path) -> None:
    zims = build_test_zims(base / "zims")
    with running_home(base / "home", zims.main) as home:
        state = base / "state"
        env = {"MNEMOLIS_STATE": str(state)}
        probe = StampingProbe(home.broker.host, home.broker.port, ["mnemolis/say"])
        said = probe.arrived

        with probe, running_daemon(home, FLAGS, FRONT_ENDS, env=env) as daemon:
            pid = daemon.process.pid
            idle = rss_mib(pid)[0]
            port = daemon.http_port
            due: dict[str, float] = {}

            def one(n: int) -> None:
                _, body, _ = http_call(
                    port, "POST", "/ask", {"text": "set a timer for 15 seconds", "session": f"b{n}"}
                )
                data = body["parts"][0]["data"]
                due[data["id"]] = data["due_at"]

            t0 = time.perf_counter()
            with ThreadPoolExecutor(10) as pool:
                list(pool.map(one, range(count)))
            set_s = time.perf_counter() - t0
            loaded = rss_mib(pid)[0]
            deadline = time.monotonic() + 60
            while len(said) < len(due) and time.monotonic() < deadline:
                time.sleep(0.1)
            after = rss_mib(pid)
            late = [(said[i] - due[i]) * 1000 for i in due if i in said]
            print(
                f"daemon: {len(due)} timers set over HTTP in {set_s:.1f} s; "
                f"{len(said)} said on mnemolis/say"
            )
            print(f"daemon: lateness on mnemolis/say: {percentiles(late)}")
            print(
                f"daemon: RSS idle {idle:.0f} MiB, with {count} timers {loaded:.0f} MiB, "
                f"after {after[0]:.0f} MiB (peak {after[1]:.0f} MiB)"
            )
            # 1,000 more, far ahead, to be stored across the restarts below
            for _ in range(count):
                http_call(port, "POST", "/ask", {"text": "set a timer for 2 hours", "session": "s"})

        def ready_s(environment: dict[str, str]) -> float:
            t0 = time.perf_counter()
            with running_daemon(home, FLAGS, FRONT_ENDS, env=environment):
                return time.perf_counter() - t0

        stored = [ready_s(env) for _ in range(3)]
        empty = [ready_s({"MNEMOLIS_STATE": str(base / f"empty{i}")}) for i in range(3)]
        print(
            f"daemon: start-up to ready, median of 3: empty store "
            f"{statistics.median(empty):.2f} s, {count} stored timers "
            f"{statistics.median(stored):.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timers", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemolis-bench-timers-") as folder:
        base = Path(folder)
        late = asyncio.run(in_process(args.timers, base / "in-process"))
        print(f"in process: lateness of {args.timers} timers due at once: {percentiles(late)}")
        ms = stored_start(args.timers, base / "stored")
        print(f"in process: the timers source starts with {args.timers} stored in {ms:.1f} ms")
        daemon_run(args.timers, base)


if __name__ == "__main__":
    main()
