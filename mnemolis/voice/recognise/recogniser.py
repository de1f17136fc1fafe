"""The embedded recogniser: pocketsphinx over a model compiled from the configuration.

It is created at once and compiles (or loads from the cache) in a background
thread; a request that arrives first waits for it. `reload` compiles for a new
configuration or a changed home while the old model keeps answering, and swaps
when the new one is ready. Decoding runs in a worker thread, one at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.heard import Heard
from mnemolis.voice.recognise.audio import to_pipeline
from mnemolis.voice.recognise.build import (
    Compiled,
    compile_cached,
    gather,
    grammar_input,
    owner_pronunciations,
)
from mnemolis.voice.recognise.decoder import Decoding, ModelDecoder
from mnemolis.voice.recognise.judge import ENGINE, heard, heard_of
from mnemolis.voice.recognise.settings import RecogniserSettings
from mnemolis.voice.recognise.stream import PocketsphinxStream
from mnemolis.voice.stages import Audio, RecognitionStream, StageError

__all__ = ["ENGINE", "PocketsphinxRecogniser"]
#: How long a burst of registry changes (discovery at start) settles before a rebuild.
SETTLE_S = 2.0


class PocketsphinxRecogniser:
    """`voice.stages.Recogniser`, personalised from the configuration."""

    name = ENGINE

    def __init__(
        self,
        config: Config,
        settings: RecogniserSettings,
        state_dir: Path,
        registry: DeviceRegistry | None = None,
        names: Callable[[Config], Mapping[str, Iterable[str]]] | None = None,
    ) -> None:
        self.settings = settings
        self.state_dir = state_dir
        self._config = config
        self._registry = registry
        self._names = names
        self._lock = threading.Lock()  # one decode at a time; the swap waits for it
        self._decoder: Decoding | None = None
        self.compiled: Compiled | None = None
        self.error: str | None = None
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="recogniser")
        self._ready: concurrent.futures.Future[Compiled] = self._pool.submit(self._build)
        self._timer: threading.Timer | None = None
        if registry is not None:
            registry.subscribe(lambda _r: self._settle())

    # ---------------------------------------------------------------- the model

    def _build(self) -> Compiled:
        try:
            config = self._config
            names = self._names(config) if self._names else {}
            vocab = gather(config, self.settings, self._registry, names, self.state_dir)
            compiled = compile_cached(
                vocab,
                self.settings,
                self.state_dir,
                owner_pronunciations(config, self.settings),
                grammar_input(config, self.settings),
            )
            decoder = self._load(compiled)
        except Exception as exc:  # a broken model is a reason on every request
            self.error = f"the recogniser could not be built: {exc}"
            raise
        with self._lock:
            old, self._decoder, self.compiled, self.error = self._decoder, decoder, compiled, None
        if old is not None:
            old.close()
        return compiled

    def _load(self, compiled: Compiled) -> Decoding:
        """The decoder over ``compiled``: here, or in a process of its own (``process``)."""
        if self.settings.process:
            from mnemolis.voice.recognise.worker import ProcessDecoder

            return ProcessDecoder(compiled.path, compiled.info, self.settings)
        return ModelDecoder(compiled.path, compiled.info, self.settings)

    def reload(self, config: Config | None = None) -> concurrent.futures.Future[Compiled]:
        """Compile for ``config`` (or the same one, the home changed) in the background."""
        if config is not None:
            self._config = config
        self._ready = self._pool.submit(self._build)
        return self._ready

    def _settle(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(SETTLE_S, self.reload)
        self._timer.daemon = True
        self._timer.start()

    def wait_ready(self, timeout: float | None = None) -> Compiled:
        """Block until the current model is loaded (raises what building raised)."""
        return self._ready.result(timeout)

    async def ready(self) -> Compiled:
        return await asyncio.wrap_future(self._ready)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            decoder, self._decoder = self._decoder, None
        if decoder is not None:
            decoder.close()

    # ---------------------------------------------------------------- hearing

    async def transcribe(self, audio: Audio) -> Heard:
        t0 = time.perf_counter()
        if self._decoder is None:
            try:
                await asyncio.wrap_future(self._ready)
            except Exception as exc:
                raise StageError(self.error or f"the recogniser could not be built: {exc}") from exc
        return await asyncio.to_thread(self.transcribe_now, audio, t0)

    def transcribe_now(self, audio: Audio, t0: float | None = None) -> Heard:
        """The same, synchronously (for the evaluation and the benchmarks)."""
        t0 = time.perf_counter() if t0 is None else t0
        prepared = to_pipeline(audio)
        if prepared.problem is not None:
            return heard("", 0.0, (), prepared.problem, {"recognise": _since(t0)})
        with self._lock:
            decoded = self._current().decode(prepared.pcm, self.settings.alternatives)
        return heard_of(decoded, self.settings, {"recognise": _since(t0)})

    def open(self) -> RecognitionStream:
        """A request to be heard as it is said (`voice.stages.StreamingRecogniser`)."""
        return PocketsphinxStream(self._wait_decoder, self._current, self._lock, self.settings)

    def _wait_decoder(self) -> None:
        """Wait for a build under way (the stream's worker; not under the lock, which the
        build takes to swap its model in)."""
        if self._decoder is None:
            try:
                self._ready.result()
            except Exception as exc:
                raise StageError(self.error or f"the recogniser could not be built: {exc}") from exc

    def _current(self) -> Decoding:
        """The model in use (under the lock). A decoder process that died (the request it
        died in was told so) is replaced by a new one over the same model."""
        decoder = self._decoder
        if decoder is None or self.compiled is None:
            raise StageError(self.error or "the recogniser is not ready")
        if not decoder.alive():
            decoder.close()
            self._decoder = None
            try:
                self._decoder = decoder = self._load(self.compiled)
            except Exception as exc:
                raise StageError(f"the recogniser's decoder could not be restarted: {exc}") from exc
        return decoder


def _since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000
