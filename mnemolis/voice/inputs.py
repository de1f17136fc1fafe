"""Where sound comes from: a microphone (sounddevice), a program (``arecord``), a
stream pushed in chunks (a Wyoming satellite), or sound already in memory.

Every source yields pipeline-format chunks (`stages.AudioSource`), converted
once where they come in. A microphone that is missing or busy is a
`BadAudio` with a sentence that says which and what to do, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator
from typing import Any

from mnemolis.voice.audio import Converter, chunks
from mnemolis.voice.stages import Audio, AudioFormat, BadAudio

CHUNK_MS = 30
#: What ALSA and PortAudio say about a device, and what it means for the person.
BUSY = ("busy", "device unavailable", "resource temporarily unavailable")
MISSING = ("no such file", "no such device", "cannot find card", "unknown pcm", "invalid device")


def _trouble(message: str, device: str) -> BadAudio:
    """A device error as one sentence: busy, missing, or as the system said it."""
    low = message.lower()
    if any(word in low for word in BUSY):
        return BadAudio(
            f"the microphone {device} is busy: another program is using it "
            f"(fuser -v /dev/snd/* shows which) ({message.strip()})",
            "busy",
        )
    if any(word in low for word in MISSING):
        return BadAudio(
            f"there is no microphone {device} (arecord -l lists them; {message.strip()})",
            "missing",
        )
    return BadAudio(f"the microphone {device} failed: {message.strip()}", "failed")


class MemorySource:
    """Sound already read (a WAV file), in chunks as a stream would bring it."""

    def __init__(self, audio: Audio, chunk_ms: int = CHUNK_MS) -> None:
        self.audio = audio
        self.chunk_ms = chunk_ms

    async def chunks(self) -> AsyncIterator[Audio]:
        for chunk in chunks(self.audio, self.chunk_ms):
            yield chunk

    async def close(self) -> None:
        return None


class StreamSource:
    """Chunks pushed in from elsewhere (a satellite's `AudioChunk`s), in their format."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.converter = Converter(fmt)
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def put(self, pcm: bytes) -> None:
        self.queue.put_nowait(pcm)

    def end(self) -> None:
        self.queue.put_nowait(None)

    async def chunks(self) -> AsyncIterator[Audio]:
        while (pcm := await self.queue.get()) is not None:
            yield self.converter.convert(pcm)
        yield self.converter.convert(b"", last=True)

    async def close(self) -> None:
        self.end()


class CommandSource:
    """Raw 16-bit PCM from a program's standard output (``arecord ... -t raw``)."""

    def __init__(self, command: tuple[str, ...], fmt: AudioFormat) -> None:
        self.command = command
        self.format = fmt
        self.process: asyncio.subprocess.Process | None = None

    async def chunks(self) -> AsyncIterator[Audio]:
        program = shutil.which(self.command[0])
        if program is None:
            raise BadAudio(
                f"input.command names {self.command[0]}, which is not installed "
                "(apt-get install alsa-utils brings arecord)",
                "missing",
            )
        self.process = await asyncio.create_subprocess_exec(
            program,
            *self.command[1:],
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        converter = Converter(self.format)
        size = self.format.bytes_per_second * CHUNK_MS // 1000
        got_any = False
        while pcm := await self.process.stdout.read(size):
            got_any = True
            yield converter.convert(pcm)
        error = (await self.process.stderr.read()).decode("utf-8", "replace")
        status = await self.process.wait()
        if status != 0 and not got_any:
            raise _trouble(
                error or f"{self.command[0]} exited with status {status}", self.command[0]
            )
        yield converter.convert(b"", last=True)

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            await self.process.wait()


def sounddevice_module() -> Any:
    """sounddevice, or `BadAudio` saying what is missing (the package, or PortAudio)."""
    try:
        import sounddevice
    except ImportError as exc:
        raise BadAudio(
            f"the microphone needs sounddevice: pip install 'mnemolis[voice]' ({exc})", "missing"
        ) from exc
    except OSError as exc:  # the package is there, the PortAudio library is not
        raise BadAudio(
            "the microphone needs the PortAudio library: apt-get install libportaudio2 "
            f"(or set input.command to arecord in sources/voice.yaml) ({exc})",
            "missing",
        ) from exc
    return sounddevice


def find_device(name: str, kind: str) -> int | None:
    """The sounddevice index of the device whose name holds ``name`` (``kind``: "input" or
    "output"); None for "default". `BadAudio` when there is none."""
    sd = sounddevice_module()
    channels = f"max_{kind}_channels"
    devices = [d for d in sd.query_devices() if d.get(channels, 0) > 0]
    what = "microphone" if kind == "input" else "speaker"
    if not devices:
        lister = "arecord -l" if kind == "input" else "aplay -l"
        raise BadAudio(f"there is no {what} on this machine ({lister} lists none)", "missing")
    if name == "default":
        return None
    found = [d for d in devices if name.lower() in str(d["name"]).lower()]
    if not found:
        names = "; ".join(str(d["name"]) for d in devices)
        raise BadAudio(f"there is no {what} named {name!r}; there are: {names}", "missing")
    return int(found[0]["index"])


class SoundDeviceSource:
    """A microphone through PortAudio (sounddevice), by name."""

    def __init__(self, name: str, fmt: AudioFormat) -> None:
        self.name = name
        self.format = fmt
        self.stream: Any = None

    async def chunks(self) -> AsyncIterator[Audio]:
        sd = sounddevice_module()
        device = find_device(self.name, "input")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue()

        def arrived(data: Any, _frames: int, _time: Any, _status: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, bytes(data))

        try:
            self.stream = sd.RawInputStream(
                samplerate=self.format.rate,
                channels=self.format.channels,
                dtype="int16",
                device=device,
                blocksize=self.format.rate * CHUNK_MS // 1000,
                callback=arrived,
            )
            self.stream.start()
        except Exception as exc:  # PortAudioError: busy, gone, a rate it cannot do
            raise _trouble(str(exc), self.name) from exc
        converter = Converter(self.format)
        while True:
            yield converter.convert(await queue.get())

    async def close(self) -> None:
        if self.stream is not None:
            self.stream.stop()
            self.stream.close()
            self.stream = None
