"""Benchmark the big home: entity accuracy, and understanding with 100 and 2,000 entities.

    python bench/big_home.py [--runs N] [--startup-runs N] [--sizes 100,2000] [--seed S]

Entity accuracy, value accuracy, intent accuracy and "fully right" come from
`mnemolis eval` on tests/data/big_home (its YAML devices and its discovery
configs, loaded without a broker) over tests/data/big_home/sentences/*.jsonl:
all rows, the tuning folds (1-4) and the held-out fold 5.

Latency and start-up are measured on homes of each size built from the big
home by a seeded resampling (fewer entities than it has: a sample of them;
more: copies in numbered areas, "kitchen 3", with numbered names,
"kitchen island 3", so every copy is a distinct, sayable device). Latency
is per query over the big home's sentences in a warm process, the best of
several passes per query with the sizes' passes interleaved (p50, p99);
start-up is the wall time of a fresh process that loads the configuration
and compiles understanding over that home (median of several runs, the
sizes interleaved). Targets
(issue 12): latency with 2,000 entities within 2x of 100, start-up within 1.5x.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.cli.main import build_parser  # noqa: E402
from mnemolis.config import Config, load_config  # noqa: E402
from mnemolis.core.devices import Device, DeviceRegistry  # noqa: E402
from mnemolis.evaluation.command import run  # noqa: E402
from mnemolis.evaluation.discovered import home_registry  # noqa: E402

HOME = ROOT / "tests" / "data" / "big_home"
SENTENCES = sorted((HOME / "sentences").glob("*.jsonl"))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def scaled(devices: list[Device], size: int, seed: int) -> list[Device]:
    """``size`` devices resampled from the big home's, the same for the same seed."""
    rng = random.Random(seed)
    if size <= len(devices):
        return rng.sample(devices, size)
    out = list(devices)
    copy = 1
    while len(out) < size:
        copy += 1
        for device in rng.sample(devices, len(devices)):
            if len(out) >= size:
                break
            room = f"{device.room} {copy}" if device.room else None
            name = f"{device.name} {copy}"
            out.append(
                dataclasses.replace(
                    device,
                    name=name,
                    room=room,
                    aliases=[f"{a} {copy}" for a in device.aliases],
                    id=f"{device.id}_{copy}",
                )
            )
    return out


def registry_of(config: Config, devices: list[Device]) -> DeviceRegistry:
    registry = DeviceRegistry(devices)
    for room, aliases in config.rooms.items():
        registry.add_room(room, aliases)
    for device in devices:
        if device.room and device.room not in config.rooms:
            registry.add_room(device.room)
    for floor in config.floor_specs:
        registry.add_floor(floor)
    return registry


def home_devices(config: Config) -> list[Device]:
    registry, _ = home_registry(config, None)
    return sorted(registry.devices(), key=lambda d: d.id)


def requests() -> list[tuple[str, str | None]]:
    out = []
    for path in SENTENCES:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out.append((row["text"], row.get("room")))
    return out


def accuracy() -> dict[str, dict[str, float]]:
    """The eval's figures per slice, on the big home itself."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        argv = ["--config", str(HOME), "eval", *map(str, SENTENCES), "--holdout"]
        argv += ["--no-timing", "--errors", "0", "--json", str(report)]
        run(build_parser().parse_args(argv), None, io.StringIO(), io.StringIO())
        figures = json.loads(report.read_text(encoding="utf-8"))
    out = {}
    for name, s in figures["slices"].items():
        e = s["entities"]
        out[name] = {
            "rows": s["rows"],
            "intent": s["intents"]["rate"],
            "entities": e["entity_accuracy"],
            "values": e["value_accuracy"],
            "fully_right": e["fully_right"],
            "rows_fully_right": e["rows_fully_right_rate"],
        }
    return out


def latencies(config: Config, homes: dict[int, list[Device]], runs: int) -> dict[int, list[float]]:
    """Per query, the best of ``runs`` passes, the homes' passes interleaved, so that
    the noise of a shared machine falls on every size alike."""
    from mnemolis.understand import Understander

    understanders = {n: Understander(config, registry_of(config, d)) for n, d in homes.items()}
    texts = requests()
    best: dict[int, list[float]] = {n: [math.inf] * len(texts) for n in homes}
    for understander in understanders.values():
        for text, _ in texts[:100]:
            understander.understand(text)
    for _ in range(runs):
        for n, understander in understanders.items():
            for i, (text, room) in enumerate(texts):
                t0 = time.perf_counter()
                understander.understand(text, room=room)
                best[n][i] = min(best[n][i], (time.perf_counter() - t0) * 1000)
    return best


STARTUP = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from bench.big_home import HOME, home_devices, registry_of, scaled
from mnemolis.config import load_config
from mnemolis.understand import Understander
config = load_config(HOME)
devices = scaled(home_devices(config), {size}, {seed})
t1 = time.perf_counter()
understander = Understander(config, registry_of(config, devices))
understander.understand("turn on the kitchen island")
t2 = time.perf_counter()
print(t2 - t0, t2 - t1 + (t1 - t0))
"""


def startups(sizes: list[int], seed: int, runs: int) -> dict[int, list[float]]:
    """Wall time of a fresh process (imports, configuration, home, compiled
    understanding) for each size, the sizes interleaved run by run."""
    times: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(runs):
        for n in sizes:
            code = STARTUP.format(root=str(ROOT), size=n, seed=seed)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
            times[n].append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="latency passes over the sentences")
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--sizes", default="100,2000")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    figures = accuracy()
    print("## The big home (`python bench/big_home.py`)\n")
    print("| slice | rows | intent | entities | values | fully right: parts | rows |")
    print("|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        print(
            f"| {name} | {f['rows']} | {f['intent']:.3f} | {f['entities']:.3f} | "
            f"{f['values']:.3f} | {f['fully_right']:.3f} | {f['rows_fully_right']:.3f} |"
        )

    config = load_config(HOME)
    base = home_devices(config)
    homes = {n: scaled(base, n, args.seed) for n in sizes}
    times = latencies(config, homes, args.runs)
    boots = startups(sizes, args.seed, args.startup_runs)
    rows = [
        (n, percentile(times[n], 50), percentile(times[n], 99), statistics.median(boots[n]))
        for n in sizes
    ]
    passes = (
        f"{len(requests())} requests, best of {args.runs} interleaved passes (seed {args.seed})"
    )
    print(f"\nUnderstanding over {passes}:\n")
    print("| entities | p50 ms | p99 ms | start-up s (median) |")
    print("|---|---|---|---|")
    for size, p50, p99, boot in rows:
        print(f"| {size:,} | {p50:.3f} | {p99:.3f} | {boot:.2f} |")
    if len(rows) >= 2:
        small, large = rows[0], rows[-1]
        print(
            f"\nRatios {large[0]:,}/{small[0]:,}: p50 {large[1] / small[1]:.2f}x, "
            f"p99 {large[2] / small[2]:.2f}x (target <= 2x), start-up "
            f"{large[3] / small[3]:.2f}x (target <= 1.5x)."
        )


if __name__ == "__main__":
    main()
