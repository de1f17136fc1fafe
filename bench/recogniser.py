"""Benchmark the personalised recogniser: requests spoken, heard, then understood.

    python bench/recogniser.py [--sections homes,recorded,reject,general,sayable,build]
                          [--homes big,second,third] [--snr 12] [--limit N] [--cache DIR]

Sections:
  homes     the held-out fold (5) of each home's sentence rows, rendered with espeak-ng
            (voices and speeds taken in turn), clean and with brown room noise mixed in
            at each --snr (dB): "fully right" (rows) typed, from clean speech, and from
            noisy speech; word error rate, exact transcripts, rejections, and the
            recognise latency p50/p95
  recorded  the recorded development set (../shared/data/voice/speech_to_phrase_en,
            Apache 2.0, OHF-Voice/speech-to-phrase) over tests/data/speech_to_phrase_home:
            exact transcripts, and how many of its out-of-vocabulary recordings were
            heard as a request
  reject    200 utterances that are no request (the rows expecting none, then seeded
            nonsense made of common words), rendered over the demo home: how many were
            heard as something that acts on a device
  general   the same audio (the big home's held-out fold, clean) through pocketsphinx
            with its general English model: sentence accuracy, WER, time, side by side
  sayable   the share of each home's rows (all, and the held-out fold) that the
            compiled grammar can say at all: the ceiling of what speech gets right
  build     compiling the model for a 2,000-entity home (bench/big_home.py's generator),
            a cached start, and the RSS of a process with the big home's model loaded

Renders are cached under --cache (default ~/.cache/mnemolis-voice-bench). The recorded
set is read where `../shared/data` puts it; without it that section says where to get it.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import At, load_config  # noqa: E402
from mnemolis.core.heard import Heard  # noqa: E402
from mnemolis.evaluation import speech  # noqa: E402
from mnemolis.evaluation.command import evaluate_rows, make_keyer  # noqa: E402
from mnemolis.evaluation.datasets import Row, read_datasets  # noqa: E402
from mnemolis.evaluation.discovered import home_registry  # noqa: E402
from mnemolis.evaluation.entities import entity_ids  # noqa: E402
from mnemolis.evaluation.report import summarise  # noqa: E402
from mnemolis.runtime.doubt import Doubt, HeardSettings  # noqa: E402
from mnemolis.voice.audio import chunks, to_pipeline  # noqa: E402
from mnemolis.voice.endpoint import SpeechEndpoint  # noqa: E402
from mnemolis.voice.recognise import RecogniserSettings, create_recogniser  # noqa: E402
from mnemolis.voice.recognise.recogniser import PocketsphinxRecogniser  # noqa: E402
from mnemolis.voice.recognise.settings import load_recogniser_settings  # noqa: E402
from mnemolis.voice.settings import SpeechSettings  # noqa: E402
from mnemolis.voice.stages import Audio  # noqa: E402

DATA = ROOT / "tests" / "data"
HOMES = {
    "big": DATA / "big_home",
    "second": DATA / "second_home",
    "third": DATA / "third_home",
}
RECORDED = ROOT.parent.parent / "shared" / "data" / "voice" / "speech_to_phrase_en"
RECORDED_ALT = Path("/work/shared/data/voice/speech_to_phrase_en")
VOICES = ("en-us", "en-gb+f3", "en-us+m3", "en-gb-scotland")
SPEEDS = (150, 175, 195)
HELD_OUT = 5
RATE = 16000


def render(text: str, n: int, cache: Path) -> Path:
    """espeak-ng speaking ``text`` in the n-th voice and speed, 16 kHz mono, cached."""
    voice, speed = VOICES[n % len(VOICES)], SPEEDS[n % len(SPEEDS)]
    key = hashlib.sha1(f"{text}|{voice}|{speed}".encode()).hexdigest()[:16]
    out = cache / f"{key}.wav"
    if not out.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(suffix=".wav") as raw:
            subprocess.run(
                ["espeak-ng", "-v", voice, "-s", str(speed), "-w", raw.name, text], check=True
            )
            tmp = out.with_suffix(f".{os.getpid()}.tmp.wav")  # two runs may render at once
            subprocess.run(
                ["sox", "-q", raw.name, "-r", str(RATE), "-c", "1", "-b", "16", str(tmp)],
                check=True,
            )
            tmp.replace(out)
    return out


def room_noise(cache: Path, seconds: int = 30) -> np.ndarray:
    """Brown noise with a little pink, low-passed: a room's hum, made by sox once."""
    out = cache / "room_noise.wav"
    if not out.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "sox",
                "-q",
                "-n",
                "-r",
                str(RATE),
                "-c",
                "1",
                "-b",
                "16",
                str(out),
                "synth",
                str(seconds),
                "brownnoise",
                "mix",
                "pinknoise",
                "lowpass",
                "3000",
                "vol",
                "0.5",
            ],
            check=True,
        )
    return samples(out)


def samples(path: Path) -> np.ndarray:
    with wave.open(str(path)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)


def mixed(clean: np.ndarray, noise: np.ndarray, snr_db: float | None, seed: int) -> Audio:
    """``clean`` with ``noise`` at ``snr_db`` (None: clean), as pipeline audio."""
    out = clean
    if snr_db is not None:
        start = random.Random(seed).randrange(0, len(noise) - len(clean) - 1)
        piece = noise[start : start + len(clean)]
        speech_rms = math.sqrt(float(np.mean(clean**2))) or 1.0
        noise_rms = math.sqrt(float(np.mean(piece**2))) or 1.0
        out = clean + piece * (speech_rms / noise_rms) / (10 ** (snr_db / 20))
    return Audio(np.clip(out, -32768, 32767).astype("<i2").tobytes())


def held_out_rows(home: Path) -> list[Row]:
    config = load_config(home)
    files = [str(p) for p in sorted((home / "sentences").glob("*.jsonl"))]
    return [r for r in read_datasets(files, config, "mnemolis").rows if r.fold == HELD_OUT]


class Home:
    """A home's configuration, understanding and recogniser, loaded once."""

    #: ``--stream``: hear each request in pieces of this many ms (0: whole)
    stream_ms = 0
    #: ``--lookahead``: the streamed request's cepstral mean is taken over this much speech
    settings = RecogniserSettings()

    def __init__(self, path: Path | None, state: Path) -> None:
        from mnemolis.understand import Understander

        self.config = load_config(path)
        self.registry, _ = home_registry(self.config, None)
        self.understander = Understander(self.config, self.registry)
        self.keyer = make_keyer(self.config, self.understander)
        self.recogniser = create_recogniser(self.config, self.settings, state, self.registry)
        self.recogniser.wait_ready()

    def score(self, rows: list[Row], texts: list[str | None] | None) -> dict[str, float]:
        ids_of = entity_ids(self.registry)
        results = evaluate_rows(rows, self.understander, self.keyer, None, ids_of, texts)
        s = summarise("all", results, timing=False)
        e = s.entities
        return {
            "rows": len(rows),
            "intent": s.intents.rate if s.intents else 0.0,
            "fully_right": e.rows_fully_right_rate if e else 0.0,
        }

    def hear(self, audio: Audio) -> Heard:
        """The audio heard whole, or (``--stream MS``) fed to a stream in MS pieces as a
        microphone would bring it (all at once here: the accuracy, not the pace)."""
        if not self.stream_ms:
            return self.recogniser.transcribe_now(audio)
        return asyncio.run(streamed(self.recogniser, audio, self.stream_ms))

    def normalize(self, text: str) -> str:
        return self.understander.normalizer.normalize(text).text


async def streamed(recogniser: PocketsphinxRecogniser, audio: Audio, ms: int) -> Heard:
    """As the pipeline streams a request: everything until the end-of-speech detector hears
    speech start in one piece (the stream opens then), the rest in ``ms`` pieces."""
    pieces = list(chunks(to_pipeline(audio.pcm, audio.format), ms))
    endpoint = SpeechEndpoint(SpeechSettings())
    opened = next((i for i, p in enumerate(pieces) if endpoint.process(p) or endpoint.started), -1)
    stream = recogniser.open()
    stream.feed(Audio(b"".join(p.pcm for p in pieces[: opened + 1])))
    for piece in pieces[opened + 1 :] if opened >= 0 else []:
        stream.feed(piece)
    return await stream.finish()


def hear_all(home: Home, audios: list[Audio]) -> list[Heard]:
    return [home.hear(a) for a in audios]


def speech_figures(home: Home, rows: list[Row], heard: list[Heard]) -> dict[str, float]:
    refs = [speech.words(r.text, home.normalize) for r in rows]
    hyps = [speech.words(h.text, home.normalize) for h in heard]
    errors = sum(speech.word_errors(r, h) for r, h in zip(refs, hyps, strict=True))
    ms = [h.ms["recognise"] for h in heard]
    return {
        "wer": errors / max(1, sum(len(r) for r in refs)),
        "exact": sum(r == h for r, h in zip(refs, hyps, strict=True)) / max(1, len(rows)),
        "rejected": sum(1 for h in heard if not h.text) / max(1, len(rows)),
        "p50_ms": statistics.median(ms) if ms else 0.0,
        "p95_ms": sorted(ms)[max(0, math.ceil(0.95 * len(ms)) - 1)] if ms else 0.0,
    }


def section_homes(args: argparse.Namespace, cache: Path, state: Path) -> list[str]:
    noise = room_noise(cache)
    lines = [
        "| home | rows | typed fully right | clean: fully right | clean WER | clean exact "
        "| rejected | "
        + " | ".join(f"{s} dB fully right" for s in args.snr)
        + " | recognise p50 / p95 ms |",
        "|---|---|---|---|---|---|---|" + "---|" * len(args.snr) + "---|",
    ]
    for name in args.homes:
        rows = held_out_rows(HOMES[name])[: args.limit or None]
        home = Home(HOMES[name], state)
        typed = home.score(rows, None)
        clean = [samples(render(r.text, i, cache)) for i, r in enumerate(rows)]
        heard = hear_all(home, [mixed(c, noise, None, i) for i, c in enumerate(clean)])
        spoken = home.score(rows, [h.text for h in heard])
        figures = speech_figures(home, rows, heard)
        noisy = []
        for snr in args.snr:
            h2 = hear_all(home, [mixed(c, noise, snr, i) for i, c in enumerate(clean)])
            noisy.append(home.score(rows, [h.text for h in h2])["fully_right"])
        lines.append(
            f"| {name} | {len(rows)} | {typed['fully_right']:.3f} | {spoken['fully_right']:.3f} "
            f"| {figures['wer']:.3f} | {figures['exact']:.3f} | {figures['rejected']:.3f} | "
            + " | ".join(f"{x:.3f}" for x in noisy)
            + f" | {figures['p50_ms']:.0f} / {figures['p95_ms']:.0f} |"
        )
        home.recogniser.close()
    return lines


def recorded_dir() -> Path | None:
    for path in (RECORDED, RECORDED_ALT):
        if (path / "wav").is_dir():
            return path
    return None


def section_recorded(args: argparse.Namespace, cache: Path, state: Path) -> list[str]:
    folder = recorded_dir()
    if folder is None:
        return [
            "recorded: the development set is not here; it is speech-to-phrase's test "
            "suite (OHF-Voice/speech-to-phrase, tests/wav/en, Apache 2.0): put it in "
            f"{RECORDED}/wav"
        ]
    home = Home(DATA / "speech_to_phrase_home", state)
    lines = [
        "| set | files | exact transcripts | WER | OOV heard as a request | p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    for label, files in (
        ("recorded", sorted((folder / "wav").glob("*.wav"))),
        ("synthesised", sorted((folder / "wav" / "generated").glob("*.wav"))),
    ):
        said = [f.stem for f in files if not f.stem.startswith("oov_")]
        oov = [f for f in files if f.stem.startswith("oov_")]
        heard = [home.hear(speech.read_wav(str(f))) for f in files]
        by = dict(zip([f.stem for f in files], heard, strict=True))
        refs = [speech.words(s, home.normalize) for s in said]
        hyps = [speech.words(by[s].text, home.normalize) for s in said]
        errors = sum(speech.word_errors(r, h) for r, h in zip(refs, hyps, strict=True))
        exact = sum(r == h for r, h in zip(refs, hyps, strict=True))
        heard_oov = sum(1 for f in oov if by[f.stem].text)
        ms = statistics.median(h.ms["recognise"] for h in heard)
        lines.append(
            f"| {label} | {len(files)} | {exact}/{len(said)} = {exact / max(1, len(said)):.3f} "
            f"| {errors / max(1, sum(map(len, refs))):.3f} | {heard_oov}/{len(oov)} | {ms:.0f} |"
        )
        if args.verbose:
            for s, ref, hyp in zip(said, refs, hyps, strict=True):
                if ref != hyp:  # as scored: "3 hours" is "three hours"
                    lines.append(f"    said {s!r} heard {by[s].text!r} ({by[s].rejected})")
    return lines


def nonsense(n: int, seed: int = 7) -> list[str]:
    from mnemolis.voice.recognise.general import common_words

    words = [w for w, _ in common_words(3000)]
    rng = random.Random(seed)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(n)]


def section_reject(args: argparse.Namespace, cache: Path, state: Path, n: int = 200) -> list[str]:
    home = Home(None, state)
    texts: list[str] = []
    for path in sorted(DATA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "intent" in row and row["intent"] is None:
                texts.append(row["text"])
    no_request = len(texts)
    texts = (texts + nonsense(n))[:n]
    acts = speech.acts_on_device(home.config)
    doubt = Doubt(home.config, HeardSettings())  # what the assistant asks back before acting
    acted, asked, read, rejected = 0, 0, 0, 0
    examples: list[str] = []
    for i, text in enumerate(texts):
        audio = mixed(samples(render(text, i, cache)), np.zeros(1), None, i)
        heard = home.hear(audio)
        rejected += not heard.text
        if heard.text:
            rows = [Row(line=i, text=text, parts=[])]
            result = evaluate_rows(rows, home.understander, home.keyer, None, None, [heard.text])[0]
            if acts(result):
                doubted = doubt.doubtful(heard)
                asked += doubted
                acted += not doubted
                examples.append(
                    f"    said {text!r}, heard {heard.text!r} ({heard.confidence}, covered "
                    f"{heard.covered}{', asked back' if doubted else ''})"
                )
            elif any(p.source == "mqtt" for p in result.predicted):
                read += 1  # a question about a device: answered, nothing changed
    lines = [
        f"no request: {len(texts)} utterances ({min(no_request, n)} rows expecting no intent, "
        f"the rest nonsense): acted on a device {acted} ({acted / len(texts):.1%}), "
        f"heard as a device command and asked back first {asked} ({asked / len(texts):.1%}), "
        f"read a device's state {read} ({read / len(texts):.1%}), "
        f"heard as nothing {rejected} ({rejected / len(texts):.1%})",
        *examples[: 10 if not args.verbose else None],
    ]
    return lines


def general_decoder() -> Callable[[bytes], str]:
    import pocketsphinx

    decoder = pocketsphinx.Decoder(loglevel="FATAL")

    def decode(pcm: bytes) -> str:
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        return hyp.hypstr if hyp else ""

    return decode


def section_general(args: argparse.Namespace, cache: Path, state: Path) -> list[str]:
    rows = held_out_rows(HOMES["big"])[: args.limit or None]
    home = Home(HOMES["big"], state)
    audios = [
        mixed(samples(render(r.text, i, cache)), np.zeros(1), None, i) for i, r in enumerate(rows)
    ]
    general = general_decoder()
    lines = [
        "| engine | rows | sentence accuracy | WER | fully right | p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    for label, hear in (
        ("pocketsphinx, personalised", lambda a: home.hear(a).text),
        ("pocketsphinx, general model", lambda a: general(a.pcm)),
    ):
        texts, ms = [], []
        for a in audios:
            t0 = time.perf_counter()
            texts.append(hear(a))
            ms.append((time.perf_counter() - t0) * 1000)
        refs = [speech.words(r.text, home.normalize) for r in rows]
        hyps = [speech.words(t, home.normalize) for t in texts]
        errors = sum(speech.word_errors(r, h) for r, h in zip(refs, hyps, strict=True))
        exact = sum(r == h for r, h in zip(refs, hyps, strict=True)) / max(1, len(rows))
        right = home.score(rows, list(texts))["fully_right"]
        lines.append(
            f"| {label} | {len(rows)} | {exact:.3f} | {errors / max(1, sum(map(len, refs))):.3f} "
            f"| {right:.3f} | {statistics.median(ms):.0f} |"
        )
    return lines


def section_build(args: argparse.Namespace, cache: Path, state: Path) -> list[str]:
    import bench.big_home as big

    config = load_config(HOMES["big"])
    devices = big.scaled(big.home_devices(config), 2000, seed=1)
    registry = big.registry_of(config, devices)
    lines = []
    with tempfile.TemporaryDirectory() as fresh:
        t0 = time.perf_counter()
        r = create_recogniser(config, RecogniserSettings(), Path(fresh), registry)
        compiled = r.wait_ready()
        built = time.perf_counter() - t0
        r.close()
        t0 = time.perf_counter()
        r = create_recogniser(config, RecogniserSettings(), Path(fresh), registry)
        again = r.wait_ready()
        cached = time.perf_counter() - t0
        r.close()
    lines.append(
        f"2,000-entity home: compiled in {built:.2f} s ({compiled.info.words} words in the "
        f"dictionary, {len(compiled.info.guessed)} guessed by espeak-ng); cached start "
        f"{cached:.2f} s (from the cache: {not again.built})"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    home = Home(HOMES["big"], state)
    home.recogniser.transcribe_now(Audio(b"\0\0" * RATE))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    lines.append(
        f"big home: max RSS {after / 1024:.0f} MiB with understanding and the recogniser "
        f"loaded (the process held {before / 1024:.0f} MiB before loading them)"
    )
    return lines


def section_sayable(args: argparse.Namespace, cache: Path, state: Path) -> list[str]:
    from mnemolis.voice.recognise.sayable import Fsg
    from mnemolis.voice.recognise.spoken import spoken_words

    lines = ["| home | all rows sayable | held out sayable |", "|---|---|---|"]
    for name in args.homes:
        home = Home(HOMES[name], state)
        fsg = Fsg.read(home.recogniser.wait_ready().path)
        config = home.config
        files = [str(p) for p in sorted((HOMES[name] / "sentences").glob("*.jsonl"))]
        rows = read_datasets(files, config, "mnemolis").rows
        said = [fsg.says(list(spoken_words(home.normalize(r.text)))) for r in rows]
        held = [s for s, r in zip(said, rows, strict=True) if r.fold == HELD_OUT]
        lines.append(
            f"| {name} | {sum(said)}/{len(said)} = {sum(said) / max(1, len(said)):.3f} "
            f"| {sum(held)}/{len(held)} = {sum(held) / max(1, len(held)):.3f} |"
        )
    return lines


SECTIONS = {
    "homes": section_homes,
    "recorded": section_recorded,
    "reject": section_reject,
    "general": section_general,
    "sayable": section_sayable,
    "build": section_build,
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sections", default=",".join(SECTIONS))
    p.add_argument("--homes", default="big,second,third")
    p.add_argument("--snr", default="24,18,12,6", help="noise levels in dB, comma-separated")
    p.add_argument("--limit", type=int, default=0, help="at most N rows per home")
    p.add_argument("--cache", default=str(Path.home() / ".cache" / "mnemolis-voice-bench"))
    p.add_argument("--state", default="", help="state directory for compiled models")
    p.add_argument("--verbose", action="store_true")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a recogniser setting for this run (as in sources/voice.yaml), e.g. garbage=0.1",
    )
    p.add_argument(
        "--stream",
        type=int,
        default=0,
        metavar="MS",
        help="hear each request as a stream of MS-millisecond pieces (0: whole)",
    )
    p.add_argument(
        "--lookahead",
        type=float,
        default=RecogniserSettings().stream_lookahead_s,
        help="with --stream: seconds of speech whose cepstral mean the request takes",
    )
    args = p.parse_args()
    Home.stream_ms = args.stream
    raw = {k: yaml.safe_load(v) for k, _, v in (s.partition("=") for s in args.set)}
    raw.setdefault("stream_lookahead_s", args.lookahead)
    Home.settings = load_recogniser_settings(raw, At(Path("--set")))
    args.homes = [h for h in args.homes.split(",") if h]
    args.snr = [float(s) for s in args.snr.split(",") if s]
    cache = Path(args.cache)
    state = Path(args.state) if args.state else cache / "state"
    for name in args.sections.split(","):
        t0 = time.perf_counter()
        lines = SECTIONS[name](args, cache / "renders", state)
        print(f"## {name} ({time.perf_counter() - t0:.0f} s)")
        print("\n".join(lines), flush=True)
        print()


if __name__ == "__main__":
    main()
