"""Every plan understanding gives, dumped to JSON: a speed change must leave it identical.

    python bench/plans_snapshot.py OUT.json [--hwu64 PATH]
    diff <(python bench/plans_snapshot.py /dev/stdout) before.json

Parses every text of tests/data/*.jsonl (default config), of every home's and
owner domain's tests/data/<home>/sentences/*.jsonl (``--config tests/data/<home>``,
its discovery loaded as `mnemolis eval` loads it, each row's ``room`` passed) and
of HWU64 (default config), one fresh call each with no context, and writes
each whole plan (steps with intent, slots, provenance, schedule; clarify;
notes) with the entity ids its device slots resolve to.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import load_config  # noqa: E402
from mnemolis.evaluation.discovered import home_registry  # noqa: E402
from mnemolis.evaluation.entities import entity_ids  # noqa: E402
from mnemolis.evaluation.external import where_to_get  # noqa: E402
from mnemolis.understand import Understander  # noqa: E402

DEFAULT_HWU64 = ROOT.parent / "shared" / "data" / "hwu64.jsonl"
if not DEFAULT_HWU64.is_file():
    DEFAULT_HWU64 = Path("/work/shared/data/hwu64.jsonl")


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def snapshot(understander: Understander, files: list[Path]) -> dict[str, list[Any]]:
    ids_of = entity_ids(understander.registry)
    out: dict[str, list[Any]] = {}
    for path in files:
        dumped = []
        for row in rows(path):
            plan = understander.understand(row["text"], room=row.get("room"))
            entities = [sorted(ids_of(p.slots.get("device"))) for p in plan.parts()]
            dumped.append({"plan": plan.to_dict(), "entities": entities})
        out[str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name)] = dumped
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--hwu64", default=str(DEFAULT_HWU64))
    args = parser.parse_args()
    default = Understander(load_config())
    result = snapshot(default, sorted((ROOT / "tests" / "data").glob("*.jsonl")))
    hwu64 = Path(args.hwu64)
    if hwu64.is_file():
        result.update(snapshot(default, [hwu64]))
    else:
        print(f"no HWU64 at {hwu64}, skipped: {where_to_get(hwu64)}", file=sys.stderr)
    for folder in sorted((ROOT / "tests" / "data").glob("*/sentences")):
        home = load_config(folder.parent)
        registry, _ = home_registry(home, None)
        result.update(snapshot(Understander(home, registry), sorted(folder.glob("*.jsonl"))))
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, ensure_ascii=False, indent=0, sort_keys=True)
        handle.write("\n")
    print(f"{sum(len(v) for v in result.values())} plans in {len(result)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
