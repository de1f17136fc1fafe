"""Understanding over HWU64, this tree beside another git ref, alternating in one run.

    python bench/parse_against.py --against main [--rounds 2] [--runs 3] [--limit N]

Each round runs one process per tree (this one, then the ref's, from `git
archive`), each over the same HWU64 texts: per query the best of ``--runs``
passes, as wall time and as the thread's CPU time (what neighbours on a
shared machine disturb least). Prints mean, p50, p99 and max per tree (the
median over rounds) and the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HWU64 = ROOT.parent / "shared" / "data" / "hwu64.jsonl"
if not DEFAULT_HWU64.is_file():
    DEFAULT_HWU64 = Path("/work/shared/data/hwu64.jsonl")

WORKER = """
import gc, json, sys, time
sys.path.insert(0, {tree!r})
from mnemolis.config import load_config
from mnemolis.understand import Understander
texts = json.loads(sys.stdin.read())
u = Understander(load_config(None))
for t in texts[:200]:
    u.understand(t)
wall = [1e9] * len(texts)
cpu = [1e9] * len(texts)
gc.disable()
for _ in range({runs}):
    for i, t in enumerate(texts):
        w, c = time.perf_counter(), time.thread_time()
        u.understand(t)
        cpu[i] = min(cpu[i], (time.thread_time() - c) * 1000)
        wall[i] = min(wall[i], (time.perf_counter() - w) * 1000)
print(json.dumps({{"wall": wall, "cpu": cpu}}))
"""


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]

    return {"mean": statistics.mean(ms), "p50": pct(50), "p99": pct(99), "max": ordered[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="a git ref")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3, help="passes per query (the best kept)")
    parser.add_argument("--limit", type=int, help="every n-th text so that N remain")
    parser.add_argument("--hwu64", type=Path, default=DEFAULT_HWU64)
    args = parser.parse_args()
    lines = args.hwu64.read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    if args.limit:
        texts = texts[:: max(1, len(texts) // args.limit)][: args.limit]
    with tempfile.TemporaryDirectory(prefix="mnemolis-against-") as scratch:
        other = Path(scratch)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.against], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(other)], input=archive.stdout, check=True)
        trees = {"this tree": ROOT, args.against: other}
        rounds: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                code = WORKER.format(tree=str(tree), runs=args.runs)
                done = subprocess.run(
                    [sys.executable, "-c", code], input=json.dumps(texts), cwd=scratch,
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                out = json.loads(done.stdout)
                rounds[name].append({k: figures(v) for k, v in out.items()})
    print(f"HWU64, {len(texts)} texts, best of {args.runs} per query, {args.rounds} rounds")
    print("| tree | clock | mean ms | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|")
    med: dict[str, dict[str, dict[str, float]]] = {}
    for name, runs in rounds.items():
        med[name] = {}
        for clock in ("wall", "cpu"):
            m = {k: statistics.median(r[clock][k] for r in runs) for k in runs[0][clock]}
            med[name][clock] = m
            print(f"| {name} | {clock} | {m['mean']:.3f} | {m['p50']:.3f} | "
                  f"{m['p99']:.3f} | {m['max']:.2f} |")  # fmt: skip
    for clock in ("wall", "cpu"):
        a, b = med["this tree"][clock], med[args.against][clock]
        print(f"{clock}: this tree / {args.against}: mean {a['mean'] / b['mean']:.2f}, "
              f"p50 {a['p50'] / b['p50']:.2f}, p99 {a['p99'] / b['p99']:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
