"""Speech for the voice tests, made by the real engines: espeak-ng speaks the requests,
sox changes their rate and channels, pocketsphinx hears them.

Under CI (``CI=true``) a missing espeak-ng or sox fails the test instead of
skipping it (`tests/tools.py`, whose table `make test` installs).
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mnemolis.core.heard import Heard
from mnemolis.voice import engines
from mnemolis.voice.stages import Audio, StageError
from tests.tools import require

#: The wake word fires on espeak-ng's en-us voice at 130 to 190 words a minute
#: (probabilities 0.89-0.95 against the model's cut-off of 0.85); its female
#: variants (en-us+f3) and en+m7 stay under it.
WAKE_VOICE = "en-us"

R = TypeVar("R")


def need(program: str) -> str:
    """The program's path; skipped where it is missing, except under CI (a failure
    there): a row of `tests/tools.py`."""
    return require(program)


def render(
    text: str,
    path: Path,
    voice: str = "en-us",
    speed: int = 160,
    rate: int | None = None,
    channels: int | None = None,
    pad_s: float = 0.3,
) -> Path:
    """``text`` spoken by espeak-ng into ``path``, padded with silence, then (sox) at
    another rate or channel count."""
    espeak = need("espeak-ng")
    raw = subprocess.run(
        [espeak, "-v", voice, "-s", str(speed), "--stdout", text],
        capture_output=True,
        check=True,
    ).stdout
    sox = need("sox")
    effects = ["pad", str(pad_s), str(pad_s)]
    if rate is not None:
        effects += ["rate", str(rate)]
    if channels is not None:
        effects += ["channels", str(channels)]
    subprocess.run(
        [sox, "-q", "-t", "wav", "-", "-b", "16", str(path), *effects],
        input=raw,
        check=True,
    )
    return path


def sox_make(path: Path, *args: str) -> Path:
    """A sound sox synthesises: ``sox -n path synth 2 whitenoise`` and the like."""
    subprocess.run(
        # -R: repeatable (sox dithers with a random seed otherwise: a borderline sound
        # would pass or fail by chance)
        [need("sox"), "-q", "-R", "-n", "-r", "16000", "-b", "16", "-c", "1", str(path), *args],
        check=True,
    )
    return path


@dataclass
class GrammarRecogniser:
    """pocketsphinx with its general acoustic model and a grammar of ``sentences``: a real
    recogniser for the pipeline's tests (the project's own, compiled from the
    configuration, is `mnemolis.voice.recognise`, which judges its own confidence).
    A grammar decoder gives no confidence worth the name: this one says ``confidence``, and
    ``unsure_of`` for the sentences in ``unsure``."""

    sentences: tuple[str, ...]
    confidence: float = 0.9
    unsure: tuple[str, ...] = ()
    unsure_of: float = 0.4
    name: str = "pocketsphinx (test grammar)"

    def __post_init__(self) -> None:
        from pocketsphinx import Decoder

        self.decoder = Decoder(loglevel="FATAL")
        rules = " | ".join(f"( {s} )" for s in self.sentences)
        self.decoder.add_jsgf_string(
            "requests", f"#JSGF V1.0;\ngrammar requests;\npublic <s> = {rules};\n"
        )
        self.decoder.activate_search("requests")
        self.lock = threading.Lock()  # one decoder: one utterance at a time, off the event loop

    async def transcribe(self, audio: Audio) -> Heard:
        if not audio.pcm:
            raise StageError("no sound")
        return await asyncio.to_thread(self.hear, audio)

    def hear(self, audio: Audio) -> Heard:
        with self.lock:
            self.decoder.start_utt()
            self.decoder.process_raw(audio.pcm, full_utt=True)
            self.decoder.end_utt()
            hyp = self.decoder.hyp()
        if hyp is None or hyp.hypstr not in self.sentences:  # none, or a path cut short
            return Heard("", 0.0, rejected="not a request I know", engine=self.name)
        sure = self.unsure_of if hyp.hypstr in self.unsure else self.confidence
        return Heard(hyp.hypstr, sure, engine=self.name)


class FailingRecogniser:
    """A recogniser whose engine is down, as a Wyoming one may be: it says so."""

    name = "down"

    async def transcribe(self, audio: Audio) -> Heard:
        raise StageError("the recogniser at tcp://127.0.0.1:1 refused the connection")


def configured(monkeypatch: pytest.MonkeyPatch, recogniser: R) -> R:
    """``recogniser`` as the configured one (what `engines.load_recogniser` builds)."""
    monkeypatch.setattr(engines, "load_recogniser", lambda *_args: recogniser)
    return recogniser


def recogniser_fixture(sentences: tuple[str, ...]) -> Any:
    """A test module's ``recogniser`` fixture (``fixture_recogniser =
    recogniser_fixture(SENTENCES)``): pocketsphinx over ``sentences``, configured."""

    @pytest.fixture(name="recogniser")
    def fixture_recogniser(monkeypatch: pytest.MonkeyPatch) -> GrammarRecogniser:
        """pocketsphinx over the requests the module's tests say, as the configured one."""
        return configured(monkeypatch, GrammarRecogniser(sentences))

    return fixture_recogniser
