"""A Wyoming engine with the embedded one behind it.

The remote engine answers while it works. When it fails (down, slow, an
error, nonsense) the embedded engine answers that request and the ones after
it for ``retry_s``; then the remote one is tried again. The log says so once
when the remote engine fails and once when it is back, never per request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import ClassVar, Generic, Protocol, TypeVar

from mnemolis.core.heard import Heard
from mnemolis.voice.stages import Audio, Recogniser, StageError, Voice

log = logging.getLogger(__name__)

T = TypeVar("T")
Thunk = Callable[[], Awaitable[T]]


class Health:
    """Whether a remote engine is to be asked now, and the log lines when that changes."""

    def __init__(self, remote: str, embedded: str, retry_s: float) -> None:
        self.remote = remote
        self.embedded = embedded
        self.retry_s = retry_s
        self.down_until = 0.0
        self.failures = 0
        self.last_error: str | None = None

    @property
    def usable(self) -> bool:
        return time.monotonic() >= self.down_until

    def failed(self, error: StageError) -> None:
        was_up = self.last_error is None
        self.failures += 1
        self.last_error = str(error)
        self.down_until = time.monotonic() + self.retry_s
        if was_up:
            log.warning(
                "%s failed (%s): %s answers instead; it is tried again every %g s",
                self.remote,
                error,
                self.embedded,
                self.retry_s,
            )

    def worked(self) -> None:
        if self.last_error is not None:
            log.warning("%s answers again", self.remote)
        self.last_error = None

    async def ask(
        self, remote: Callable[[], Awaitable[T]], embedded: Callable[[], Awaitable[T]]
    ) -> T:
        if self.usable:
            try:
                result = await remote()
            except StageError as exc:
                self.failed(exc)
            else:
                self.worked()
                return result
        return await embedded()


class Named(Protocol):
    name: str


E = TypeVar("E", bound=Named)


class Fallback(Generic[E]):
    """The remote engine of one stage (`stage`), with the embedded one behind it."""

    stage: ClassVar[str]

    def __init__(self, remote: E, embedded: E, retry_s: float) -> None:
        self.remote = remote
        self.embedded = embedded
        self.name = f"{remote.name} (else {embedded.name})"
        self.health = Health(f"the {self.stage} {remote.name}", embedded.name, retry_s)


class FallbackRecogniser(Fallback[Recogniser]):
    """`stages.Recogniser`: the remote one, else the embedded one."""

    stage = "recogniser"

    async def transcribe(self, audio: Audio) -> Heard:
        return await self.health.ask(
            lambda: self.remote.transcribe(audio), lambda: self.embedded.transcribe(audio)
        )


class FallbackVoice(Fallback[Voice]):
    """`stages.Voice`: the remote one, else the embedded one."""

    stage = "voice"

    async def synthesize(self, text: str) -> Audio:
        return await self.health.ask(
            lambda: self.remote.synthesize(text), lambda: self.embedded.synthesize(text)
        )
