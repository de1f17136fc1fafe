"""A wake word heard by a Wyoming ``wake`` service (wyoming-openwakeword,
wyoming-microwakeword), as `stages.WakeWord`.

`process` is synchronous (the `Listener` is), so the stream goes to the service
from a task: each chunk is queued, sent no faster than real time (a wake service
keeps time by the audio it is given), and a ``detection`` coming back is handed
out by the next `process`. While the service is down, the embedded wake word
hears the stream instead (said once in the log), and the service is tried again
after ``retry_s``. A stream that stops for `IDLE_S` closes its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from wyoming.audio import AudioChunk, AudioStart
from wyoming.wake import Detect, Detection

from mnemolis.voice.fallback import Health
from mnemolis.voice.remote import Connection
from mnemolis.voice.stages import Audio, StageError, WakeWord

IDLE_S = 30.0
QUEUED_S = 10.0  # more unsent sound than this: the service is too slow, it has failed


class WyomingWakeWord:
    """`stages.WakeWord` over a Wyoming ``wake`` service, the embedded one behind it."""

    def __init__(
        self,
        uri: str,
        names: tuple[str, ...],
        fallback: WakeWord,
        timeout_s: float,
        health: Health,
    ) -> None:
        self.uri = uri
        self.names = names
        self.fallback = fallback
        self.timeout_s = timeout_s
        self.health = health
        self.name = f"wyoming wake {uri}"
        self._queue: asyncio.Queue[Audio] = asyncio.Queue()
        self._detected: list[str] = []
        self._task: asyncio.Task[None] | None = None

    def process(self, chunk: Audio) -> str | None:
        if not self.health.usable:
            return self.fallback.process(chunk)
        if self._task is None or self._task.done():
            self._queue = asyncio.Queue()
            self._task = asyncio.get_running_loop().create_task(self._stream())
        self._queue.put_nowait(chunk)
        if self._queue.qsize() * max(chunk.seconds, 0.001) > QUEUED_S:
            self._task.cancel()
            self.health.failed(StageError(f"the wake word service at {self.uri} fell behind"))
        return self._detected.pop(0) if self._detected else None

    def reset(self) -> None:
        self._detected.clear()
        self.fallback.reset()

    async def _stream(self) -> None:
        try:
            async with Connection(self.uri, self.timeout_s, f"the wake word at {self.uri}") as link:
                await link.send(Detect(names=list(self.names) or None).event())
                await link.send(AudioStart(rate=16000, width=2, channels=1).event())
                hearing = asyncio.create_task(self._hear(link))
                try:
                    await self._send(link, hearing)
                finally:
                    hearing.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StageError):
                        await hearing
        except StageError as exc:
            self.health.failed(exc)

    async def _send(self, link: Connection, hearing: asyncio.Task[None]) -> None:
        began = time.monotonic()
        sent_s = 0.0
        while not hearing.done():
            try:
                chunk = await asyncio.wait_for(self._queue.get(), IDLE_S)
            except TimeoutError:
                return  # the stream stopped: the next chunk connects again
            ahead = began + sent_s - time.monotonic()
            if ahead > 0:  # at real time, never faster
                await asyncio.sleep(ahead)
            fmt = chunk.format
            event = AudioChunk(fmt.rate, fmt.width, fmt.channels, chunk.pcm).event()
            await link.send(event)
            sent_s += chunk.seconds
        hearing.result()  # its StageError, if it failed

    async def _hear(self, link: Connection) -> None:
        while True:
            event = await link.receive(time.monotonic() + 24 * 3600)
            if Detection.is_type(event.type):
                name = Detection.from_event(event).name
                self._detected.append(name or "wake word")
                self.health.worked()
