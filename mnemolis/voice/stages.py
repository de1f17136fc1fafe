"""The stages of the voice pipeline, one protocol each, and the audio they pass on.

Audio between stages is raw little-endian PCM described by `AudioFormat`; inside
the pipeline it is 16 kHz, 16-bit, mono (what every recogniser and wake word
here expects), converted once where it comes in. An engine is embedded (in this
process) or remote (Wyoming, by URI); both implement the same protocol, so a
front-end never knows which it has.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from mnemolis.core.heard import Heard


@dataclass(frozen=True)
class AudioFormat:
    """Raw PCM: samples a second, bytes a sample, channels."""

    rate: int = 16000
    width: int = 2
    channels: int = 1

    @property
    def bytes_per_second(self) -> int:
        return self.rate * self.width * self.channels


#: The pipeline's own format: every stage takes and gives this.
PIPELINE_FORMAT = AudioFormat()


@dataclass(frozen=True)
class Audio:
    """A piece of sound: raw PCM bytes in a known format."""

    pcm: bytes
    format: AudioFormat = PIPELINE_FORMAT

    @property
    def seconds(self) -> float:
        return len(self.pcm) / self.format.bytes_per_second


class StageError(Exception):
    """An engine that cannot do its job (down, missing, answered nonsense): a clear
    sentence for the person, never a traceback."""


class BadAudio(StageError):
    """Sound that cannot be used as a request: not a WAV file, empty, truncated, too
    long, clipped, or a microphone that is missing or busy. Nothing is acted on."""

    def __init__(self, sentence: str, reason: str) -> None:
        super().__init__(sentence)
        #: a short machine-readable word: "not_wav", "empty", "truncated", "too_long", ...
        self.reason = reason


@runtime_checkable
class AudioSource(Protocol):
    """Where sound comes from: a microphone, a WAV file, a satellite's stream."""

    def chunks(self) -> AsyncIterator[Audio]:
        """Pipeline-format chunks until the source ends (a file) or is closed."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class WakeWord(Protocol):
    """Listens for a wake word in a stream of chunks."""

    name: str

    def process(self, chunk: Audio) -> str | None:
        """The wake word heard in this chunk (its name), else None."""
        ...

    def reset(self) -> None: ...


@runtime_checkable
class EndOfSpeech(Protocol):
    """Voice activity: where a request starts and where it has ended."""

    def process(self, chunk: Audio) -> bool:
        """True once the speech that started has ended (silence long enough after it)."""
        ...

    @property
    def started(self) -> bool: ...

    def reset(self) -> None: ...


@runtime_checkable
class Recogniser(Protocol):
    """Speech to text: one whole utterance in, what was heard out (files, and engines
    that cannot stream, as a Wyoming one; see `StreamingRecogniser`)."""

    name: str

    async def transcribe(self, audio: Audio) -> Heard:
        """What was said; ``Heard.text`` empty (with ``rejected``) when it was none of
        the requests the recogniser knows, silence or noise. Raises `StageError` only
        when the engine itself fails."""
        ...


@runtime_checkable
class RecognitionStream(Protocol):
    """One request heard while it is said: pieces in as they arrive, what was heard at
    its end. `feed` must return at once (the decoding runs elsewhere)."""

    def feed(self, chunk: Audio) -> None:
        """The next piece of the request (pipeline audio, in order)."""
        ...

    async def finish(self) -> Heard:
        """The request has ended: what was heard, as `Recogniser.transcribe` would say
        it of the whole. Raises `StageError` when the engine failed at any point."""
        ...

    async def cancel(self) -> None:
        """Nothing will be heard (the request was cut or refused): let the engine go."""
        ...


@runtime_checkable
class StreamingRecogniser(Recogniser, Protocol):
    """A recogniser that can also hear a request as it is said (a microphone, a
    satellite's stream), so that little is left to decode at the end of speech."""

    def open(self) -> RecognitionStream:
        """A new request; `finish` or `cancel` it."""
        ...


@runtime_checkable
class Voice(Protocol):
    """Text to speech."""

    name: str

    async def synthesize(self, text: str) -> Audio:
        """The sentence spoken, in the pipeline's format. Raises `StageError`."""
        ...


@runtime_checkable
class AudioSink(Protocol):
    """Where sound goes: a speaker, a WAV file, a satellite."""

    async def play(self, audio: Audio) -> None: ...
