"""Wyoming engines named in sources/voice.yaml replace the embedded engine of their stage,
and the embedded one answers while they are down, slow or talking nonsense (said once in
the log). Whisper, Piper and a wake word service are stood in for by servers speaking
the real protocol (tests/support_engines.py) over real pocketsphinx, espeak-ng and
pymicro-wakeword."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mnemolis.config import Config, load_config
from mnemolis.sources.base import Level
from mnemolis.voice.audio import to_pipeline
from mnemolis.voice.doctor_remote import remote_findings
from mnemolis.voice.engines import VoiceKit, load_kit
from mnemolis.voice.events import Woke
from mnemolis.voice.listener import Listener
from mnemolis.voice.remote import WyomingRecogniser, WyomingVoice
from mnemolis.voice.settings import VoiceSettings, load_voice_settings
from mnemolis.voice.speak import EspeakVoice
from mnemolis.voice.stages import AudioFormat, StageError
from mnemolis.voice.wav import read_wav
from tests.support_engines import (
    engine,
    espeak_22050,
    nonsense,
    piper,
    ready_and_failing,
    silent,
    wake_service,
    whisper,
)
from tests.support_satellite import free_port
from tests.support_voice import GrammarRecogniser, configured, render

T = TypeVar("T")
SENTENCES = ("turn off the kitchen light", "what time is it")


@pytest.fixture(name="embedded")
def fixture_embedded(monkeypatch: pytest.MonkeyPatch) -> GrammarRecogniser:
    """The embedded recogniser: it hears only "what time is it", so an answer says which
    engine heard."""
    return configured(monkeypatch, GrammarRecogniser(("what time is it",), name="embedded"))


def config_with(tmp_path: Path, wyoming: str) -> Config:
    folder = tmp_path / "config"
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    (folder / "sources" / "voice.yaml").write_text(
        "wyoming:\n" + wyoming + "  timeout_s: 2\n  retry_s: 60\n", encoding="utf-8"
    )
    return load_config(folder)


def kit_for(tmp_path: Path, wyoming: str) -> VoiceKit:
    return asyncio.run(load_kit(config_with(tmp_path, wyoming), tmp_path / "state"))


def twice_at(
    server: Any, use: Callable[[str], list[T]], caplog: pytest.LogCaptureFixture
) -> tuple[list[T], list[str]]:
    """What ``use`` got from the engine ``server`` stands in for (None: nothing listens),
    and the fallback's warnings."""
    with caplog.at_level(logging.WARNING, "mnemolis.voice.fallback"):
        if server is None:
            got = use(f"tcp://127.0.0.1:{free_port()}")
        else:
            with engine(server) as uri:
                got = use(uri)
    return got, [r.getMessage() for r in caplog.records if r.name == "mnemolis.voice.fallback"]


def test_a_whisper_service_hears_instead_of_the_embedded_recogniser(
    tmp_path: Path, embedded: GrammarRecogniser
) -> None:
    said = read_wav(render("turn off the kitchen light", tmp_path / "a.wav"), 20).audio
    with engine(whisper(SENTENCES)) as uri:
        kit = kit_for(tmp_path, f"  asr: {uri}\n")
        heard = asyncio.run(kit.recogniser.transcribe(said))
    assert heard.text == "turn off the kitchen light"
    assert heard.engine == f"wyoming asr {uri}" and heard.confidence == 1.0


def test_a_piper_service_speaks_instead_of_espeak_and_its_sound_is_converted(
    tmp_path: Path, embedded: GrammarRecogniser
) -> None:
    with engine(piper) as uri:
        kit = kit_for(tmp_path, f"  tts: {uri}\n")
        spoken = asyncio.run(kit.voice.synthesize("the kitchen light is off"))
    piper_said = espeak_22050("the kitchen light is off")  # what the stand-in sent, at 22050 Hz
    assert spoken == to_pipeline(piper_said, AudioFormat(22050, 2, 1))
    assert spoken.format.rate == 16000 and 1.0 < spoken.seconds < 3.0


@pytest.mark.parametrize(
    ("server", "reason"),
    [
        (ready_and_failing, "answered an error: Unable to find voice: en_US-lessac-medium (tts)"),
        (silent, "did not answer within 2 s"),
        (nonsense, "answered audio in a format that cannot be used (rate 0, width 9, channels 1)"),
        (None, "cannot be reached"),
    ],
)
def test_a_voice_that_fails_gives_way_to_espeak_said_once(
    tmp_path: Path,
    embedded: GrammarRecogniser,
    caplog: pytest.LogCaptureFixture,
    server: object,
    reason: str,
) -> None:
    """wyoming-piper without its voice says it is ready, then fails every request: its
    "ready" proves nothing, its first answer is what counts."""
    espeak = asyncio.run(EspeakVoice(VoiceSettings().voice).synthesize("hello there"))

    def twice(uri: str) -> list[bytes]:
        kit = kit_for(tmp_path, f"  tts: {uri}\n")
        return [asyncio.run(kit.voice.synthesize("hello there")).pcm for _ in range(2)]

    spoken, warnings = twice_at(server, twice, caplog)
    assert spoken == [espeak.pcm, espeak.pcm]
    assert len(warnings) == 1 and reason in warnings[0]
    assert "espeak-ng:en-us answers instead" in warnings[0]


@pytest.mark.parametrize(
    ("server", "reason"),
    [
        (ready_and_failing, "answered an error: model not loaded (asr)"),
        (silent, "did not answer within 2 s"),
        (nonsense, "answered a transcript without text"),
        (None, "cannot be reached"),
    ],
)
def test_a_recogniser_that_fails_gives_way_to_the_embedded_one(
    tmp_path: Path,
    embedded: GrammarRecogniser,
    caplog: pytest.LogCaptureFixture,
    server: object,
    reason: str,
) -> None:
    said = read_wav(render("what time is it", tmp_path / "a.wav"), 20).audio

    def hear(uri: str) -> list[str]:
        kit = kit_for(tmp_path, f"  asr: {uri}\n")
        return [asyncio.run(kit.recogniser.transcribe(said)).engine for _ in range(2)]

    heard_by, warnings = twice_at(server, hear, caplog)
    assert heard_by == ["embedded", "embedded"]
    assert len(warnings) == 1 and reason in warnings[0]


def test_an_engine_alone_says_what_went_wrong(tmp_path: Path) -> None:
    with engine(silent) as uri:
        with pytest.raises(StageError, match=f"the recogniser at {uri} did not answer within 1 s"):
            asyncio.run(
                WyomingRecogniser(uri, 1.0).transcribe(
                    read_wav(render("yes", tmp_path / "y.wav"), 20).audio
                )
            )
        with pytest.raises(StageError, match=f"the voice at {uri} did not answer within 1 s"):
            asyncio.run(WyomingVoice(uri, 1.0).synthesize("yes"))


def test_a_wake_word_service_wakes_the_listener(
    tmp_path: Path, embedded: GrammarRecogniser
) -> None:
    """Audio goes to the service at real time; its detection wakes the stream."""
    said = read_wav(render("okay nabu, what time is it", tmp_path / "a.wav", pad_s=0.6), 20).audio

    async def listen(kit: VoiceKit) -> list[object]:
        from mnemolis.voice.audio import chunks

        listener = Listener(kit.wake_word(), kit.endpoint(), kit.settings)
        happened = []
        for chunk in chunks(said, 30):
            happened += listener.feed(chunk)
            await asyncio.sleep(chunk.seconds)  # a microphone's pace
        return happened

    with engine(wake_service()) as uri:
        kit = kit_for(tmp_path, f"  wake: {uri}\n")
        happened = asyncio.run(listen(kit))
    assert [e.wake_word for e in happened if isinstance(e, Woke)] == ["okay_nabu"]
    assert kit.wake_health is not None and kit.wake_health.last_error is None


def test_doctor_names_each_engine_and_what_it_answered(tmp_path: Path) -> None:
    """A recogniser that hears, and a voice that says it is ready and fails."""
    with engine(whisper(SENTENCES)) as asr, engine(ready_and_failing) as tts:
        config = config_with(tmp_path, f"  asr: {asr}\n  tts: {tts}\n")
        found = asyncio.run(remote_findings(load_voice_settings(config), "en"))
    by_check = {f.check: f for f in found}
    heard = by_check[f"recogniser {asr}"]
    # what the service is, and what it made of the sample (the stand-in's grammar may hear
    # espeak-ng's "what time is it" or not: doctor says which, OK or a warning)
    assert heard.text.startswith("faster-whisper (tiny-int8): heard 'what time is it' as '")
    assert heard.level is (Level.OK if "as 'what time is it'" in heard.text else Level.WARNING)
    voice = by_check[f"voice {tts}"]
    assert voice.level is Level.WARNING
    assert (
        voice.text
        == f"the voice at {tts} answered an error: Unable to find voice: en_US-lessac-medium (tts)"
    )
