"""Voice in real time: requests played to the pipeline at the pace a microphone brings
them, and the time from the end of speech to the text heard and to the answer text,
decoding the whole request at its end (``batch``) and while it is said (``stream``).

    python bench/voice_live.py [--home big] [--requests 40] [--modes batch,stream]
                               [--echo | --no-echo]

Each mode runs in its own child process (the peak RSS is the child's own), which does
what `mnemolis --config HOME listen` does with a microphone after the wake word:
`Assistant.running`, `load_kit`, and `VoicePipeline.converse(source, wake=False)`, the
source yielding 30 ms chunks on a real-time clock (`PacedSource`, in place of
`inputs.CommandSource`). Every request is the home's held-out row rendered by espeak-ng
as `bench/recogniser.py` renders it (cached), with 0.6 s of quiet room noise before it
and 2.5 s after (the answer comes in that gap). The first request warms up and is not
counted.

End of speech is when the end-of-speech detector's last window was recorded (the
clock's time of the stream's second `SpeechEnded.at_s`), so a pipeline that falls
behind the microphone is charged for it; "decided" is when it was seen. The text heard
is when the assistant was asked, the answer text when it answered. With ``--echo``
(the default) a Mosquitto and a simulator of the home's own (YAML) devices answer the
commands with their state echo, as the devices would; without it a command waits for
an echo that never comes (up to 2 s). The machine is shared: note `uptime`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from recogniser import HOMES, render  # type: ignore[import-not-found]  # noqa: E402
from voice import percentile, texts_for  # type: ignore[import-not-found]  # noqa: E402

from mnemolis.config import load_config  # noqa: E402
from mnemolis.core.heard import Heard  # noqa: E402
from mnemolis.core.origin import Origin  # noqa: E402
from mnemolis.runtime.answer import Answer  # noqa: E402
from mnemolis.voice.audio import chunks  # noqa: E402
from mnemolis.voice.events import Event, SpeechEnded  # noqa: E402
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio  # noqa: E402
from mnemolis.voice.wav import read_wav  # noqa: E402

CHUNK_MS = 30
#: whole: decoded at the end of speech, from when listening started (before this
#: branch); batch: decoded at the end, from `end_of_speech.preroll_s` before speech
#: started; stream: decoded while said, from the same pre-roll; process: streamed to a
#: decoder in a child process (the recogniser's ``process: true``)
MODES = ("whole", "batch", "stream", "process")
LEAD_S = 0.6
GAP_S = 2.5


def quiet(seconds: float, seed: int) -> bytes:
    """A quiet room (the renders' own silence is digital: no microphone gives that)."""
    rng = np.random.default_rng(seed)
    return rng.normal(0, 4, int(PIPELINE_FORMAT.rate * seconds)).astype("<i2").tobytes()


class PacedSource:
    """`stages.AudioSource`: the requests one after another, each 30 ms chunk handed over
    when its last sample would have been recorded."""

    def __init__(self, audios: list[Audio]) -> None:
        pieces: list[bytes] = []
        self.windows: list[tuple[float, float]] = []  # each request's stream seconds
        at = 0.0
        for i, audio in enumerate(audios):
            pieces += [quiet(LEAD_S, i), audio.pcm, quiet(GAP_S, 1000 + i)]
            self.windows.append((at, at + LEAD_S + audio.seconds + GAP_S))
            at = self.windows[-1][1]
        self.audio = Audio(b"".join(pieces))
        self.t0 = 0.0

    async def chunks(self) -> AsyncIterator[Audio]:
        self.t0 = time.perf_counter()
        for k, chunk in enumerate(chunks(self.audio, CHUNK_MS)):
            due = self.t0 + (k + 1) * CHUNK_MS / 1000
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            yield chunk

    async def close(self) -> None:
        return None

    def request_at(self, at_s: float) -> int:
        return next((i for i, (a, b) in enumerate(self.windows) if a <= at_s < b), -1)


@dataclass
class Row:
    """One end of speech and what followed it (seconds on the benchmark's clock)."""

    request: int
    at_s: float
    end_of_speech: float
    decided: float
    heard_at: float | None = None
    answered_at: float | None = None
    text: str = ""
    problem: str | None = None
    ms: dict[str, float] = field(default_factory=dict)


class Timed:
    """The assistant, timed: asked (the text heard) and answered (the answer text)."""

    def __init__(self, assistant: Any) -> None:
        self.assistant = assistant
        self.row: Row | None = None

    async def ask(
        self,
        text: str,
        session: str = "voice",
        origin: Origin | None = None,
        heard: Heard | None = None,
    ) -> Answer:
        if self.row is not None:
            self.row.heard_at = time.perf_counter()
        answer: Answer = await self.assistant.ask(text, session, origin, heard=heard)
        if self.row is not None:
            self.row.answered_at = time.perf_counter()
        return answer


async def child(home: str, mode: str, files: list[str]) -> None:
    from mnemolis.cli.main import source_extras
    from mnemolis.core.state_dir import state_dir
    from mnemolis.runtime.assistant import Assistant
    from mnemolis.voice.engines import load_kit
    from mnemolis.voice.outputs import NullSink
    from mnemolis.voice.pipeline import Turn, VoicePipeline

    config = load_config(HOMES[home])
    if mode == "process":
        voice = dict(config.sources.get("voice") or {})
        voice["recogniser"] = {**(voice.get("recogniser") or {}), "process": True}
        config.sources["voice"] = voice
    audios = [read_wav(Path(f), 60).audio for f in files]
    source = PacedSource(audios)
    rows: list[Row] = []
    async with Assistant.running(config, one_shot=True, extras=source_extras()) as assistant:
        kit = await load_kit(config, state_dir())
        timed = Timed(assistant)
        origin = Origin(front_end="listen", session="voice")
        pipeline = VoicePipeline(
            timed,
            kit,
            origin,
            NullSink(),
            speak=False,
            stream=mode in ("stream", "process"),
            keep_preroll=mode == "whole",
        )

        def event(happened: Event) -> None:
            if isinstance(happened, SpeechEnded):
                at = happened.at_s
                timed.row = Row(source.request_at(at), at, source.t0 + at, time.perf_counter())

        def turn(done: Turn) -> None:
            row = timed.row
            if row is not None:
                row.text, row.problem, row.ms = done.heard.text, done.problem, done.heard.ms
                rows.append(row)
            timed.row = None

        await pipeline.converse(source, turn, event, wake=False, live=False)
        children = children_peak_mb()  # the decoder's process, while it still runs
    for row in rows:
        print(json.dumps(asdict(row)), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_rss_mb": peak, "children_peak_mb": children}), flush=True)


def children_peak_mb() -> float:
    """The peak RSS of this process's children still running, summed (VmHWM)."""
    total = 0.0
    for tasks in Path("/proc/self/task").iterdir():
        for pid in (tasks / "children").read_text().split():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
    return total


def figures(rows: list[dict[str, Any]], texts: list[str]) -> dict[str, Any]:
    first: dict[int, dict[str, Any]] = {}
    for r in rows:  # the first end of speech of each request; the first request warms up
        if r["request"] > 0:
            first.setdefault(r["request"], r)
    counted = list(first.values())
    heard = [(r["heard_at"] - r["end_of_speech"]) * 1000 for r in counted if r["heard_at"]]
    answer = [(r["answered_at"] - r["end_of_speech"]) * 1000 for r in counted if r["answered_at"]]
    lag = [(r["decided"] - r["end_of_speech"]) * 1000 for r in counted]
    exact = {r["request"] for r in counted if r["text"] == texts[r["request"]].lower()}
    streamed = [r["ms"].get("streamed", 0.0) for r in counted]

    def p(values: list[float]) -> str:
        if not values:
            return "-"
        return f"{statistics.median(values):.0f} / {percentile(values, 95):.0f}"

    return {
        "ends": len(counted),
        "requests": len(texts) - 1,
        "exact": len(exact),
        "decided": p(lag),
        "heard": p(heard),
        "answer": p(answer),
        "streamed": p(streamed),
    }


def run(args: argparse.Namespace) -> None:
    texts = texts_for(args.home, args.requests)
    cache = Path(args.cache)
    texts = [texts[0], *texts]  # the first, again, warms up
    files = [str(render(t, i, cache)) for i, t in enumerate(texts)]
    broker = sim = None
    env = {**os.environ}
    if args.echo:
        from mnemolis.demo.mosquitto import Mosquitto
        from mnemolis.demo.simulator import Simulator

        broker = Mosquitto().start()
        sim = Simulator(broker.host, broker.port, load_config(HOMES[args.home]).devices).start()
        env["MNEMOLIS_MQTT_URL"] = broker.url
    print(f"home {args.home}: {len(texts) - 1} requests at real-time pace, echo: {args.echo}")
    print(
        "| mode | load before | load after | ends of speech | heard exactly | decided | "
        "end of speech to text heard p50 / p95 ms | to answer text p50 / p95 ms | "
        "decoded while speaking p50 / p95 ms | peak RSS | its children's peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    try:
        with tempfile.TemporaryDirectory() as state:
            env["MNEMOLIS_STATE"] = os.environ.get("MNEMOLIS_STATE", state)
            for mode in args.modes.split(","):
                before = os.getloadavg()[0]
                done = subprocess.run(
                    [sys.executable, __file__, "--child", mode, "--home", args.home, *files],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=ROOT,
                )
                after = os.getloadavg()[0]
                lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
                if not lines or "peak_rss_mb" not in lines[-1]:
                    sys.exit(f"{mode} failed:\n{done.stderr[-3000:]}")
                f = figures(lines[:-1], texts)
                print(
                    f"| {mode} | {before:.2f} | {after:.2f} | {f['ends']} | {f['exact']}/"
                    f"{f['requests']} | {f['decided']} | {f['heard']} | {f['answer']} | "
                    f"{f['streamed']} | {lines[-1]['peak_rss_mb']:.0f} MB | "
                    f"{lines[-1]['children_peak_mb']:.0f} MB |",
                    flush=True,
                )
                if args.verbose:
                    for row in lines[:-1]:
                        said = texts[row["request"]]
                        print("   ", row["request"], said, "->", repr(row["text"]), row["ms"])
    finally:
        if sim is not None:
            sim.stop()
        if broker is not None:
            broker.stop()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", default="big", choices=[*HOMES])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--echo", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "mnemolis-voice-bench"))
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("files", nargs="*")
    a = parser.parse_args()
    if a.child:
        asyncio.run(child(a.home, a.child, a.files))
    else:
        run(a)
