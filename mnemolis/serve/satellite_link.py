"""One wyoming-satellite, driven as Home Assistant drives it.

The daemon connects, asks ``describe`` (the satellite's name and area) and
sends ``run-satellite``. The satellite answers ``run-pipeline``: from the
``wake`` stage when it streams all the time (the daemon hears the wake word),
from ``asr`` when it heard its own wake word; then its microphone's
``audio-chunk``s. They drive a `Listener` (end of speech); the request is
recognised, asked with the satellite's area as its origin and its own
conversation, and answered back in the protocol's order: ``detection``,
``voice-started``, ``voice-stopped``, ``transcript``, ``synthesize``, then
the spoken answer as ``audio-start``/``audio-chunk``/``audio-stop``. After a
question ("Do you want me to open the garage door?") the transcript is held
back, so a satellite that woke on its own keeps streaming, and the next
request needs no wake word. What the microphone hears while the answer
plays (its own speaker) is dropped.

A satellite that goes away is reconnected to (its restart is an outage, said
once in the log, and its return); one that floods audio (faster than real
time) or sends what the protocol does not allow is cut off with the reason
in an ``error`` event, and tried again later. Nothing one satellite does
holds up another: each has its own task, and answering runs beside reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wyoming.asr import Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.pipeline import RunPipeline
from wyoming.satellite import RunSatellite
from wyoming.tts import Synthesize
from wyoming.vad import VoiceStarted, VoiceStopped
from wyoming.wake import Detection

from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Outcome
from mnemolis.serve.daemon import Unavailable
from mnemolis.serve.satellite_audio import AudioIn, CutOff
from mnemolis.serve.wyoming_events import BadEvent, read_event, write_event
from mnemolis.serve.wyoming_voice import audio_events

if TYPE_CHECKING:
    from mnemolis.core.heard import Heard
    from mnemolis.runtime.answer import Answer
    from mnemolis.serve.daemon import Daemon
    from mnemolis.serve.daemon_voice import DaemonVoice
    from mnemolis.serve.satellite_settings import SatelliteSettings
    from mnemolis.serve.settings import Limits
    from mnemolis.voice.engines import VoiceKit
    from mnemolis.voice.listener import Listener
    from mnemolis.voice.pipeline import Turn
    from mnemolis.voice.stages import Audio

log = logging.getLogger(__name__)

FRONT_END = "satellite"
CONNECT_TIMEOUT_S = 5.0
#: Seconds between attempts to reach a satellite that is down, the last one repeated.
RECONNECT_S = (0.5, 1.0, 2.0, 5.0)
#: After the answer was sent, its length and this much more is the satellite's own voice.
ECHO_MARGIN_S = 0.3
TURNS_KEPT = 200
#: A connection that lasted this long was working: its loss is news, and reconnecting
#: starts again from the shortest wait. One that breaks sooner keeps backing off, quietly.
STABLE_S = 30.0


@dataclass
class TurnRecord:
    """A request a satellite heard, for the log, the tests and the benchmark."""

    heard: str
    confidence: float
    said: str
    outcome: str
    #: from the end of speech to the first chunk of the spoken answer sent back
    first_audio_ms: float | None = None


class _Asker:
    """The daemon, as the voice pipeline's assistant: counted, logged, drained."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    async def ask(
        self,
        text: str,
        session: str = "default",
        origin: Origin | None = None,
        heard: Heard | None = None,
    ) -> Answer:
        async with self.daemon.request():
            return await self.daemon.ask(FRONT_END, text, session, origin, heard=heard)


class SatelliteLink:
    """The daemon's side of one satellite, for the daemon's whole life."""

    def __init__(
        self,
        settings: SatelliteSettings,
        daemon: Daemon,
        voice: DaemonVoice,
        limits: Limits,
        session: str,
    ) -> None:
        self.settings = settings
        self.name = settings.name
        self.daemon = daemon
        self.voice = voice
        self.limits = limits
        self.session = session  # its conversation: unguessable from any other front-end
        self.area = settings.area
        self.up = False
        self._was_up = False  # connected since the last loss
        self._up_since = 0.0
        self._said_down = False  # the log said it is down, and not yet that it is back
        self.outages = 0
        self.turns: deque[TurnRecord] = deque(maxlen=TURNS_KEPT)
        self._writer: asyncio.StreamWriter | None = None
        self._listener: Listener | None = None
        self._speak_answers = True
        self._woke_itself = False  # this run started at asr: the satellite heard its wake word
        self._audio = AudioIn()
        self._answering: asyncio.Task[None] | None = None
        self._deaf_until = 0.0  # monotonic: what the microphone hears before is our voice
        self._follow_up = False  # listen without the wake word once the answer has played
        self._speaking = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def origin(self) -> Origin:
        return Origin(FRONT_END, self.session, self.area, self.name)

    # ------------------------------------------------------------------ connection

    async def run(self) -> None:
        """Connect, serve, and reconnect after every loss, until cancelled."""
        attempt = 0
        while True:
            try:
                await self._serve()
                reason = "it closed the connection"
            except CutOff as exc:
                reason = f"cut off: {exc}"
            except BadEvent as exc:
                reason = f"it broke the protocol: {exc}"
            except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:
                reason = _why(exc)
            was_up, self._was_up = self._was_up, False
            stable = was_up and time.monotonic() - self._up_since >= STABLE_S
            if stable:
                attempt = 0  # a satellite that worked a while: reconnect quickly
            if stable or attempt == 0:
                self.outages += 1
                self._said_down = True
                log.warning(
                    "satellite %s (%s) is down: %s; trying again every %g s",
                    self.name,
                    self.settings.url,
                    reason,
                    RECONNECT_S[-1],
                )
            else:  # still down, or up a moment and broken again: said once already
                log.debug("satellite %s still down: %s", self.name, reason)
            await asyncio.sleep(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)])
            attempt += 1

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        address = self.settings.address
        limit = self.limits.max_body_bytes
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            if address.scheme == "unix":
                return await asyncio.open_unix_connection(address.path, limit=limit)
            reader, writer = await asyncio.open_connection(address.host, address.port, limit=limit)
        sock = writer.get_extra_info("socket")
        if sock is not None:  # a satellite that lost its power is noticed by the kernel
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return reader, writer

    async def _serve(self) -> None:
        reader, writer = await self._open()
        self._writer = writer
        try:
            await self._write(Describe().event())
            async with asyncio.timeout(CONNECT_TIMEOUT_S):
                while not Info.is_type((event := await self._read(reader)).type):
                    continue
            self._described(event)
            await self._write(RunSatellite().event())
            if self._said_down:
                log.warning("satellite %s is back", self.name)
            elif not self.outages:
                log.info("satellite %s connected (area %s)", self.name, self.area or "unknown")
            self._said_down = False
            self.up = self._was_up = True
            self._up_since = time.monotonic()
            self._audio.restart()
            while True:
                await self._on(await self._read(reader))
        except CutOff as exc:
            with contextlib.suppress(ConnectionError, OSError):
                await self._write(Error(text=str(exc), code=exc.code).event())
            raise
        finally:
            self.up = False
            self._writer = None
            self._listener = None  # a request half said is dropped; one being answered is
            writer.close()  # answered (it may act), and said if the satellite is back by then

    async def _read(self, reader: asyncio.StreamReader) -> Event:
        event = await read_event(reader, self.limits.max_body_bytes, self.limits.read_timeout_s)
        if event is None:
            raise ConnectionResetError("it closed the connection")
        return event

    async def _write(self, event: Event) -> None:
        if self._writer is None:
            raise ConnectionResetError("not connected")
        await write_event(self._writer, event)

    def _described(self, event: Event) -> None:
        satellite = event.data.get("satellite")
        if self.area is None and isinstance(satellite, dict):
            area = satellite.get("area")
            if isinstance(area, str) and area.strip():
                self.area = " ".join(area.lower().split())[:100]

    # ------------------------------------------------------------------ events

    async def _on(self, event: Event) -> None:
        if AudioChunk.is_type(event.type):
            await self._chunk(event)
        elif RunPipeline.is_type(event.type):
            await self._run_pipeline(event)
        elif AudioStart.is_type(event.type):
            self._audio.start(event)
        elif AudioStop.is_type(event.type):
            await self._stream_ended()
        elif Ping.is_type(event.type):
            text = event.data.get("text")
            await self._write(Pong(text=text if isinstance(text, str) else None).event())
        else:
            log.debug("satellite %s: ignored a %s event", self.name, event.type)

    async def _run_pipeline(self, event: Event) -> None:
        try:
            run = RunPipeline.from_event(event)
        except (KeyError, ValueError) as exc:
            raise CutOff(f"a run-pipeline event the protocol does not allow ({exc})") from exc
        try:
            kit = await self.voice.kit()
        except Exception as exc:  # StageError: the recogniser cannot be loaded (said once)
            error = Error(text=f"Mnemolis cannot listen: {exc}", code="stt-failed")
            await self._write(error.event())
            return
        from mnemolis.voice.listener import Listener

        self._woke_itself = run.start_stage != "wake"
        wake = None if self._woke_itself else kit.wake_word()
        self._listener = Listener(wake, kit.endpoint(), kit.settings)
        self._speak_answers = run.end_stage == "tts"
        self._audio.restart()

    async def _chunk(self, event: Event) -> None:
        audio = self._audio.chunk(event)  # CutOff for a flood; None for a format it cannot use
        listener = self._listener
        if audio is None or listener is None:
            return
        if self._answering is not None or time.monotonic() < self._deaf_until:
            listener.hear_only(audio)  # answering, or our own voice from its speaker
            return
        if self._follow_up:  # the question was asked: the reply needs no wake word
            self._follow_up = False
            listener.listen_now()
        for heard in listener.feed(audio):
            await self._listened(heard)

    async def _stream_ended(self) -> None:
        """``audio-stop``: the satellite stopped streaming (a timeout, or it was told to)."""
        if self._listener is not None and self._answering is None:
            ended = self._listener.finish()
            if ended is not None:
                await self._listened(ended)

    async def _listened(self, happened: object) -> None:
        from mnemolis.voice.events import NothingSaid, SpeechEnded, SpeechStarted, TooLong, Woke

        if isinstance(happened, Woke):
            await self._write(Detection(name=happened.wake_word).event())
        elif isinstance(happened, SpeechStarted):
            await self._write(VoiceStarted(timestamp=int(happened.at_s * 1000)).event())
        elif isinstance(happened, SpeechEnded):
            await self._write(VoiceStopped(timestamp=int(happened.at_s * 1000)).event())
            self._start_answer(happened.audio, time.monotonic())
        elif isinstance(happened, NothingSaid):
            if self._woke_itself:  # it streams until it gets a transcript
                await self._write(Transcript(text="").event())
        elif isinstance(happened, TooLong):
            self._start_answer(None, time.monotonic())

    # ------------------------------------------------------------------ answering

    def _start_answer(self, audio: Audio | None, ended: float) -> None:
        task = asyncio.create_task(self._answer(audio, ended), name=f"satellite {self.name}")
        self._answering = task

        def done(_task: asyncio.Task[None]) -> None:
            if self._answering is task:
                self._answering = None

        task.add_done_callback(done)

    async def _answer(self, audio: Audio | None, ended: float) -> None:
        """Recognise, ask, and say the answer back; ``None``: the request went on too long."""
        from mnemolis.voice.pipeline import VoicePipeline
        from mnemolis.voice.stages import StageError

        try:
            kit = await self.voice.kit()
        except StageError as exc:  # it was loaded when the run began; a rebuild may fail
            with contextlib.suppress(ConnectionError, OSError):
                await self._write(
                    Error(text=f"Mnemolis cannot listen: {exc}", code="stt-failed").event()
                )
            return
        pipeline = VoicePipeline(_Asker(self.daemon), kit, self.origin, _NoSink(), speak=False)
        try:
            if audio is None:
                turn = await pipeline.too_long(self.name)
            else:
                turn = await pipeline.answer(audio, self.name)
        except Unavailable as exc:
            turn = _unavailable(exc.message)
        except (ConnectionError, OSError):
            return
        waiting = asks_back(turn)
        record = TurnRecord(turn.heard.text, turn.heard.confidence, turn.said, turn.outcome)
        try:
            if not waiting:  # a satellite that woke itself stops streaming on a transcript
                await self._write(Transcript(text=turn.heard.text).event())
            if turn.problem is not None:
                await self._write(Error(text=turn.said, code=turn.problem).event())
            if turn.said and self._speak_answers:
                await self._write(Synthesize(text=turn.said).event())
                record.first_audio_ms = await self._say(kit, turn.said, ended)
        except (ConnectionError, OSError):
            return  # it went away mid-answer: the answer may have acted; nothing more to do
        finally:
            self._remember(record)
        self._follow_up = waiting  # "yes", "the bedroom light": once the question is heard

    def _remember(self, record: TurnRecord) -> None:
        self.turns.append(record)
        first = record.first_audio_ms
        log.info(
            "satellite %s heard %r (%.2f): %s [first audio %s]",
            self.name,
            record.heard,
            record.confidence,
            record.said[:120],
            "none" if first is None else f"{first:.0f} ms after the end of speech",
        )

    async def _say(self, kit: VoiceKit, text: str, since: float | None = None) -> float | None:
        """Speak ``text`` on the satellite; the milliseconds from ``since`` to its first
        chunk. A voice that fails is an ``error`` event, never a silent loss."""
        from mnemolis.voice.stages import StageError

        try:
            spoken = await kit.voice.synthesize(text)
        except StageError as exc:
            await self._write(Error(text=f"the voice failed: {exc}", code="tts-failed").event())
            return None
        async with self._speaking:  # an announcement and an answer never interleave
            first = await self.play(spoken)
        return (first - since) * 1000 if since is not None else None

    async def play(self, spoken: Audio) -> float:
        """The sound as ``audio-start``, chunks, ``audio-stop``; when the first chunk left."""
        first = time.monotonic()
        for number, event in enumerate(audio_events(spoken)):
            if number == 1:
                first = time.monotonic()
            await self._write(event)
        self._deaf_until = time.monotonic() + spoken.seconds + ECHO_MARGIN_S
        return first

    def say(self, text: str) -> bool:
        """An announcement, spoken here now; False when the satellite is down."""
        kit = self.voice.loaded
        if not self.up or kit is None:
            return False
        task = asyncio.create_task(self._announce(kit, text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _announce(self, kit: VoiceKit, text: str) -> None:
        try:
            await self._write(Synthesize(text=text).event())
            await self._say(kit, text)
        except (ConnectionError, OSError) as exc:
            log.warning("satellite %s went away while saying %r: %s", self.name, text[:80], exc)


class _NoSink:
    """The pipeline does not play: the link sends the answer as Wyoming audio itself."""

    async def play(self, audio: Audio) -> None:
        return None


def asks_back(turn: Turn) -> bool:
    """The answer waits for a reply: a yes ("Do you want me to ...?", "Did you say ...?")
    or a choice ("Which one do you mean: ...?")."""
    if turn.answer is None:
        return False
    return turn.answer.outcome is Outcome.WAITING or turn.said.rstrip().endswith("?")


def _unavailable(message: str) -> Turn:
    from mnemolis.core.heard import Heard
    from mnemolis.voice.pipeline import Turn

    return Turn(Heard("", 0.0, rejected="busy"), None, message, problem="busy")


def _why(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "it did not answer in time"
    if isinstance(exc, ConnectionRefusedError):
        return "nothing listens at its address (is wyoming-satellite running?)"
    return str(exc) or type(exc).__name__
