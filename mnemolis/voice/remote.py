"""Engines on another machine over the Wyoming protocol: a recogniser (``asr``) and a
voice (``tts``), each implementing its stage's protocol (`stages.Recogniser`,
`stages.Voice`), so the pipeline never knows which it has.

Only the protocol's core messages are used (``transcribe``, ``audio-start``,
``audio-chunk``, ``audio-stop``, ``transcript``, ``synthesize``, ``error``),
which every engine in the wild speaks, from wyoming 1.2 to 1.10. An engine's
``describe`` ("installed", "ready") proves nothing: wyoming-piper without a
voice says it is ready and fails every request. So nothing is trusted until
it answers, and every answer is checked: a transcript must carry text, audio a
format that can be converted and some sound. What fails is a `StageError` with
a sentence saying which engine and what it did; `fallback` decides what then.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, async_write_event
from wyoming.tts import Synthesize, SynthesizeVoice

from mnemolis.core.heard import Heard
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, AudioFormat, StageError

#: The largest event an engine may send (an audio chunk is a few kilobytes).
MAX_EVENT_BYTES = 4 << 20
#: The most sound a voice may answer with, in seconds.
MAX_SPOKEN_S = 300.0
SAMPLES_PER_CHUNK = 1024


class Connection:
    """One exchange with a Wyoming service: its address, a deadline, bounded reads."""

    def __init__(self, uri: str, timeout_s: float, what: str) -> None:
        self.uri = uri
        self.timeout_s = timeout_s
        self.what = what  # "the recogniser at tcp://..." for the sentences
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> Connection:
        try:
            async with asyncio.timeout(self.timeout_s):
                if self.uri.startswith("unix://"):
                    path = self.uri.removeprefix("unix://")
                    self.reader, self.writer = await asyncio.open_unix_connection(path)
                else:
                    host, _, port = self.uri.removeprefix("tcp://").rpartition(":")
                    self.reader, self.writer = await asyncio.open_connection(
                        host.strip("[]"), int(port)
                    )
        except TimeoutError:
            raise StageError(f"{self.what} did not answer within {self.timeout_s:g} s") from None
        except OSError as exc:
            raise StageError(f"{self.what} cannot be reached: {exc.strerror or exc}") from exc
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self.writer is not None:
            self.writer.close()

    async def send(self, event: Event) -> None:
        assert self.writer is not None
        try:
            await async_write_event(event, self.writer)
        except OSError as exc:
            raise StageError(f"{self.what} went away: {exc}") from exc

    async def receive(self, deadline: float) -> Event:
        """The next event; `StageError` when the engine closes, is silent past the
        deadline, sends an error, or sends what is not the protocol."""
        assert self.reader is not None
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                event = await self._read(self.reader)
        except TimeoutError:
            raise StageError(f"{self.what} did not answer within {self.timeout_s:g} s") from None
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise StageError(f"{self.what} closed the connection before answering") from exc
        if Error.is_type(event.type):
            error = Error.from_event(event)
            raise StageError(f"{self.what} answered an error: {error.text} ({error.code})")
        return event

    async def _read(self, reader: asyncio.StreamReader) -> Event:
        line = await reader.readline()
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        try:
            header = json.loads(line)
        except ValueError:
            raise StageError(f"{self.what} answered what is not the Wyoming protocol") from None
        if not isinstance(header, dict) or not isinstance(header.get("type"), str):
            raise StageError(f"{self.what} answered an event without a type")
        given = header.get("data")
        data: dict[str, Any] = given if isinstance(given, dict) else {}
        lengths = [header.get("data_length") or 0, header.get("payload_length") or 0]
        if not all(isinstance(n, int) and n >= 0 for n in lengths) or sum(lengths) > (
            MAX_EVENT_BYTES
        ):
            raise StageError(f"{self.what} announced an event of {lengths} bytes")
        if lengths[0]:
            try:
                extra = json.loads(await reader.readexactly(lengths[0]))
            except ValueError:
                raise StageError(f"{self.what} answered data that is not JSON") from None
            if isinstance(extra, dict):
                data = {**data, **extra}
        payload = await reader.readexactly(lengths[1]) if lengths[1] else None
        return Event(type=header["type"], data=data, payload=payload)


class WyomingRecogniser:
    """`stages.Recogniser` over a Wyoming ``asr`` service."""

    def __init__(self, uri: str, timeout_s: float, language: str | None = None) -> None:
        self.uri = uri
        self.timeout_s = timeout_s
        self.language = language
        self.name = f"wyoming asr {uri}"

    async def transcribe(self, audio: Audio) -> Heard:
        started = time.perf_counter()
        async with Connection(self.uri, self.timeout_s, f"the recogniser at {self.uri}") as link:
            fmt = audio.format
            shape = {"rate": fmt.rate, "width": fmt.width, "channels": fmt.channels}
            await link.send(Transcribe(language=self.language).event())
            await link.send(AudioStart(**shape).event())
            size = SAMPLES_PER_CHUNK * fmt.width * fmt.channels
            for start in range(0, len(audio.pcm), size):
                await link.send(AudioChunk(audio=audio.pcm[start : start + size], **shape).event())
            await link.send(AudioStop().event())
            deadline = time.monotonic() + self.timeout_s
            while not Transcript.is_type((event := await link.receive(deadline)).type):
                continue  # transcript-start, transcript-chunk ... (streaming engines)
        text = event.data.get("text")
        if not isinstance(text, str):
            raise StageError(f"the recogniser at {self.uri} answered a transcript without text")
        ms = {"recognise": (time.perf_counter() - started) * 1000}
        confidence = _confidence(event.data.get("context"))
        text = " ".join(text.split())
        if not text:
            return Heard("", 0.0, rejected="the recogniser heard nothing", ms=ms, engine=self.name)
        return Heard(text, confidence, ms=ms, engine=self.name)


def _confidence(context: Any) -> float:
    """An engine's own confidence when its context has one (Mnemolis's asr service does);
    else 1.0: Whisper and its kind say nothing, and their text is taken as typed."""
    value = context.get("confidence") if isinstance(context, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return 1.0


class WyomingVoice:
    """`stages.Voice` over a Wyoming ``tts`` service (wyoming-piper and its kind)."""

    def __init__(self, uri: str, timeout_s: float, voice: str | None = None) -> None:
        self.uri = uri
        self.timeout_s = timeout_s
        self.voice = voice
        self.name = f"wyoming tts {uri}" + (f" ({voice})" if voice else "")

    async def synthesize(self, text: str) -> Audio:
        from mnemolis.voice.audio import to_pipeline

        what = f"the voice at {self.uri}"
        voice = SynthesizeVoice(name=self.voice) if self.voice else None
        pieces: list[bytes] = []
        fmt: AudioFormat | None = None
        async with Connection(self.uri, self.timeout_s, what) as link:
            await link.send(Synthesize(text=text, voice=voice).event())
            deadline = time.monotonic() + self.timeout_s
            while not AudioStop.is_type((event := await link.receive(deadline)).type):
                if AudioStart.is_type(event.type) or AudioChunk.is_type(event.type):
                    fmt = _format(event, fmt, what)
                if AudioChunk.is_type(event.type) and event.payload and fmt is not None:
                    pieces.append(event.payload)
                    spoken = sum(map(len, pieces)) / fmt.bytes_per_second
                    if spoken > MAX_SPOKEN_S:
                        raise StageError(f"{what} answered more than {MAX_SPOKEN_S:g} s of sound")
        if fmt is None or not any(pieces):
            raise StageError(f"{what} answered no sound")
        return (
            to_pipeline(b"".join(pieces), fmt)
            if fmt != PIPELINE_FORMAT
            else Audio(b"".join(pieces))
        )


def _format(event: Event, known: AudioFormat | None, what: str) -> AudioFormat:
    data = event.data
    rate, width, channels = data.get("rate"), data.get("width"), data.get("channels")
    if rate is None and known is not None:
        return known
    ok = (
        isinstance(rate, int)
        and 4000 <= rate <= 192000
        and width in (1, 2, 3, 4)
        and isinstance(channels, int)
        and 1 <= channels <= 8
    )
    if not ok:
        raise StageError(
            f"{what} answered audio in a format that cannot be used "
            f"(rate {rate!r}, width {width!r}, channels {channels!r})"
        )
    assert isinstance(rate, int) and isinstance(width, int) and isinstance(channels, int)
    return AudioFormat(rate, width, channels)
