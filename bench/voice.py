"""Voice: end of speech to answer text (check + recognise + answer), per stage, and the
peak memory of `mnemolis listen --wav` over the big home, with the project's recogniser.

    python bench/voice.py [--home big|demo] [--requests 40] [--repeat 1]

One `mnemolis --config HOME listen --wav FILE... --json` process hears every file
(the recogniser loaded once); a first request warms it up and is not counted (its
"recognise" waits for the model). The files are the home's held-out rows rendered by
espeak-ng and converted by sox exactly as `bench/recogniser.py` renders them (cached
in its cache). The peak RSS is the child's (`getrusage(RUSAGE_CHILDREN)`), so the
benchmark's own imports do not count. The big home's devices are not there: a command
waits up to 2 s in "answer" for an echo that never comes, so the text heard is shown
apart. ``--home demo`` speaks the demo home's six
requests to `mnemolis demo --wav` instead. The machine is shared: note `uptime`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from recogniser import HOMES, held_out_rows, render  # type: ignore[import-not-found]  # noqa: E402

DEMO = [
    "turn off the kitchen light",
    "turn on the bedroom light",
    "open the garage door",
    "no",
]
STAGES = ("check", "recognise", "answer")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def texts_for(home: str, count: int) -> list[str]:
    if home == "demo":
        return [DEMO[i % len(DEMO)] for i in range(count)]
    return [r.text for r in held_out_rows(HOMES[home])][:count]


def run(home: str, count: int, repeat: int, cache: Path) -> None:
    texts = texts_for(home, count) * repeat
    files = [str(render(t, i, cache)) for i, t in enumerate(texts)]
    warm = str(render(texts[0], 0, cache))
    mnemolis = [sys.executable, "-m", "mnemolis"]
    with tempfile.TemporaryDirectory() as state:
        env = {**os.environ, "MNEMOLIS_STATE": os.environ.get("MNEMOLIS_STATE", state)}
        if home == "demo":
            cmd = [*mnemolis, "demo", "--cache", str(Path(state) / "c"), "--json", "--wav"]
        else:
            cmd = [*mnemolis, "--config", str(HOMES[home]), "listen", "--json", "--wav"]
        done = subprocess.run(
            [*cmd, warm, *files], capture_output=True, text=True, env=env, cwd=ROOT
        )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(rows) != len(files) + 1:
        sys.exit(f"{len(rows)} answers for {len(files) + 1} files:\n{done.stderr[-2000:]}")
    rows = rows[1:]
    right = sum(r["heard"]["text"] == t.lower() for r, t in zip(rows, texts, strict=True))
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"home {home}: {len(rows)} requests ({len(set(texts))} texts), heard exactly: {right}")
    print(f"load: {load}")
    print("| stage | p50 ms | p95 ms |\n|---|---|---|")
    for stage in STAGES:
        values = [r["heard"]["ms"].get(stage, 0.0) for r in rows]
        print(f"| {stage} | {statistics.median(values):.0f} | {percentile(values, 95):.0f} |")
    heard = [sum(r["heard"]["ms"].get(s, 0.0) for s in STAGES[:2]) for r in rows]
    print(
        f"| end of speech to text heard (check + recognise) | {statistics.median(heard):.0f} "
        f"| {percentile(heard, 95):.0f} |"
    )
    total = [sum(r["heard"]["ms"].get(s, 0.0) for s in STAGES) for r in rows]
    print(
        f"| end of speech to answer text | {statistics.median(total):.0f} "
        f"| {percentile(total, 95):.0f} |"
    )
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the listen process: {rss:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", default="big", choices=[*HOMES, "demo"])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1, help="hear the files this many times")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "mnemolis-voice-bench"))
    a = parser.parse_args()
    run(a.home, a.requests, a.repeat, Path(a.cache))
