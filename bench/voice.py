"""Voice: end of speech to answer text (check + recognise + answer), per request, and the
peak memory of the process, over `mnemolis demo --wav` (the demo home, in process).

    python bench/voice.py [--requests 12]

Requests are rendered by espeak-ng. Until the project's recogniser (voice/recognise) is
merged, the recogniser is pocketsphinx over a grammar of the rendered requests
(tests/support_voice.GrammarRecogniser): its time is a lower bound of the real one's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import resource
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mnemolis.cli.main import main  # noqa: E402
from mnemolis.voice import engines  # noqa: E402
from tests.support_voice import GrammarRecogniser, render  # noqa: E402

REQUESTS = [
    "turn off the kitchen light",
    "turn on the bedroom light",
    "open the garage door",
    "no",
    "turn off the kitchen light",
    "turn on the bedroom light",
]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run(count: int) -> None:
    recogniser = GrammarRecogniser(tuple(sorted(set(REQUESTS))))
    engines.load_recogniser = lambda *_args: recogniser  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as folder:
        files = [
            str(render(REQUESTS[i % len(REQUESTS)], Path(folder) / f"{i}.wav"))
            for i in range(count)
        ]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["demo", "--cache", str(Path(folder) / "cache"), "--json", "--wav", *files])
    rows = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    stages = ("check", "recognise", "answer")
    total = [sum(r["heard"]["ms"].get(s, 0.0) for s in stages) for r in rows]
    print(f"{len(rows)} requests, heard right: "
          f"{sum(r['heard']['text'] == REQUESTS[i % len(REQUESTS)] for i, r in enumerate(rows))}")
    for stage in stages:
        values = [r["heard"]["ms"].get(stage, 0.0) for r in rows]
        p50, p95 = statistics.median(values), percentile(values, 95)
        print(f"{stage:>10}: p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    print(f"end of speech to answer text: p50 {statistics.median(total):.1f} ms, "
          f"p95 {percentile(total, 95):.1f} ms")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process: {rss:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=12)
    run(parser.parse_args().requests)
