"""HWU64 routing over the five original classes, from a `mnemolis eval --dump` file.

`mnemolis eval` scores every source it serves; the figure first reported on
HWU64 was macro-F1 over {mqtt, weather, kiwix, clock, null}, before music,
lists, timers and replies were served. This folds every newer source into
null (on both sides: a request HWU64 maps to music is "not one of the four"),
so that figure stays comparable, and prints it with each newer source's own F1,
for all folds, the tuning folds and the held-out ones (5 and 10).

    .venv/bin/mnemolis eval ../shared/data/hwu64.jsonl --no-timing --errors 0 --dump /tmp/hwu.jsonl
    .venv/bin/python bench/hwu64_five.py /tmp/hwu.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FIVE = ("mqtt", "weather", "kiwix", "clock", "null")
NEWER = ("timers", "music", "lists", "routines")
HELD_OUT = (5, 10)


@dataclass
class Row:
    """One HWU64 text: the source expected and the one the plan's first part took."""

    fold: int
    expected: str
    predicted: str


def read(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        sources = [p["source"] for p in r["predicted"]["parts"] if p["source"]]
        expected = r["expected"]["sources"][0] or "null"
        rows.append(Row(int(r["fold"]), expected, sources[0] if sources else "null"))
    return rows


def f1(rows: list[Row], fold_in: Callable[[str], str]) -> dict[str, float]:
    """F1 per class, each source first passed through ``fold_in``."""
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for r in rows:
        e, p = fold_in(r.expected), fold_in(r.predicted)
        if e == p:
            tp[e] += 1
        else:
            fp[p] += 1
            fn[e] += 1
    out = {}
    for c in set(tp) | set(fp) | set(fn):
        precision = tp[c] / (tp[c] + fp[c]) if tp[c] + fp[c] else 0.0
        recall = tp[c] / (tp[c] + fn[c]) if tp[c] + fn[c] else 0.0
        out[c] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="the JSONL of mnemolis eval --dump")
    args = parser.parse_args()
    rows = read(args.dump)
    slices = {
        "all folds": rows,
        "tuning (1-4, 6-9)": [r for r in rows if r.fold not in HELD_OUT],
        "held out (5, 10)": [r for r in rows if r.fold in HELD_OUT],
    }
    print("| slice | rows | five-class macro-F1 | " + " | ".join(FIVE + NEWER) + " |")
    print("|---" * (3 + len(FIVE) + len(NEWER)) + "|")
    for name, part in slices.items():
        five = f1(part, lambda s: s if s in FIVE else "null")
        own = f1(part, lambda s: s)
        macro = sum(five.get(c, 0.0) for c in FIVE) / len(FIVE)
        cells = [f"{five.get(c, 0.0):.3f}" for c in FIVE]
        cells += [f"{own.get(c, 0.0):.3f}" for c in NEWER]
        print(f"| {name} | {len(part):,} | {macro:.3f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
