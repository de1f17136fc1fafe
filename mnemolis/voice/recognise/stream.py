"""One request heard as it is said: the pocketsphinx utterance starts when speech starts,
each piece of sound is decoded as it arrives, and at the end of speech only the last
frames and the verdict remain.

The decoding runs in the stream's own worker thread, so `feed` returns at once and the
event loop keeps reading audio (pocketsphinx holds Python's lock while it decodes a
piece, so pieces are small: a microphone's 30 ms). The stream holds the recogniser's
decoder from its first piece to its end: another request (a second satellite, a file)
waits for it, and a model being swapped in waits too. Everything the whole-request path
does is done here: the sound is converted, dithered (block by block: the same noise as
whole), measured (too short, silence) and judged (garbage, confidence, alternatives).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mnemolis.core.heard import Heard
from mnemolis.voice.recognise.audio import StreamedAudio
from mnemolis.voice.recognise.decoder import Decoding
from mnemolis.voice.recognise.judge import heard, heard_of
from mnemolis.voice.recognise.settings import RecogniserSettings
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, StageError


@dataclass
class Progress:
    """What the worker has done so far (read by the stream when it ends)."""

    decoder: Decoding | None = None
    error: StageError | None = None
    #: dithered sound not decoded yet: the head whose cepstral mean the request takes
    head: list[bytes] = field(default_factory=list)
    head_bytes: int = 0
    #: the head is complete at this many bytes (set by the first piece: what came
    #: before speech started, and `stream_lookahead_s` of speech after it)
    wanted: int | None = None
    decode_ms: float = 0.0  # decoding while the request was still being said
    pieces: int = 0


class PocketsphinxStream:
    """`voice.stages.RecognitionStream` over the recogniser's one decoder."""

    def __init__(
        self,
        wait: Callable[[], None],
        current: Callable[[], Decoding],
        lock: threading.Lock,
        settings: RecogniserSettings,
    ) -> None:
        self._wait = wait
        self._current = current
        self._lock = lock
        self.settings = settings
        self.audio = StreamedAudio()
        self.progress = Progress()
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="stream")
        self._closed = False

    # ------------------------------------------------------------ the event loop's side

    def feed(self, chunk: Audio) -> None:
        """Hand a piece of the request to the worker; returns at once."""
        if not self._closed:
            self._worker.submit(self._feed, chunk)

    async def finish(self) -> Heard:
        """The request has ended: what was heard. `StageError` when the decoder failed."""
        t0 = time.perf_counter()
        if self._closed:
            raise StageError("this request was already heard or cancelled")
        self._closed = True
        try:
            return await asyncio.wrap_future(self._worker.submit(self._end, t0))
        finally:
            self._worker.shutdown(wait=False)

    async def cancel(self) -> None:
        """Nothing is to be heard (the request was cut, or the stream went away)."""
        if self._closed:
            return
        self._closed = True
        await asyncio.wrap_future(self._worker.submit(self._release))
        self._worker.shutdown(wait=False)

    # ------------------------------------------------------------ the worker's side

    def _feed(self, chunk: Audio) -> None:
        p = self.progress
        if p.error is not None:
            return
        began = time.perf_counter()
        try:
            pcm = self.audio.add(chunk)
            if p.wanted is None:
                lookahead = int(self.settings.stream_lookahead_s * PIPELINE_FORMAT.rate) * 2
                p.wanted = len(chunk.pcm) + lookahead
            if p.decoder is not None:
                p.decoder.feed(pcm)
            else:
                p.head.append(pcm)
                p.head_bytes += len(pcm)
                if p.head_bytes >= p.wanted:
                    self._start()
        except StageError as exc:
            p.error = exc
            self._release()
        except Exception as exc:  # pocketsphinx failing mid-request: a reason, not a crash
            p.error = StageError(f"the recogniser failed in the middle of a request: {exc}")
            self._release()
        p.pieces += 1
        p.decode_ms += (time.perf_counter() - began) * 1000

    def _start(self) -> None:
        """Take the decoder, and decode the head (by its own cepstral mean)."""
        p = self.progress
        head, p.head, p.head_bytes = b"".join(p.head), [], 0
        self._wait()
        self._lock.acquire()
        try:
            p.decoder = self._current()
            p.decoder.start(head)
            p.decoder.feed(head)
        except BaseException:
            p.decoder = None
            self._lock.release()
            raise

    def _end(self, t0: float) -> Heard:
        p = self.progress
        if p.error is None:
            try:
                rest = self.audio.end()
                if p.decoder is None:  # shorter than the head: heard whole
                    problem = self.audio.verdict()
                    if problem is not None:  # as a whole request: no decoding at all
                        return heard("", 0.0, (), problem, self._ms(t0))
                    p.head.append(rest)
                    self._start()
                else:
                    p.decoder.feed(rest)
            except StageError as exc:
                p.error = exc
            except Exception as exc:
                p.error = StageError(f"the recogniser failed at the end of a request: {exc}")
        if p.error is not None:
            self._release()
            raise p.error
        assert p.decoder is not None
        try:
            decoded = p.decoder.end(self.settings.alternatives)
        except Exception as exc:
            raise StageError(f"the recogniser failed at the end of a request: {exc}") from exc
        finally:
            p.decoder = None
            self._lock.release()
        problem = self.audio.verdict()
        if problem is not None:
            return heard("", 0.0, (), problem, self._ms(t0))
        return heard_of(decoded, self.settings, self._ms(t0))

    def _ms(self, t0: float) -> dict[str, float]:
        """``recognise``: from the end of speech; ``streamed``: decoding before it."""
        return {"recognise": (time.perf_counter() - t0) * 1000, "streamed": self.progress.decode_ms}

    def _release(self) -> None:
        """End an utterance that will not be heard, and let others have the decoder."""
        decoder, self.progress.decoder = self.progress.decoder, None
        if decoder is None:
            return
        try:
            with contextlib.suppress(Exception):  # it failed already; the lock must still go
                decoder.end()
        finally:
            self._lock.release()
