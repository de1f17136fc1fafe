"""Benchmark routines, replies and external intents, and what the owner overlay costs.

- whole answers through `Assistant.ask` on the simulated default home (a local
  Mosquitto): the shipped good night (eight devices, three steps) against the
  same work asked as one compound sentence; a reply; an external intent
  (two MQTT messages); a routine with a webhook call (a loopback server);
- reading the configuration: the shipped one, and an owner's directory over
  it with 100 new intents and 100 extensions of shipped ones;
- `mnemolis check` on the shipped configuration, every check included.

Prints medians and p99 over ``--rounds``; the machine is shared, so compare
ratios in one run rather than figures across runs.

    .venv/bin/python bench/routines.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.cli.check import check
from mnemolis.config import bundled_config_dir, load_config
from mnemolis.demo.mosquitto import Mosquitto
from tests.support_routines import RoutineHouse, owner_dir, routine_house, running_webhook

OWNER = """
intents:
  garden.water:
    source: external
    phrases: [water the garden]
    slots: [room]
  test.hooked:
    phrases: [ring the webhook]
    do:
      - call: {{url: {url}, json: {{event: bench}}}}
      - say: Rung.
"""


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))]


async def answers(house: RoutineHouse, rounds: int) -> list[tuple[str, float, float]]:
    kinds = [
        ("good night (routine, 8 devices)", ["turn on the porch light", "good night"]),
        (
            "the same as one compound request",
            [
                "turn on the porch light",
                "turn off the lights and lock the front door and lock the back door "
                "and set the thermostat to 17 degrees",
            ],
        ),
        ("reply (thank you)", ["thank you"]),
        ("external intent (2 messages)", ["water the garden"]),
        ("routine with a webhook", ["ring the webhook"]),
        ("plain command, for scale", ["turn on the porch light", "turn off the porch light"]),
    ]
    rows = []
    for label, turns in kinds:
        samples = []
        for _ in range(rounds):
            for turn in turns[:-1]:
                await house.ask(turn)
            t0 = time.perf_counter()
            answer = await house.ask(turns[-1])
            samples.append((time.perf_counter() - t0) * 1000)
            assert answer.outcome.value == "answered", (turns[-1], answer.text)
        rows.append((label, *percentiles(samples)))
    return rows


def timed(call: Callable[[], object], rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1000)
    return percentiles(samples)


def big_owner(folder: Path) -> Path:
    shipped = load_config(bundled_config_dir())
    lines = ["intents:"]
    for i in range(100):
        lines += [f"  owner.reply_{i}:", f"    phrases: [owner phrase number {i}]", "    say: ok"]
    for i, name in enumerate(list(shipped.intents)[:100]):
        lines += [f"  {name}:", f"    phrases: [owner extension {i}]"]
    return owner_dir(folder, {"intents/en/mine.yaml": "\n".join(lines) + "\n"})


async def main(rounds: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="mnemolis-bench-routines-"))
    with running_webhook() as hook:
        config = load_config(
            owner_dir(folder / "owner", {"intents/en/mine.yaml": OWNER.format(url=hook.url())})
        )
        with Mosquitto() as broker:
            async with routine_house(config, broker) as house:
                await house.ask("good night")  # warm
                rows = await answers(house, rounds)
    print(f"whole answers ({rounds} rounds)")
    print("| request | p50 ms | p99 ms |")
    print("|---|---:|---:|")
    for label, p50, p99 in rows:
        print(f"| {label} | {p50:.1f} | {p99:.1f} |")
    owner = big_owner(folder / "big")
    load_shipped = timed(lambda: load_config(bundled_config_dir()), rounds)
    load_owner = timed(lambda: load_config(owner), rounds)
    checked = timed(lambda: check(str(bundled_config_dir())), max(3, rounds // 10))
    print("\nconfiguration")
    print("| what | p50 ms | p99 ms |")
    print("|---|---:|---:|")
    print(f"| load_config, shipped | {load_shipped[0]:.1f} | {load_shipped[1]:.1f} |")
    print(
        "| load_config, owner over shipped (+100 intents, +100 extensions) "
        f"| {load_owner[0]:.1f} | {load_owner[1]:.1f} |"
    )
    print(f"| mnemolis check, shipped (in process) | {checked[0]:.0f} | {checked[1]:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    asyncio.run(main(parser.parse_args().rounds))
