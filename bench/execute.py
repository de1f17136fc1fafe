"""Benchmark whole answers: `Assistant.ask` from text to merged reply, through
real sources it starts itself (the simulated home on a local Mosquitto, a test
ZIM read with libzim, the replayed Open-Meteo server, a frozen clock).

Prints p50 / p99 per kind of request, and the start-up of an assistant.
Weather answers come from memory after the first fetch (`refresh_minutes`),
as they do in the daemon.

    .venv/bin/python bench/execute.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.config import load_config
from mnemolis.demo.mosquitto import Mosquitto
from tests.support_assistant import House, running_assistant
from tests.support_kiwix import build_test_zims
from tests.support_open_meteo import OpenMeteoReplay

#: (label, turns of one round); the last turn of a round is the one timed.
REQUESTS: list[tuple[str, list[str]]] = [
    ("clock", ["what time is it"]),
    ("device command", ["turn on the porch light", "turn off the porch light"]),
    ("device state", ["is the back door locked"]),
    ("weather", ["what's the weather tomorrow"]),
    ("encyclopedia", ["who was ada lovelace"]),
    (
        "three sources",
        ["turn off the kitchen light and what's the weather tomorrow and who was ada lovelace"],
    ),
    ("conditional, skipped", ["if the back door is unlocked lock it"]),
    ("conditional, taken", ["if it rains tomorrow turn on the hallway light"]),
    ("confirmed unlock", ["lock the front door", "unlock the front door", "yes"]),
    ("out of scope", ["play some jazz"]),
]


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))]


async def measure(house: House, turns: list[str], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for turn in turns[:-1]:
            await house.ask(turn)
        t0 = time.perf_counter()
        await house.ask(turns[-1])
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


async def main(rounds: int) -> None:
    config = load_config()
    folder = Path(tempfile.mkdtemp(prefix="mnemolis-bench-"))
    zims = build_test_zims(folder)
    replay = OpenMeteoReplay()
    replay.start()
    rows = []
    try:
        with Mosquitto() as broker:
            t0 = time.perf_counter()
            async with running_assistant(
                config, broker, replay.url, zims.main, folder / "weather", own_understander=True
            ) as house:
                start_ms = (time.perf_counter() - t0) * 1000
                for label, turns in REQUESTS:
                    await house.ask(turns[-1])  # warm: first fetch, first article
                    p50, p99 = percentiles(await measure(house, turns, rounds))
                    rows.append((label, p50, p99))
    finally:
        replay.stop()
    print(f"assistant start-up (4 sources, understander, broker sync): {start_ms:.0f} ms")
    print(f"{'request':<24} {'n':>5} {'p50 ms':>9} {'p99 ms':>9}")
    for label, p50, p99 in rows:
        print(f"{label:<24} {rounds:>5} {p50:>9.2f} {p99:>9.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
