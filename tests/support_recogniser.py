"""Real speech for the recogniser's tests: espeak-ng renders, converted by sox.

espeak-ng and pocketsphinx are real parts: a developer without them is told and
skipped, CI (which `.ci/run` provisions) fails instead.
"""

from __future__ import annotations

import asyncio
import subprocess
import wave
from collections.abc import Iterator

import numpy as np
import pytest

from mnemolis.config import load_config
from mnemolis.core.heard import Heard
from mnemolis.voice.audio import chunks, to_pipeline
from mnemolis.voice.recognise import PocketsphinxRecogniser, create_recogniser
from mnemolis.voice.stages import Audio, AudioFormat, StreamingRecogniser
from tests.tools import require


def require_voice() -> None:
    from tests.conftest import IN_CI

    for program in ("espeak-ng", "sox"):
        require(program)  # `tests/tools.py`: a skip counted at the end, a failure under CI
    try:
        import pocketsphinx  # noqa: F401
    except ImportError:
        message = "pocketsphinx is not installed (pip install -e '.[voice]')"
        if IN_CI:
            pytest.fail(f"CI must run the voice tests: {message}")
        pytest.skip(message)


def speak(text: str, voice: str = "en-us", speed: int = 150, rate: int = 16000) -> Audio:
    """``text`` said by espeak-ng, as 16-bit mono PCM at ``rate``."""
    said = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", text],
        capture_output=True,
        check=True,
    )
    # -R: sox's dither is the same on every run (a test hears the same sound each time)
    out = ("-r", str(rate), "-c", "1", "-b", "16", "-t", "raw", "-")
    converted = subprocess.run(
        ["sox", "-q", "-R", "-t", "wav", "-", *out],
        input=said.stdout,
        capture_output=True,
        check=True,
    )
    return Audio(converted.stdout, AudioFormat(rate, 2, 1))


def speak_as_is(text: str, voice: str = "en-us", speed: int = 150) -> Audio:
    """``text`` as espeak-ng writes it: 22,050 Hz, digital silence around the words, no
    dither (what a text-to-speech engine or a padded file hands over)."""
    said = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", text],
        capture_output=True,
        check=True,
    )
    import io

    with wave.open(io.BytesIO(said.stdout)) as w:
        fmt = AudioFormat(w.getframerate(), w.getsampwidth(), w.getnchannels())
        return Audio(w.readframes(w.getnframes()), fmt)


def noise(seconds: float, level: float = 3000.0, seed: int = 1) -> Audio:
    rng = np.random.default_rng(seed)
    samples = rng.normal(0.0, level, int(seconds * 16000))
    return Audio(np.clip(samples, -32768, 32767).astype("<i2").tobytes())


def scaled(audio: Audio, gain: float) -> Audio:
    """Louder by ``gain``, clipped at full scale (a shouting or overdriven microphone)."""
    pcm = np.frombuffer(audio.pcm, dtype="<i2").astype(np.float64) * gain
    return Audio(np.clip(pcm, -32768, 32767).astype("<i2").tobytes(), audio.format)


def write_wav(path: str, audio: Audio) -> None:
    with wave.open(path, "wb") as w:
        w.setnchannels(audio.format.channels)
        w.setsampwidth(audio.format.width)
        w.setframerate(audio.format.rate)
        w.writeframes(audio.pcm)


def demo_recogniser(factory: pytest.TempPathFactory) -> Iterator[PocketsphinxRecogniser]:
    """The demo home's recogniser, built once for a module (``yield from`` it)."""
    require_voice()
    r = create_recogniser(load_config(), state_dir=factory.mktemp("state"))
    r.wait_ready()
    yield r
    r.close()


def streamed(r: StreamingRecogniser, audio: Audio, ms: int = 30) -> Heard:
    """``audio`` heard as a microphone brings it: a stream fed ``ms`` at a time."""

    async def run() -> Heard:
        stream = r.open()
        for piece in chunks(to_pipeline(audio.pcm, audio.format), ms):
            stream.feed(piece)
        return await stream.finish()

    return asyncio.run(run())
