"""Hearing a request while it is said: the recogniser's stream (real pocketsphinx over
the demo home, real espeak-ng speech) and the pipeline that feeds it from a stream of
chunks, as a microphone brings them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.config import load_config
from mnemolis.core.heard import Heard
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Answer
from mnemolis.voice.audio import chunks, to_pipeline
from mnemolis.voice.engines import VoiceKit
from mnemolis.voice.inputs import MemorySource
from mnemolis.voice.outputs import NullSink
from mnemolis.voice.pipeline import Turn, VoicePipeline
from mnemolis.voice.recognise import PocketsphinxRecogniser
from mnemolis.voice.recognise.audio import StreamedAudio, dither
from mnemolis.voice.recognise.decoder import ModelDecoder
from mnemolis.voice.settings import load_voice_settings
from mnemolis.voice.stages import (
    Audio,
    RecognitionStream,
    StreamingRecogniser,
)
from tests.support_recogniser import demo_recogniser, speak, streamed

SAID = "turn off the lights in the bedroom"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PocketsphinxRecogniser]:
    yield from demo_recogniser(tmp_path_factory)


def padded(audio: Audio, before_s: float = 0.5, after_s: float = 1.0) -> Audio:
    """Speech with quiet room noise around it, as a microphone hears a request."""
    speech = to_pipeline(audio.pcm, audio.format).pcm
    rng = np.random.default_rng(1)
    quiet = [
        (rng.normal(0, 4, int(16000 * s))).astype("<i2").tobytes() for s in (before_s, after_s)
    ]
    return Audio(quiet[0] + speech + quiet[1])


def test_the_recogniser_streams(demo: PocketsphinxRecogniser) -> None:
    assert isinstance(demo, StreamingRecogniser)


@pytest.mark.parametrize("ms", [10, 30, 250])
def test_a_request_streamed_in_pieces_is_heard_as_the_whole(
    demo: PocketsphinxRecogniser, ms: int
) -> None:
    audio = speak(SAID)
    whole = asyncio.run(demo.transcribe(audio))
    pieces = streamed(demo, audio, ms)
    assert whole.text == pieces.text == SAID
    assert pieces.rejected is None
    assert pieces.confidence == pytest.approx(whole.confidence, abs=0.05)
    assert pieces.engine == "pocketsphinx"
    assert pieces.ms["recognise"] > 0 and "streamed" in pieces.ms


def test_speech_that_is_no_request_is_rejected_streamed(demo: PocketsphinxRecogniser) -> None:
    heard = streamed(demo, speak("the quick brown fox jumps over the lazy dog"), 30)
    assert heard.text == "" and heard.rejected


@pytest.mark.parametrize(
    ("audio", "reason"),
    [
        (Audio(b""), "no audio"),
        (Audio(b"\0\0" * 800), "too short to be a request"),
        (Audio(b"\0\0" * 16000), "silence"),
    ],
)
def test_a_stream_that_ends_early_or_silent_says_why(
    demo: PocketsphinxRecogniser, audio: Audio, reason: str
) -> None:
    heard = streamed(demo, audio, 30)
    assert heard.text == "" and heard.rejected == reason
    # the decoder was given back: the next request is heard
    assert asyncio.run(demo.transcribe(speak(SAID))).text == SAID


def test_a_cancelled_stream_gives_the_decoder_back(demo: PocketsphinxRecogniser) -> None:
    async def run() -> Heard:
        stream = demo.open()
        for piece in chunks(speak("what time is it"), 30):
            stream.feed(piece)
        await stream.cancel()
        return await asyncio.wait_for(demo.transcribe(speak(SAID)), 60)

    assert asyncio.run(run()).text == SAID


@given(st.integers(0, 9000), st.lists(st.integers(1, 4000), min_size=1, max_size=8))
@settings(max_examples=40, deadline=None)
def test_streamed_sound_is_dithered_as_the_whole(length: int, cuts: list[int]) -> None:
    """The same noise whatever the pieces: a stream and a whole file decode the same
    samples."""
    samples = np.random.default_rng(length).integers(-3000, 3000, length).astype("<i2")
    prepared = StreamedAudio()
    out, at = b"", 0
    for cut in [*cuts, length]:
        out += prepared.add(Audio(samples[at : at + cut].tobytes()))
        at = min(length, at + cut)
    out += prepared.end()
    assert out == dither(samples.astype(np.float64))


# ---------------------------------------------------------------- the pipeline


@dataclass
class Asked:
    """The assistant, as far as the pipeline sees it: what it was asked."""

    texts: list[str] = field(default_factory=list)

    async def ask(
        self,
        text: str,
        session: str = "voice",
        origin: Origin | None = None,
        heard: Heard | None = None,
    ) -> Answer:
        self.texts.append(text)
        return Answer(text, f"you said {text}" if text else "")


@dataclass
class Counting:
    """The recogniser, counting the streams it opens."""

    inner: PocketsphinxRecogniser
    opened: int = 0
    name: str = "pocketsphinx"

    async def transcribe(self, audio: Audio) -> Heard:
        return await self.inner.transcribe(audio)

    def open(self) -> RecognitionStream:
        self.opened += 1
        return self.inner.open()


def converse(recogniser: object, audio: Audio, stream: bool = True) -> tuple[list[Turn], Asked]:
    asked = Asked()
    kit = VoiceKit(load_voice_settings(load_config()), recogniser)  # type: ignore[arg-type]
    origin = Origin(front_end="test", session="voice")
    pipeline = VoicePipeline(asked, kit, origin, NullSink(), speak=False, stream=stream)
    turns: list[Turn] = []
    source = MemorySource(audio)
    asyncio.run(pipeline.converse(source, turns.append, wake=False, live=False, turns=1))
    return turns, asked


def test_a_microphone_stream_is_heard_while_it_is_said(demo: PocketsphinxRecogniser) -> None:
    counting = Counting(demo)
    audio = padded(speak(SAID))
    turns, asked = converse(counting, audio)
    assert counting.opened == 1
    assert [t.heard.text for t in turns] == [SAID] and asked.texts == [SAID]
    assert "streamed" in turns[0].heard.ms
    batch, _ = converse(Counting(demo), audio, stream=False)
    assert batch[0].heard.text == SAID and "streamed" not in batch[0].heard.ms


def test_a_stream_that_ends_in_the_middle_of_the_request_is_heard(
    demo: PocketsphinxRecogniser,
) -> None:
    turns, asked = converse(Counting(demo), padded(speak(SAID), after_s=0.0))
    assert [t.heard.text for t in turns] == [SAID] and asked.texts == [SAID]


def converse_failing(
    monkeypatch: pytest.MonkeyPatch,
    recogniser: PocketsphinxRecogniser,
    decoder: type[Any],
    fail: Callable[[Any], None],
) -> Turn:
    """A request streamed to ``recogniser`` whose decoder (of class ``decoder``) fails at
    its fifth piece (``fail(it)``): nothing was asked of the assistant, nothing acted."""
    fed: list[int] = []
    real = decoder.feed

    def failing(self: Any, pcm: bytes) -> None:
        fed.append(len(pcm))
        if len(fed) == 5:
            fail(self)
        real(self, pcm)

    monkeypatch.setattr(decoder, "feed", failing)
    turns, asked = converse(Counting(recogniser), padded(speak(SAID)))
    monkeypatch.undo()
    assert len(fed) >= 5
    assert [t.problem for t in turns] == ["failed:recogniser"]
    assert turns[0].outcome == "failed" and turns[0].answer is None
    assert asked.texts == []  # nothing was asked, so nothing acted
    return turns[0]


def test_a_decoder_failing_in_the_middle_of_a_stream_does_nothing(
    demo: PocketsphinxRecogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(_decoder: ModelDecoder) -> None:
        raise RuntimeError("the search ran out of memory")

    turn = converse_failing(monkeypatch, demo, ModelDecoder, fail)
    assert "the recogniser failed in the middle of a request" in turn.said
    assert asyncio.run(demo.transcribe(speak(SAID))).text == SAID  # the decoder is free


def test_a_recogniser_that_cannot_stream_hears_the_whole(demo: PocketsphinxRecogniser) -> None:
    @dataclass
    class Whole:
        name: str = "whole only"

        async def transcribe(self, audio: Audio) -> Heard:
            return await demo.transcribe(audio)

    turns, asked = converse(Whole(), padded(speak(SAID)))
    assert [t.heard.text for t in turns] == [SAID] and asked.texts == [SAID]


@dataclass
class Measured:
    """A stream that counts the sound it is handed."""

    inner: RecognitionStream
    fed: list[int] = field(default_factory=list)

    def feed(self, chunk: Audio) -> None:
        self.fed.append(len(chunk.pcm))
        self.inner.feed(chunk)

    async def finish(self) -> Heard:
        return await self.inner.finish()

    async def cancel(self) -> None:
        await self.inner.cancel()


def test_a_request_is_heard_from_the_pre_roll_not_from_when_listening_started(
    demo: PocketsphinxRecogniser,
) -> None:
    """Three seconds of a quiet room, then the request: the stream is handed the
    request and `end_of_speech.preroll_s` (1 s) before the detector heard it start."""
    streams: list[Measured] = []

    @dataclass
    class Measuring(Counting):
        def open(self) -> RecognitionStream:
            streams.append(Measured(self.inner.open()))
            return streams[-1]

    speech = speak(SAID)
    _turns, asked = converse(Measuring(demo), padded(speech, before_s=3.0))
    assert asked.texts == [SAID]
    fed_s = sum(streams[0].fed) / 32000
    assert speech.seconds < fed_s < speech.seconds + 1.0 + 1.0  # the pre-roll, the silence
