"""What happens in a stream, as typed events: a front-end prints or sends them.

Times are stream seconds (counted in samples, not read from a clock), so a
WAV file, a microphone and a satellite's chunks give the same events for the
same sound. They map one to one onto Wyoming's events (`Detection`,
`VoiceStarted`, `VoiceStopped`, `Transcript`, `Synthesize`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.voice.stages import Audio


@dataclass(frozen=True)
class Woke:
    """The wake word was heard: listening starts."""

    wake_word: str
    at_s: float


@dataclass(frozen=True)
class SpeechStarted:
    at_s: float


@dataclass(frozen=True)
class SpeechEnded:
    """A request was heard whole: ``audio`` is it, from where listening started."""

    at_s: float
    audio: Audio


@dataclass(frozen=True)
class NothingSaid:
    """Listening started, but nothing was said within ``start_timeout_s``."""

    at_s: float


@dataclass(frozen=True)
class TooLong:
    """The request went on past ``limits.max_request_s``: cut there, nothing done."""

    at_s: float
    seconds: float


Event = Woke | SpeechStarted | SpeechEnded | NothingSaid | TooLong
