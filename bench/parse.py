"""Benchmark understanding: latency per query, start-up time and peak memory.

    python bench/parse.py [--hwu64 PATH] [--runs N] [--startup-runs N]

Prints a table. Latency is measured in this warm process over the HWU64
texts (when the file is present) and over the default intents' examples;
start-up is the wall time of `mnemolis parse "hello"` in a fresh process
(median of several runs); peak RSS is that of a fresh process that parses
every text. Targets: p50 <= 0.3 ms, p99 <= 2 ms, start-up <= 1.2 s,
peak RSS <= 150 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import load_config  # noqa: E402
from mnemolis.evaluation.external import where_to_get  # noqa: E402
from mnemolis.understand import Understander  # noqa: E402

DEFAULT_HWU64 = ROOT.parent / "shared" / "data" / "hwu64.jsonl"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def latencies(understander: Understander, texts: list[str], runs: int) -> list[float]:
    for text in texts[:200]:  # warm caches
        understander.understand(text)
    out = []
    for _ in range(runs):
        for text in texts:
            t0 = time.perf_counter()
            understander.understand(text)
            out.append((time.perf_counter() - t0) * 1000)
    return out


def startup(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "mnemolis", "parse", "hello"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - t0)
    return times


def peak_rss_mb(texts: list[str]) -> float:
    """Peak RSS of a fresh process that loads everything and parses every text."""
    code = (
        "import sys, resource\n"
        "from mnemolis.config import load_config\n"
        "from mnemolis.understand import Understander\n"
        "u = Understander(load_config())\n"
        "for line in sys.stdin: u.understand(line)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        input="\n".join(texts),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(out.strip()) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hwu64", type=Path, default=DEFAULT_HWU64)
    parser.add_argument("--runs", type=int, default=3, help="passes over each text set")
    parser.add_argument("--startup-runs", type=int, default=7)
    args = parser.parse_args()

    config = load_config(ROOT)
    t0 = time.perf_counter()
    understander = Understander(config)
    build_s = time.perf_counter() - t0

    sets: dict[str, list[str]] = {
        "intent examples": [ex.text for i in config.intents.values() for ex in i.examples]
    }
    if args.hwu64.exists():
        with args.hwu64.open() as f:
            sets["HWU64 texts"] = [json.loads(line)["text"] for line in f if line.strip()]
    else:
        print(f"no HWU64 at {args.hwu64}, skipped: {where_to_get(args.hwu64)}", file=sys.stderr)

    rows = []
    for name, texts in sets.items():
        ms = latencies(understander, texts, args.runs)
        rows.append(
            (
                f"{name} ({len(texts)})",
                statistics.median(ms),
                percentile(ms, 95),
                percentile(ms, 99),
                max(ms),
            )
        )
    starts = startup(args.startup_runs)
    all_texts = [t for texts in sets.values() for t in texts]
    rss = peak_rss_mb(all_texts)

    print("Mnemolis understanding benchmark")
    print(f"python {sys.version.split()[0]}, compile in this process {build_s * 1000:.0f} ms\n")
    print(f"{'set':<28} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, p50, p95, p99, worst in rows:
        print(f"{name:<28} {p50:>8.3f} {p95:>8.3f} {p99:>8.3f} {worst:>8.2f}")
    print()
    print(f"{'measure':<40} {'value':>10} {'target':>10}")
    start_s = statistics.median(starts)
    print(f"{'start-up: mnemolis parse hello (median)':<40} {start_s:>9.2f}s {'<= 1.2s':>10}")
    print(f"{'peak RSS, fresh process, all texts':<40} {rss:>8.0f}MB {'<= 150MB':>10}")
    own_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'peak RSS, this process':<40} {own_mb:>8.0f}MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
