"""The daemon's voice engines: one recogniser and one voice for its Wyoming ``asr`` and
``tts`` services and every satellite it drives.

Loaded once, on first need (a daemon nobody talks to by voice never loads a
recogniser), from the daemon's running configuration, and built again in the
background after a reload (the recogniser is compiled from the intents and the
home's names; the old engines answer until the new ones are ready). A recogniser
that cannot be built is one sentence in the log, said once; each request in the
next minute gets that sentence at once instead of another attempt.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import time
from typing import TYPE_CHECKING

from mnemolis.core.state_dir import state_dir

if TYPE_CHECKING:
    from mnemolis.serve.daemon import Daemon
    from mnemolis.voice.engines import VoiceKit

log = logging.getLogger(__name__)

#: The packages of the voice extra the daemon's voice needs.
VOICE_PACKAGES = ("numpy", "soxr", "pymicro_wakeword", "pymicro_vad")
#: After a failed load, the failure is the answer this long before trying again.
RETRY_S = 60.0


def voice_installed() -> bool:
    """The voice extra is installed (``pip install 'mnemolis[voice]'``)."""
    return all(importlib.util.find_spec(name) is not None for name in VOICE_PACKAGES)


class DaemonVoice:
    """The shared `VoiceKit`, built on the first `kit` call."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self._kit: VoiceKit | None = None
        self._built_for = 0  # the daemon's generation the kit was built from
        self._rebuild: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._failed: tuple[str, float] | None = None  # the sentence, and when

    @property
    def loaded(self) -> VoiceKit | None:
        return self._kit

    async def kit(self) -> VoiceKit:
        """The kit; `StageError` with the reason when the engines cannot be loaded."""
        from mnemolis.config import ConfigError
        from mnemolis.voice.engines import load_kit
        from mnemolis.voice.stages import StageError

        async with self._lock:
            if self._kit is not None:
                self._follow_reloads()
                return self._kit
            if self._failed is not None and time.monotonic() - self._failed[1] < RETRY_S:
                raise StageError(self._failed[0])
            if not voice_installed():
                raise StageError("the voice extra is not installed: pip install 'mnemolis[voice]'")
            started = time.perf_counter()
            generation = self.daemon.generation
            try:
                registry = generation.assistant.registry  # discovered devices' names too
                self._kit = await load_kit(generation.config, state_dir(), registry)
                self._built_for = generation.number
            except (StageError, ConfigError) as exc:
                self._failed = (str(exc), time.monotonic())
                log.error("voice: the engines could not be loaded: %s", exc)
                raise StageError(str(exc)) from exc
            kit = self._kit
            log.info(
                "voice: recogniser %s, voice %s (%.0f ms)",
                kit.recogniser.name,
                kit.voice.name,
                (time.perf_counter() - started) * 1000,
            )
            return kit

    def _follow_reloads(self) -> None:
        """After a reload, build the engines again beside the running ones."""
        number = self.daemon.generation.number
        if number != self._built_for and self._rebuild is None:
            self._rebuild = asyncio.create_task(self._rebuilt(number), name="voice rebuild")

    async def _rebuilt(self, number: int) -> None:
        from mnemolis.config import ConfigError
        from mnemolis.voice.engines import load_kit
        from mnemolis.voice.stages import StageError

        try:
            generation = self.daemon.generation
            kit = await load_kit(generation.config, state_dir(), generation.assistant.registry)
        except (StageError, ConfigError) as exc:
            log.error("voice: not rebuilt after the reload, the running engines go on: %s", exc)
        else:
            self._kit = kit
            log.info("voice: rebuilt for configuration generation %d", number)
        finally:
            self._built_for = number
            self._rebuild = None
