"""The daemon's recogniser and voice as Wyoming ``asr`` and ``tts`` services, beside
``handle`` on the same port: Home Assistant or a Rhasspy can hear with the recogniser
personalised from Mnemolis's configuration and speak with its voice.

``asr``: ``transcribe`` (optional), ``audio-start``, ``audio-chunk``s, ``audio-stop``;
the answer is a ``transcript`` whose ``context`` carries ``confidence``,
``alternatives`` and, for speech it could not hear, ``rejected``. Home Assistant
sends that text back to the ``handle`` service without the context, so what was
heard is also remembered for a minute (`Hearings`): the transcript that comes back
is asked with it, and a doubtful action is asked back ("Did you say ...?") as it is
on a microphone. ``tts``: ``synthesize`` is answered with ``audio-start``,
``audio-chunk``s (16 kHz, 16-bit, mono) and ``audio-stop``.

Bad input is an ``error`` event with a code, and the connection stays usable: audio
in a format that cannot be converted (``unsupported_audio``), a request longer than
``limits.max_request_s`` of ``sources/voice.yaml`` (``too_long``, the rest of it is
dropped), audio with no ``audio-start`` after a finished one, text too long to say
(``too_long``), an engine that failed (``asr-failed``, ``tts-failed``).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.tts import Synthesize

from mnemolis.core.heard import Heard
from mnemolis.serve.satellite_audio import AudioIn

if TYPE_CHECKING:
    from mnemolis.serve.daemon_voice import DaemonVoice
    from mnemolis.voice.stages import Audio

log = logging.getLogger(__name__)

Write = Callable[[Event], Awaitable[None]]

#: How long a transcript this service made is remembered for the handle service.
HEARD_FOR_S = 60.0
MAX_HEARINGS = 256
SAMPLES_PER_CHUNK = 1024


def _key(text: str) -> str:
    return " ".join(text.lower().split())


class Hearings:
    """What the ``asr`` service heard lately, by its text, for the ``handle`` service."""

    def __init__(self) -> None:
        self._heard: OrderedDict[str, tuple[Heard, float]] = OrderedDict()

    def add(self, heard: Heard) -> None:
        if not heard.text:
            return
        self._heard[_key(heard.text)] = (heard, time.monotonic())
        self._heard.move_to_end(_key(heard.text))
        while len(self._heard) > MAX_HEARINGS:
            self._heard.popitem(last=False)

    def take(self, text: str) -> Heard | None:
        """What was heard as ``text`` in the last minute (once), else None."""
        found = self._heard.pop(_key(text), None)
        if found is None or time.monotonic() - found[1] > HEARD_FOR_S:
            return None
        return found[0]


def heard_in(context: Any) -> Heard | None:
    """A confidence a transcript's context carries back (a client that kept ours)."""
    if not isinstance(context, dict):
        return None
    confidence = context.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    return Heard("", max(0.0, min(1.0, float(confidence))), engine="wyoming asr (context)")


class Listening:
    """One connection's request being streamed to the ``asr`` service."""

    def __init__(self) -> None:
        self.audio = AudioIn(real_time=False)  # a client may send a recording at once
        self.pcm: list[bytes] = []
        self.seconds = 0.0
        self.open = False
        self.refused: str | None = None  # why the rest of this request is dropped


class WyomingVoice:
    """The ``asr`` and ``tts`` services of one Wyoming listener."""

    def __init__(
        self, voice: DaemonVoice, asr: bool, tts: bool, language: str, max_text_chars: int
    ) -> None:
        self.voice = voice
        self.asr = asr
        self.tts = tts
        self.language = language
        self.max_text_chars = max_text_chars
        self.hearings = Hearings()

    def handles(self, event: Event) -> bool:
        if self.asr and (
            Transcribe.is_type(event.type)
            or AudioStart.is_type(event.type)
            or AudioChunk.is_type(event.type)
            or AudioStop.is_type(event.type)
        ):
            return True
        return self.tts and Synthesize.is_type(event.type)

    async def handle(self, event: Event, listening: Listening, write: Write) -> None:
        if Synthesize.is_type(event.type):
            await self._synthesize(event, write)
        elif Transcribe.is_type(event.type) or AudioStart.is_type(event.type):
            self._begin(listening)
        elif AudioChunk.is_type(event.type):
            await self._chunk(event, listening, write)
        elif AudioStop.is_type(event.type):
            await self._transcribe(listening, write)

    # ------------------------------------------------------------------ asr

    @staticmethod
    def _begin(listening: Listening) -> None:
        listening.pcm, listening.seconds, listening.refused = [], 0.0, None
        listening.open = True

    async def _chunk(self, event: Event, listening: Listening, write: Write) -> None:
        if not listening.open:
            self._begin(listening)  # audio without audio-start: the chunk says its format
        if listening.refused is not None:
            return
        audio = listening.audio.chunk(event)
        if audio is None:
            listening.refused = "unsupported_audio"
            data = event.data
            message = (
                f"audio of {data.get('rate')!r} Hz, {data.get('width')!r} bytes a sample and "
                f"{data.get('channels')!r} channels cannot be converted (8-192 kHz, 1-4 "
                "bytes, 1-8 channels can)"
            )
            await write(Error(text=message, code="unsupported_audio").event())
            return
        limit = await self._max_request_s()
        listening.seconds += audio.seconds
        if listening.seconds > limit:
            listening.refused, listening.pcm = "too_long", []
            message = f"a request is at most {limit:g} s (limits.max_request_s); it was cut there"
            await write(Error(text=message, code="too_long").event())
            return
        listening.pcm.append(audio.pcm)

    async def _max_request_s(self) -> float:
        kit = self.voice.loaded
        return kit.settings.limits.max_request_s if kit is not None else 20.0

    async def _transcribe(self, listening: Listening, write: Write) -> None:
        from mnemolis.voice.stages import Audio, StageError

        refused, pcm = listening.refused, b"".join(listening.pcm)
        listening.open, listening.pcm, listening.refused = False, [], None
        if refused is not None:
            return  # said when it happened
        try:
            kit = await self.voice.kit()
            heard = await kit.recogniser.transcribe(Audio(pcm)) if pcm else _nothing()
        except StageError as exc:
            await write(Error(text=f"the recogniser failed: {exc}", code="asr-failed").event())
            return
        self.hearings.add(heard)
        context: dict[str, Any] = {
            "confidence": round(heard.confidence, 3),
            "alternatives": list(heard.alternatives),
        }
        if heard.rejected:
            context["rejected"] = heard.rejected
        await write(Transcript(heard.text, context=context, language=self.language).event())

    # ------------------------------------------------------------------ tts

    async def _synthesize(self, event: Event, write: Write) -> None:
        from mnemolis.voice.stages import StageError

        text = event.data.get("text")
        if not isinstance(text, str) or not text.strip():
            await write(Error(text="synthesize needs text", code="bad_event").event())
            return
        if len(text) > self.max_text_chars:
            message = f"the text is longer than {self.max_text_chars} characters"
            await write(Error(text=message, code="too_long").event())
            return
        try:
            kit = await self.voice.kit()
            spoken = await kit.voice.synthesize(text)
        except StageError as exc:
            await write(Error(text=f"the voice failed: {exc}", code="tts-failed").event())
            return
        for out in audio_events(spoken):
            await write(out)


def audio_events(spoken: Audio) -> list[Event]:
    """Sound as the protocol sends it: ``audio-start``, chunks, ``audio-stop``."""
    fmt = spoken.format
    size = SAMPLES_PER_CHUNK * fmt.width * fmt.channels
    shape = {"rate": fmt.rate, "width": fmt.width, "channels": fmt.channels}
    return [
        AudioStart(**shape).event(),
        *(
            AudioChunk(audio=spoken.pcm[i : i + size], **shape).event()
            for i in range(0, len(spoken.pcm), size)
        ),
        AudioStop().event(),
    ]


def _nothing() -> Heard:
    return Heard("", 0.0, rejected="no sound", engine="wyoming asr")
