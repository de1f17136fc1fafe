"""Side by side on HWU64: Mnemolis's router and Home Assistant's matcher (hassil).

    .venv/bin/python bench/compare_hassil.py [--data ../shared/data/hwu64.jsonl] [--limit N]

Home Assistant's side runs in its own venv (bench/.venv-hassil, created on
first use with `pip install hassil home-assistant-intents`) through
bench/hassil_worker.py: `recognize_best` with the English intents, a `name`
list holding the demo home's devices and aliases (sources/mqtt.yaml) plus
generous extra names, and an `area` list with its rooms plus extra rooms
(bench/hassil.yaml). Its intents are mapped to sources by the same file;
anything else, or no match, is out of scope. Both systems are timed per
query around the matching call only, after a warm-up, each in its own
process, and scored with the same macro-F1 over {mqtt, weather, kiwix,
clock, null} as `mnemolis eval`. Prints one table; exits 3 when hassil could
not be installed (after printing the Mnemolis row).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mnemolis.config import Config, load_config
from mnemolis.evaluation.command import evaluate_rows, make_keyer, select_rows
from mnemolis.evaluation.datasets import DataError, read_dataset
from mnemolis.evaluation.metrics import CLASSES, Confusion, class_of, percentile
from mnemolis.understand import Understander

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "hwu64.jsonl"
VENV = ROOT / "bench" / ".venv-hassil"
WORKER = ROOT / "bench" / "hassil_worker.py"
SETTINGS = ROOT / "bench" / "hassil.yaml"


@dataclass
class SystemRun:
    """One system's answers on the sentences, in order."""

    name: str
    sources: list[str | None]
    ms: list[float]
    load_ms: float
    notes: list[str] = field(default_factory=list)


def ensure_venv(venv: Path, packages: list[str]) -> str | None:
    """Create or reuse the benchmark venv; return why it failed, or None."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import hassil, home_assistant_intents"]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return None
    print(f"creating {venv} with {' '.join(packages)} ...", file=sys.stderr)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", *packages],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return f"`{' '.join(step[-3:])}` exited {done.returncode}: " + " / ".join(tail)
    return None


def slot_lists(config: Config, settings: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """Device names and aliases with their HA domain, plus extras; rooms plus extras."""
    domains: dict[str, str] = settings["domains"]
    names: dict[str, str] = {}
    for device in config.devices:
        for name in [device.name, *device.aliases]:
            names.setdefault(name.lower(), domains.get(device.type, device.type))
    for dtype, extra in settings["extra_names"].items():
        for name in extra:
            names.setdefault(str(name).lower(), domains.get(dtype, dtype))
    areas = {room.lower() for room in config.rooms}
    areas |= {a.lower() for aliases in config.rooms.values() for a in aliases}
    areas |= {str(a).lower() for a in settings["extra_areas"]}
    return [[n, d] for n, d in sorted(names.items())], sorted(areas)


def run_hassil(
    texts: list[str], config: Config, settings: dict[str, Any], venv: Path
) -> SystemRun | str:
    failure = ensure_venv(venv, settings["packages"])
    if failure:
        return failure
    names, areas = slot_lists(config, settings)
    request = {"language": settings["language"], "names": names, "areas": areas, "texts": texts}
    done = subprocess.run(
        [str(venv / "bin" / "python"), str(WORKER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"the hassil worker exited {done.returncode}: {done.stderr.strip()[-300:]}"
    answer = json.loads(done.stdout)
    by_intent = {i: s for s, intents in settings["sources"].items() for i in intents}
    versions = answer["versions"]
    return SystemRun(
        name=f"hassil {versions['hassil']} + intents {versions['home-assistant-intents']}",
        sources=[by_intent.get(r["intent"]) if r["intent"] else None for r in answer["results"]],
        ms=[r["ms"] for r in answer["results"]],
        load_ms=answer["load_ms"],
        notes=[f"{len(names)} names, {len(areas)} areas"],
    )


def run_mnemolis(rows: list[Any]) -> SystemRun:
    t0 = time.perf_counter()
    config = load_config(ROOT)
    understander = Understander(config)
    understander.understand("turn on the kitchen light")
    load_ms = (time.perf_counter() - t0) * 1000
    results = evaluate_rows(rows, understander, make_keyer(config, understander))
    return SystemRun(
        name="mnemolis",
        sources=[r.checks[0].predicted_source for r in results],
        ms=[r.ms for r in results],
        load_ms=load_ms,
    )


def table(runs: list[SystemRun], expected: list[str | None]) -> list[str]:
    head = f"{'system':<42} {'macro-F1':>8} " + " ".join(f"{c:>7}" for c in CLASSES)
    head += f" {'mean ms':>8} {'p50 ms':>8} {'p99 ms':>8} {'start ms':>8}"
    lines = [head, "-" * len(head)]
    for run in runs:
        confusion = Confusion()
        for e, p in zip(expected, run.sources, strict=True):
            confusion.add(class_of(e), class_of(p))
        f1s = " ".join(f"{s.f1:>7.3f}" for s in confusion.scores())
        lines.append(
            f"{run.name:<42} {confusion.macro_f1():>8.3f} {f1s} {sum(run.ms) / len(run.ms):>8.3f} "
            f"{percentile(run.ms, 50):>8.3f} "
            f"{percentile(run.ms, 99):>8.3f} {run.load_ms:>8.0f}"
        )
    if len(runs) == 2:
        base, other = runs
        p50 = percentile(other.ms, 50) / percentile(base.ms, 50)
        p99 = percentile(other.ms, 99) / percentile(base.ms, 99)
        mean = (sum(other.ms) / len(other.ms)) / (sum(base.ms) / len(base.ms))
        lines.append(
            f"latency ratio {other.name.split()[0]} / {base.name}: mean {mean:.1f}x, "
            f"p50 {p50:.1f}x, p99 {p99:.1f}x"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="HWU64 JSON lines")
    parser.add_argument("--limit", type=int, help="N rows spread over the file")
    parser.add_argument("--venv", type=Path, default=VENV, help="the venv for hassil")
    args = parser.parse_args()
    config = load_config(ROOT)
    settings = yaml.safe_load(SETTINGS.read_text(encoding="utf-8"))
    try:
        dataset = read_dataset(args.data, config, "hwu64")
    except DataError as exc:
        print(f"compare_hassil: {exc}", file=sys.stderr)
        return 2
    selection = argparse.Namespace(folds=None, exclude_folds=None, holdout=False, limit=args.limit)
    rows = select_rows(dataset, selection)
    texts = [r.text for r in rows]
    expected = [r.parts[0].source for r in rows]
    runs = [run_mnemolis(rows)]
    hassil = run_hassil(texts, config, settings, args.venv.resolve())
    print(f"HWU64: {len(rows)} of {len(dataset.rows)} rows from {args.data}")
    if isinstance(hassil, str):
        print("\n".join(table(runs, expected)))
        print(f"hassil not measured: {hassil}")
        return 3
    runs.append(hassil)
    print(f"hassil slot lists: {'; '.join(hassil.notes)}")
    print("F1 per class; latency per query (p50/p99), start-up including the first query")
    print("\n".join(table(runs, expected)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
