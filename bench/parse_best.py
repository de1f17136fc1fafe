"""Understanding latency over HWU64, per query the best of several passes (warm process).

    python bench/parse_best.py [--hwu64 PATH] [--runs N]

On a shared machine a query's slowest pass is mostly someone else's work;
its best pass is its own. Prints p50 / p95 / p99 / max of the per-query bests.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import load_config  # noqa: E402
from mnemolis.evaluation.external import where_to_get  # noqa: E402
from mnemolis.understand import Understander  # noqa: E402

DEFAULT_HWU64 = ROOT.parent / "shared" / "data" / "hwu64.jsonl"
if not DEFAULT_HWU64.is_file():
    DEFAULT_HWU64 = Path("/work/shared/data/hwu64.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hwu64", type=Path, default=DEFAULT_HWU64)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.hwu64.is_file():
        sys.exit(f"no HWU64 at {args.hwu64}: {where_to_get(args.hwu64)}")
    lines = args.hwu64.read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    understander = Understander(load_config())
    for text in texts[:200]:
        understander.understand(text)
    best = [math.inf] * len(texts)
    gc.disable()
    for _ in range(args.runs):
        for i, text in enumerate(texts):
            t0 = time.perf_counter()
            understander.understand(text)
            best[i] = min(best[i], (time.perf_counter() - t0) * 1000)
    gc.enable()
    ordered = sorted(best)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]

    print(
        f"HWU64 ({len(texts)} texts), best of {args.runs} per query: p50 {pct(50):.3f} "
        f"p95 {pct(95):.3f} p99 {pct(99):.3f} max {ordered[-1]:.2f} ms"
    )


if __name__ == "__main__":
    main()
