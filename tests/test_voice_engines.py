"""The embedded engines for real: espeak-ng speaks (and pocketsphinx hears it back), the
wake word fires on a rendered "okay nabu ..." and not on the request alone, end of
speech tells speech from silence and noise, the earcons are tones, a missing
microphone or espeak-ng is said in one sentence."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from mnemolis.voice.audio import chunks, level
from mnemolis.voice.earcon import tones
from mnemolis.voice.endpoint import SpeechEndpoint
from mnemolis.voice.inputs import CommandSource, _trouble, find_device
from mnemolis.voice.settings import Earcon, SpeechSettings, VoiceEngine
from mnemolis.voice.speak import EspeakVoice
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, BadAudio, StageError
from mnemolis.voice.wake import MicroWakeWordEngine
from mnemolis.voice.wav import read_wav
from tests.support_voice import GrammarRecogniser, need, render, sox_make

REQUESTS = ("turn off the kitchen light", "turn on the bedroom light", "open the garage door", "yes")


def test_espeak_speaks_and_pocketsphinx_hears_it(tmp_path: Path) -> None:
    need("espeak-ng")
    recogniser = GrammarRecogniser(REQUESTS)

    async def scenario() -> list[str]:
        voice = EspeakVoice(VoiceEngine(speed=150))
        heard = []
        for text in REQUESTS:
            audio = await voice.synthesize(text)
            assert audio.format == PIPELINE_FORMAT and 0.3 < audio.seconds < 4
            heard.append((await recogniser.transcribe(audio)).text)
        return heard

    assert asyncio.run(scenario()) == list(REQUESTS)


def test_a_sentence_is_never_read_as_an_option() -> None:
    need("espeak-ng")
    audio = asyncio.run(EspeakVoice(VoiceEngine()).synthesize("--version -h"))
    assert audio.seconds > 0.5


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (VoiceEngine(voice="klingon-xx"), "espeak-ng failed"),
        (VoiceEngine(), "espeak-ng is not installed, so answers cannot be spoken: apt-get install espeak-ng"),
    ],
)
def test_a_voice_that_fails_says_why(
    monkeypatch: pytest.MonkeyPatch, settings: VoiceEngine, words: str
) -> None:
    need("espeak-ng")
    if settings.voice == "en-us":
        monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(StageError) as failed:
        asyncio.run(EspeakVoice(settings).synthesize("hello"))
    assert words in str(failed.value)


# (what is said, voice, speed, does the wake word fire)
WAKE = [
    ("okay nabu turn off the kitchen light", "en-us", 130, True),
    ("okay nabu turn off the kitchen light", "en-us", 160, True),
    ("okay nabu turn off the kitchen light", "en-us", 190, True),
    ("okay nabu what time is it", "en-us+m3", 160, True),
    ("turn off the kitchen light", "en-us", 160, False),
    ("what time is it", "en-us", 160, False),
    ("okay now turn off the light", "en-us", 160, False),
]


@pytest.mark.parametrize(("said", "voice", "speed", "fires"), WAKE)
def test_the_wake_word_fires_on_okay_nabu_and_not_on_the_request_alone(
    tmp_path: Path, said: str, voice: str, speed: int, fires: bool
) -> None:
    sound = read_wav(render(said, tmp_path / "s.wav", voice=voice, speed=speed, pad_s=0.5), 20)
    wake = MicroWakeWordEngine("okay_nabu")
    fired = [c for c in chunks(sound.audio, 30) if wake.process(c) is not None]
    assert bool(fired) is fires, f"best probability {wake.best:.3f}"
    wake.reset()
    assert wake.best == 0.0


def test_an_unknown_wake_word_model_is_a_clear_error() -> None:
    with pytest.raises(StageError) as failed:
        MicroWakeWordEngine("okay_mnemolis")
    assert "the wake word model okay_mnemolis could not be loaded" in str(failed.value)


SPEECH = SpeechSettings()
# (the sound, is speech found, does it end)
SOUNDS = [
    ("speech", True, True),
    ("silence", False, False),
    ("whitenoise", False, False),
    ("hum", False, False),
]


@pytest.mark.parametrize("engine", ["vad", "energy"])
@pytest.mark.parametrize(("kind", "speech", "ends"), SOUNDS)
def test_end_of_speech_tells_speech_from_silence_and_noise(
    tmp_path: Path, engine: str, kind: str, speech: bool, ends: bool
) -> None:
    path = tmp_path / "s.wav"
    if kind == "speech":
        render("turn off the kitchen light", path, pad_s=1.0)
    elif kind == "silence":
        sox_make(path, "trim", "0", "3")
    elif kind == "hum":
        sox_make(path, "synth", "3", "sine", "100", "vol", "0.3")
    else:
        sox_make(path, "synth", "3", "whitenoise", "vol", "0.3")
    if engine == "energy" and kind in ("whitenoise", "hum"):
        speech = ends = True  # loudness alone cannot tell noise from a voice
    endpoint = SpeechEndpoint(dataclasses.replace(SPEECH, engine=engine))
    audio = read_wav(path, 20).audio
    ended_at = next(
        (i for i, c in enumerate(chunks(audio, 30)) if endpoint.process(c)), None
    )
    assert endpoint.started is speech
    assert (ended_at is not None) is (ends and kind == "speech")
    if kind == "speech":  # ends after the speech and its silence, before the recording does
        assert ended_at is not None and ended_at * 0.03 < audio.seconds


def test_earcons_are_short_tones_in_the_pipeline_format() -> None:
    start = tones(Earcon((660.0, 880.0), 70.0, 0.3))
    assert start.format == PIPELINE_FORMAT
    assert start.seconds == pytest.approx(0.14, abs=0.002)
    measured = level(start)
    assert 0.25 < measured.peak <= 0.31 and measured.clipped == 0.0
    assert level(Audio(start.pcm[:64])).peak < 0.05  # a soft edge: no click


# (what ALSA or PortAudio said, the reason)
DEVICE_TROUBLE = [
    ("arecord: main:831: audio open error: Device or resource busy", "busy"),
    ("Error opening RawInputStream: Device unavailable [PaErrorCode -9985]", "busy"),
    ("ALSA lib pcm_hw.c:1829:(_snd_pcm_hw_open) Invalid value for card\narecord: main:831: audio open error: No such file or directory", "missing"),
    ("ALSA lib confmisc.c:855:(parse_card) cannot find card '9'", "missing"),
    ("arecord: main:831: audio open error: Invalid argument", "failed"),
]


@pytest.mark.parametrize(("said", "reason"), DEVICE_TROUBLE)
def test_a_missing_or_busy_microphone_is_one_sentence(said: str, reason: str) -> None:
    trouble = _trouble(said, "USB")
    assert trouble.reason == reason
    assert "the microphone USB" in str(trouble) or "no microphone USB" in str(trouble)


def test_a_microphone_command_that_cannot_open_its_device_says_so() -> None:
    need("arecord")
    source = CommandSource(
        ("arecord", "-q", "-D", "hw:CARD=Nowhere", "-t", "raw", "-f", "S16_LE"),
        PIPELINE_FORMAT,
    )

    async def read() -> None:
        async for _chunk in source.chunks():
            pass

    with pytest.raises(BadAudio) as refused:
        asyncio.run(read())
    assert refused.value.reason == "missing"
    assert "arecord -l lists them" in str(refused.value)


def test_a_microphone_command_that_is_not_installed_says_so() -> None:
    source = CommandSource(("arecord-nowhere", "-q"), PIPELINE_FORMAT)

    async def read() -> None:
        async for _chunk in source.chunks():
            pass

    with pytest.raises(BadAudio) as refused:
        asyncio.run(read())
    assert "arecord-nowhere, which is not installed" in str(refused.value)


def test_a_microphone_command_streams_pipeline_chunks(tmp_path: Path) -> None:
    """An arecord-style program: here sox plays a recording as raw 48 kHz stereo."""
    spoken = render("what time is it", tmp_path / "s.wav")
    command = (need("sox"), "-q", str(spoken), "-t", "raw", "-r", "48000", "-c", "2", "-b", "16", "-e", "signed", "-")
    source = CommandSource(command, dataclasses.replace(PIPELINE_FORMAT, rate=48000, channels=2))

    async def read() -> bytes:
        return b"".join([c.pcm async for c in source.chunks()])

    pcm = asyncio.run(read())
    assert abs(len(pcm) / 32000 - read_wav(spoken, 20).audio.seconds) < 0.02


def test_a_named_microphone_that_is_not_there_is_refused() -> None:
    with pytest.raises(BadAudio) as refused:
        find_device("Blue Yeti", "input")
    assert refused.value.reason == "missing"
    assert "microphone" in str(refused.value)
