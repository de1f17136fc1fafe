"""One spoken turn, and a conversation over a stream: the stages joined up.

`VoicePipeline.answer` takes one request's sound: it is checked (clipped?
any speech at all?), recognised, handed to the assistant with where it was
said and what was heard (`Assistant.ask(..., heard=)`: a doubtful action is
asked back there), and the answer is spoken. `converse` runs a stream
through a `Listener` (wake word, end of speech), answers each request, and
listens again without the wake word when the answer asks a question. One
pipeline per stream (per satellite); the engines it shares come from a
`VoiceKit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from mnemolis.core.heard import Heard
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Answer, Outcome
from mnemolis.voice.audio import Level, level
from mnemolis.voice.engines import VoiceKit
from mnemolis.voice.events import Event, NothingSaid, SpeechEnded, SpeechStarted, TooLong, Woke
from mnemolis.voice.listener import Listener
from mnemolis.voice.stages import (
    PIPELINE_FORMAT,
    Audio,
    AudioSink,
    AudioSource,
    BadAudio,
    RecognitionStream,
    StageError,
    StreamingRecogniser,
)

#: `Turn.outcome` besides an answer's outcomes.
BAD_AUDIO = "bad_audio"
ENGINE_FAILED = "failed"


@dataclass
class Turn:
    """One request as heard and answered (or why it was not)."""

    heard: Heard
    answer: Answer | None = None
    #: what was said back: the answer, or why nothing was done
    said: str = ""
    spoken: Audio | None = None
    #: "bad_audio:<reason>" or "failed:<stage>" when the sound or an engine let it down
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    name: str = ""  # the file, or "microphone"

    @property
    def outcome(self) -> str:
        if self.answer is not None:
            return str(self.answer.outcome)
        if self.problem and self.problem.startswith(BAD_AUDIO):
            return BAD_AUDIO
        return ENGINE_FAILED if self.problem else str(Outcome.NOT_UNDERSTOOD)

    def to_dict(self) -> dict[str, Any]:
        """What `ask --json` prints, plus what was heard (and per-stage milliseconds)."""
        if self.answer is not None:
            out = self.answer.to_dict()
        else:
            out = {"query": self.heard.text, "answer": self.said, "parts": [], "ms": 0.0}
            out["outcome"] = self.outcome
        out["notes"] = [*out.get("notes", []), *self.notes]
        out["heard"] = self.heard.to_dict()
        if self.problem:
            out["problem"] = self.problem
        if self.name:
            out["file"] = self.name
        return out


class Asker(Protocol):
    """Who answers what was heard: the `Assistant`, or the daemon in front of it."""

    async def ask(
        self,
        text: str,
        session: str = ...,
        origin: Origin | None = ...,
        heard: Heard | None = ...,
    ) -> Answer: ...


class VoicePipeline:
    """The stages for one stream: its listener, and the kit's shared engines."""

    def __init__(
        self,
        assistant: Asker,
        kit: VoiceKit,
        origin: Origin,
        sink: AudioSink,
        speak: bool = True,
        stream: bool = True,
        keep_preroll: bool = False,
    ) -> None:
        self.assistant = assistant
        self.kit = kit
        self.origin = origin
        self.sink = sink
        self.speak = speak
        self.settings = kit.settings
        #: hear a request from a stream while it is said, when the recogniser can
        #: (`StreamingRecogniser`); False: decode the whole request at its end
        self.stream = stream
        #: hear everything since listening started, not only `end_of_speech.preroll_s`
        #: before speech started (as before it was a setting: for comparison)
        self.preroll_s = None if keep_preroll else self.settings.speech.preroll_s
        self._hearing = Hearing(None, None, None)

    # ------------------------------------------------------------------ one request

    def check(self, audio: Audio) -> Heard | None:
        """Sound that is not worth a recogniser: too loud to trust (`BadAudio`), or with
        no speech in it (a rejected `Heard`); None when it may hold a request."""
        measured = self.check_level(audio)
        endpoint = self.kit.endpoint()
        endpoint.process(audio)
        if endpoint.started:
            return None
        floor = self.settings.speech.floor_dbfs
        reason = "silence" if measured.rms_dbfs < floor else "no speech, only noise"
        return Heard("", 0.0, rejected=reason, engine="end of speech")

    def check_level(self, audio: Audio) -> Level:
        """`BadAudio` when the sound is too loud to trust (clipped)."""
        measured = level(audio)
        if measured.clipped > self.settings.limits.clipped_fraction:
            raise BadAudio(
                f"the sound is clipped ({measured.clipped:.0%} of it at full scale): speak "
                "further from the microphone or turn its gain down (alsamixer)",
                "clipped",
            )
        return measured

    async def answer(self, audio: Audio, name: str = "", notes: list[str] | None = None) -> Turn:
        """Hear one request (the whole of ``audio``) and answer it."""
        notes = list(notes or [])
        ms: dict[str, float] = {}
        started = time.perf_counter()
        try:
            rejected = self.check(audio)
        except BadAudio as exc:
            return await self.refused(exc, name, notes)
        ms["check"] = _since(started)
        if rejected is not None:
            heard = rejected
        else:
            began = time.perf_counter()
            try:
                heard = await self.kit.recogniser.transcribe(audio)
            except StageError as exc:
                return await self.failed("recogniser", exc, name, notes)
            ms["recognise"] = _since(began)
        return await self.reply(heard, ms, name, notes)

    async def answer_streamed(
        self, stream: RecognitionStream, audio: Audio, name: str = "", earcon: bool = False
    ) -> Turn:
        """Answer a request heard while it was said (``audio`` is all of it, already fed to
        ``stream``): its end is decoded while the stop earcon plays. The end-of-speech
        detector that ended it also started it, so only the level is checked again."""
        ms: dict[str, float] = {}
        started = time.perf_counter()
        try:
            self.check_level(audio)
        except BadAudio as exc:
            await stream.cancel()
            return await self.refused(exc, name, [])
        ms["check"] = _since(started)
        began = time.perf_counter()
        finishing = asyncio.ensure_future(stream.finish())
        if earcon:
            await self._earcon(False)
        try:
            heard = await finishing
        except StageError as exc:
            return await self.failed("recogniser", exc, name, [])
        ms["recognise"] = _since(began)
        return await self.reply(heard, ms, name, [])

    async def reply(self, heard: Heard, ms: dict[str, float], name: str, notes: list[str]) -> Turn:
        """Hand what was heard to the assistant, and speak its answer."""
        began = time.perf_counter()
        answer = await self.assistant.ask(heard.text, self.origin.session, self.origin, heard=heard)
        ms["answer"] = _since(began)
        turn = Turn(heard, answer, answer.text, notes=notes, name=name)
        await self.say(turn, ms)
        turn.heard = dataclasses.replace(heard, ms={**heard.ms, **ms})
        return turn

    async def say(self, turn: Turn, ms: dict[str, float] | None = None) -> None:
        """Speak what the turn says, and play it; a voice that fails is a note, not a loss
        of the answer (which may already have acted)."""
        if not self.speak or not turn.said:
            return
        began = time.perf_counter()
        try:
            turn.spoken = await self.kit.voice.synthesize(turn.said)
            if ms is not None:
                ms["voice"] = _since(began)
            await self.sink.play(turn.spoken)
        except StageError as exc:
            turn.notes.append(self.settings.say("engine_failed", stage="voice", reason=str(exc)))

    async def refused(self, problem: BadAudio, name: str, notes: list[str]) -> Turn:
        """Sound that cannot be a request: said why, nothing done."""
        said = self.settings.say("bad_audio", reason=str(problem))
        heard = Heard("", 0.0, rejected=problem.reason, engine="audio check")
        turn = Turn(heard, None, said, problem=f"{BAD_AUDIO}:{problem.reason}", notes=notes)
        turn.name = name
        await self.say(turn)
        return turn

    async def too_long(self, name: str) -> Turn:
        """A request that went on past ``limits.max_request_s``: cut there, nothing done."""
        limit = self.settings.limits.max_request_s
        problem = BadAudio(
            f"the request went on for longer than {limit:g} s (limits.max_request_s), "
            "so it was cut there",
            "too_long",
        )
        return await self.refused(problem, name, [])

    async def no_wake_word(self, name: str, wake_word: str) -> Turn:
        """A recording (``--wav --wake``) in which the wake word was not heard."""
        said = self.settings.say("no_wake_word", wake_word=wake_word)
        heard = Heard("", 0.0, rejected="no wake word", engine="wake word")
        turn = Turn(heard, None, said, name=name)
        await self.say(turn)
        return turn

    async def failed(self, stage: str, error: StageError, name: str, notes: list[str]) -> Turn:
        said = self.settings.say("engine_failed", stage=stage, reason=str(error))
        heard = Heard("", 0.0, rejected=f"the {stage} failed", engine=stage)
        turn = Turn(heard, None, said, problem=f"{ENGINE_FAILED}:{stage}", notes=notes, name=name)
        await self.say(turn)
        return turn

    # ------------------------------------------------------------------ a stream

    async def converse(
        self,
        source: AudioSource,
        on_turn: Callable[[Turn], None],
        on_event: Callable[[Event], None] | None = None,
        wake: bool = True,
        live: bool = True,
        turns: int | None = None,
    ) -> None:
        """Listen to ``source`` until it ends (or ``turns`` were answered): wake word,
        request, answer, and a follow-up without the wake word after a question. ``live``:
        what arrived while a request was being answered and spoken is dropped (the
        microphone hears the speaker)."""
        listener = Listener(
            self.kit.wake_word() if wake else None, self.kit.endpoint(), self.settings
        )
        queue: asyncio.Queue[tuple[Audio, float] | None] = asyncio.Queue()
        reader = asyncio.create_task(_read(source, queue))
        self._hearing = Hearing(listener, self._streaming_recogniser(), self.preroll_s)
        answered = 0
        busy = (0.0, 0.0)  # while answering: what the microphone heard then is dropped
        try:
            while (item := await queue.get()) is not None:
                chunk, arrived = item
                if live and busy[0] <= arrived <= busy[1]:
                    listener.hear_only(chunk)  # the assistant's own voice, not a request
                    continue
                for event in listener.feed(chunk):
                    if on_event is not None:
                        on_event(event)
                    began = time.monotonic()
                    turn = await self._on(event)
                    busy = (began, time.monotonic())
                    if turn is None:
                        continue
                    on_turn(turn)
                    answered += 1
                    if turns is not None and answered >= turns:
                        return
                    if turn.answer is not None and turn.answer.outcome is Outcome.WAITING:
                        listener.listen_now()  # "Do you want me to ...?": no wake word
                self._hearing.follow()
            ended = listener.finish()  # the stream ended in the middle of a request
            if ended is not None:
                turn = await self._on(ended)
                if turn is not None:
                    on_turn(turn)
        finally:
            await self._hearing.cancel()
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            await source.close()
        error = reader.exception() if reader.done() and not reader.cancelled() else None
        if error is not None:  # the microphone went missing, or was never there
            raise error

    def _streaming_recogniser(self) -> StreamingRecogniser | None:
        recogniser = self.kit.recogniser
        if self.stream and isinstance(recogniser, StreamingRecogniser):
            return recogniser
        return None

    async def _on(self, event: Event) -> Turn | None:
        if isinstance(event, SpeechStarted):
            await self._hearing.start()
        elif isinstance(event, Woke):
            await self._earcon(True)
        elif isinstance(event, SpeechEnded):
            audio = self._hearing.request(event.audio)
            stream = self._hearing.end(event.audio)
            if stream is not None:
                return await self.answer_streamed(stream, audio, "microphone", True)
            await self._earcon(False)
            return await self.answer(audio, "microphone")
        elif isinstance(event, TooLong):
            await self._hearing.cancel()
            return await self.too_long("microphone")
        elif isinstance(event, NothingSaid):
            await self._earcon(False)
        return None

    async def _earcon(self, start: bool) -> None:
        sound = self.kit.earcon(start)
        if sound is not None and self.speak:
            with contextlib.suppress(StageError):  # a missing tone: no reason to stop listening
                await self.sink.play(sound)


class Hearing:
    """The request being heard: from ``preroll_s`` before speech started (the detector
    starts late; None: from when listening started), and, with a streaming recogniser, a
    `RecognitionStream` opened when speech starts, handed that pre-roll at once (so it
    hears exactly the audio a whole-request decode would) and then each new piece, up to
    the end of speech."""

    def __init__(
        self,
        listener: Listener | None,
        recogniser: StreamingRecogniser | None,
        preroll_s: float | None,
    ) -> None:
        self.listener = listener
        self.recogniser = recogniser
        rate = PIPELINE_FORMAT.bytes_per_second
        self.preroll = None if preroll_s is None else int(preroll_s * rate) // 2 * 2
        self.stream: RecognitionStream | None = None
        self.first = 0  # where the request heard starts, in bytes since listening started
        self.fed = 0  # bytes of the request handed to the stream

    async def start(self) -> None:
        """Speech started: the request is heard from here, less the pre-roll."""
        if self.listener is None:
            return
        held = self.listener.request_bytes
        self.first = 0 if self.preroll is None else max(0, held - self.preroll)
        if self.recogniser is None:
            return
        await self.cancel()  # one not ended nor cut (it cannot happen): never two at once
        self.stream, self.fed = self.recogniser.open(), self.first
        self.follow()

    def request(self, audio: Audio) -> Audio:
        """The part of a `SpeechEnded`'s sound that is heard."""
        return Audio(audio.pcm[self.first :], audio.format)

    def follow(self) -> None:
        """Hand the stream what the listener added to the request since last time."""
        if self.stream is None or self.listener is None or not self.listener.in_request:
            return
        pcm = self.listener.request_since(self.fed)
        if pcm:
            self.stream.feed(Audio(pcm))
            self.fed += len(pcm)

    def end(self, audio: Audio) -> RecognitionStream | None:
        """The request ended (``audio``, all of it): the stream, fed to its end."""
        stream, self.stream = self.stream, None
        if stream is not None and len(audio.pcm) > self.fed:
            stream.feed(Audio(audio.pcm[self.fed :]))
        self.first = 0
        return stream

    async def cancel(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await stream.cancel()


async def _read(source: AudioSource, queue: asyncio.Queue[tuple[Audio, float] | None]) -> None:
    """The source's chunks, each with when it arrived (to drop what came while answering)."""
    try:
        async for chunk in source.chunks():
            await queue.put((chunk, time.monotonic()))
    finally:
        await queue.put(None)


def _since(began: float) -> float:
    return (time.perf_counter() - began) * 1000
