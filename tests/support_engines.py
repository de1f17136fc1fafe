"""Stand-ins for Wyoming engines that cannot run here (their models come from a hub):
servers speaking the real protocol with the `wyoming` package's own events, each in its
own thread and event loop. A Whisper stand-in hears with real pocketsphinx, a Piper
stand-in speaks with real espeak-ng at Piper's 22050 Hz, a wake stand-in listens with
the real pymicro-wakeword; and the engines that misbehave: one that says it is ready
and fails every request (as wyoming-piper does without its voice), one that never
answers, one that answers nonsense."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from wyoming.asr import Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, async_read_event, async_write_event
from wyoming.info import AsrModel, AsrProgram, Attribution, Describe, Info, TtsProgram, TtsVoice
from wyoming.tts import Synthesize
from wyoming.wake import Detection

from mnemolis.voice.stages import Audio
from mnemolis.voice.wake import MicroWakeWordEngine
from tests.support_voice import GrammarRecogniser, need

Handler = Callable[[Event, asyncio.StreamWriter], Awaitable[None]]


@contextmanager
def engine(make: Callable[[], Handler]) -> Iterator[str]:
    """A Wyoming server on a free loopback port, one ``make()`` handler a connection;
    its ``tcp://`` address."""
    ready = threading.Event()
    where: list[str] = []
    stop: list[Callable[[], None]] = []

    async def serve() -> None:
        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            handle = make()
            try:
                while (event := await async_read_event(reader)) is not None:
                    await handle(event, writer)
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(connected, "127.0.0.1", 0)
        where.append(f"tcp://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        finished = asyncio.Event()
        loop = asyncio.get_running_loop()
        stop.append(lambda: loop.call_soon_threadsafe(finished.set))
        ready.set()
        async with server:
            await finished.wait()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield where[0]
    finally:
        stop[0]()
        thread.join(10)


async def send(writer: asyncio.StreamWriter, *events: Event) -> None:
    for event in events:
        await async_write_event(event, writer)


def spoken_events(pcm: bytes, rate: int) -> list[Event]:
    shape = {"rate": rate, "width": 2, "channels": 1}
    size = 2048
    chunks = [
        AudioChunk(audio=pcm[i : i + size], **shape).event() for i in range(0, len(pcm), size)
    ]
    return [AudioStart(**shape).event(), *chunks, AudioStop().event()]


ABOUT = {"attribution": Attribution("", ""), "installed": True, "description": "", "version": "1"}


def described(kind: str, program: str, model: str) -> Event:
    """The ``info`` a real engine of ``kind`` answers ``describe`` with."""
    if kind == "asr":
        models = [AsrModel(name=model, languages=["en"], **ABOUT)]
        return Info(asr=[AsrProgram(name=program, models=models, **ABOUT)]).event()
    voices = [TtsVoice(name=model, languages=["en_US"], **ABOUT)]
    return Info(tts=[TtsProgram(name=program, voices=voices, **ABOUT)]).event()


def whisper(sentences: tuple[str, ...]) -> Callable[[], Handler]:
    """An ``asr`` like wyoming-faster-whisper: a transcript, no confidence."""
    ear = GrammarRecogniser(sentences)

    def make() -> Handler:
        heard: list[bytes] = []

        async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
            if Describe.is_type(event.type):
                await send(writer, described("asr", "faster-whisper", "tiny-int8"))
            elif AudioChunk.is_type(event.type):
                heard.append(AudioChunk.from_event(event).audio)
            elif AudioStop.is_type(event.type):
                text = (await ear.transcribe(Audio(b"".join(heard)))).text
                await send(writer, Transcript(text=text).event())

        return handle

    return make


def espeak_22050(text: str) -> bytes:
    wav = subprocess.run(
        [need("espeak-ng"), "--stdout", text], capture_output=True, check=True
    ).stdout
    return wav[44:]


def piper() -> Handler:
    """A ``tts`` like wyoming-piper: audio-start, chunks at 22050 Hz, audio-stop."""

    async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
        if Describe.is_type(event.type):
            await send(writer, described("tts", "piper", "en_US-lessac-medium"))
        elif Synthesize.is_type(event.type):
            pcm = await asyncio.to_thread(espeak_22050, Synthesize.from_event(event).text)
            await send(writer, *spoken_events(pcm, 22050))

    return handle


def ready_and_failing() -> Handler:
    """Says its voice is installed; fails every request (wyoming-piper without a model)."""

    async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
        if Describe.is_type(event.type):
            about = {
                "attribution": Attribution("", ""),
                "installed": True,
                "description": "",
                "version": "1",
            }
            voice = TtsVoice(name="en_US-lessac-medium", languages=["en_US"], **about)
            await send(
                writer, Info(tts=[TtsProgram(name="piper", voices=[voice], **about)]).event()
            )
        elif Synthesize.is_type(event.type):
            await send(
                writer, Error(text="Unable to find voice: en_US-lessac-medium", code="tts").event()
            )
        elif AudioStop.is_type(event.type):
            await send(writer, Error(text="model not loaded", code="asr").event())

    return handle


def silent() -> Handler:
    """Takes everything, answers nothing."""

    async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
        return None

    return handle


def nonsense() -> Handler:
    """Answers every request with what is not the protocol, or with a transcript of no
    text, or with audio in a format no one can play."""

    async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
        if AudioStop.is_type(event.type):
            await send(writer, Event("transcript", {"text": 42}))
        elif Synthesize.is_type(event.type):
            shape = {"rate": 0, "width": 9, "channels": 1}
            await send(
                writer, AudioStart(**shape).event(), AudioChunk(audio=b"\1" * 64, **shape).event()
            )

    return handle


def wake_service(model: str = "okay_nabu") -> Callable[[], Handler]:
    """A ``wake`` service like wyoming-microwakeword: a detection when it hears the word,
    then none for 2 s of audio (openwakeword's refractory time)."""

    def make() -> Handler:
        ear = MicroWakeWordEngine(model, None)
        quiet_s = [0.0]

        async def handle(event: Event, writer: asyncio.StreamWriter) -> None:
            if AudioChunk.is_type(event.type):
                chunk = Audio(AudioChunk.from_event(event).audio)
                quiet_s[0] -= chunk.seconds
                name = ear.process(chunk)
                if name is not None and quiet_s[0] <= 0:
                    quiet_s[0] = 2.0
                    await send(writer, Detection(name=name).event())

        return handle

    return make
