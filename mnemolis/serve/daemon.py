"""The daemon's heart: one long-lived `Assistant` that every front-end asks.

Intents are compiled and sources connected once; conversations live in the
assistant, keyed by the session each front-end names. A reload builds a new
assistant from the re-read configuration beside the running one, swaps it
in (conversations move over, so "turn it off" still works after a reload),
and closes the old one once its in-flight requests are answered; a broken
configuration is logged with its file and line and the old one keeps
serving, and so does one that lost a file the running one had (a removed
`sources/mqtt.yaml` would otherwise leave a house without devices). Every
generation speaks into the daemon's one `Announcer`, so what the old one
scheduled still reaches the front-ends. Draining refuses new requests and
waits for those in flight. Every answered request is one log line.

Sessions are the front-ends' own: each passes its client's session scoped
by its name (`runtime.conversation.scoped`: ``http:kitchen``,
``mqtt:kitchen``, ``hermes:kitchen-pi``), so no client of one front-end can
reach another's conversation, its waiting actions or its timers.
Confirmations also have a *scope*: the client that may answer a "Do you want
me to unlock the front door?". Front-ends whose session is shared by several
clients (plain-text MQTT, Hermes' site) pass the client's own scope (a
per-request one when the client cannot be told apart); the session's own
turns have the session as their scope. A yes from another scope than the
one that was asked finds nothing waiting (`Conversation.turn_of`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import Config, ConfigError, load_config
from mnemolis.core.announce import Announcer
from mnemolis.core.heard import Heard
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Answer
from mnemolis.runtime.assistant import Assistant
from mnemolis.serve.settings import ServeSettings, load_serve_settings
from mnemolis.serve.wire import dumps

log = logging.getLogger("mnemolis.serve")
request_log = logging.getLogger("mnemolis.serve.requests")

#: How much of a query one log line keeps.
LOGGED_QUERY_CHARS = 200

#: Builds an assistant from a configuration, its sources speaking into the announcer.
Starter = Callable[[Config, Announcer], Awaitable[Assistant]]


async def start_assistant(config: Config, announcer: Announcer) -> Assistant:
    """The production assistant: default sources, retained discovery awaited (boundedly)."""
    return await Assistant.start(config, one_shot=True, announcer=announcer)


def starter_with(extras: Mapping[str, Any]) -> Starter:
    """`start_assistant`, handing ``extras`` (what the CLI offers, the demo ZIM) to the
    source factories."""

    async def start(config: Config, announcer: Announcer) -> Assistant:
        return await Assistant.start(config, one_shot=True, extras=extras, announcer=announcer)

    return start


def lost_files(old: Config, new: Config) -> list[str]:
    """The files the running configuration read that the new one no longer has."""
    kept = {path.resolve() for path in new.files}
    root = old.root.resolve()
    return [_relative(path, root) for path in old.files if path.resolve() not in kept]


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


class KeyedLocks:
    """One lock per key while anyone holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]


class Unavailable(Exception):
    """A request the daemon cannot take now: ``busy``, ``shutting_down`` or ``internal``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Generation:
    """One configuration and the assistant built from it."""

    number: int
    config: Config
    assistant: Assistant
    in_flight: int = 0
    idle: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.idle.set()


@dataclass
class ReloadResult:
    ok: bool
    generation: int
    ms: float
    intents: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reloaded": self.ok,
            "generation": self.generation,
            "ms": round(self.ms, 1),
        }
        if self.ok:
            out["intents"] = self.intents
        else:
            out["error"] = self.error
        return out


def request_line(front_end: str, session: str, answer: Answer) -> str:
    """``ask via=http session="kitchen" outcome=answered parts=2 sources=clock,mqtt ms=3.1
    query="..."``: quoted with JSON escapes, so no query can forge a second log line."""
    sources = sorted({s for r in answer.parts if (s := r.answer.source or r.part.source)})
    query = answer.query[:LOGGED_QUERY_CHARS]
    return (
        f"ask via={front_end} session={dumps(session)} "
        f"outcome={answer.outcome} parts={len(answer.parts)} "
        f"sources={','.join(sources) or '-'} ms={answer.ms:.1f} "
        f"query={dumps(query)}"
    )


class Daemon:
    """Owns the running assistant; front-ends call `request` and `ask`."""

    def __init__(
        self,
        config_dir: str | Path | None,
        settings: ServeSettings,
        starter: Starter = start_assistant,
    ) -> None:
        self.config_dir = config_dir
        self.settings = settings
        self.starter = starter
        #: one hub across reloads: front-ends listen here, every generation's sources speak here
        self.announcer = Announcer()
        self.draining = False
        self.started_at = time.monotonic()
        self.answered = 0
        self._current: Generation | None = None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._reloading = asyncio.Lock()
        self._turns = KeyedLocks()
        self._retiring: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ life

    async def start(self, config: Config) -> None:
        """Build the first assistant (raises `ConfigError` for a broken configuration)."""
        assistant = await self.starter(config, self.announcer)
        self._current = Generation(1, config, assistant)
        log.info(
            "serving %d intents with the sources %s",
            len(config.intents),
            ", ".join(assistant.sources) or "(none)",
        )

    @property
    def started(self) -> bool:
        return self._current is not None

    @property
    def generation(self) -> Generation:
        assert self._current is not None, "start() the daemon first"
        return self._current

    @property
    def assistant(self) -> Assistant:
        return self.generation.assistant

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def drain(self, timeout_s: float) -> bool:
        """Refuse new requests; True once those in flight are answered (False: timed out)."""
        self.draining = True
        if self._idle.is_set():
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
        except TimeoutError:
            log.warning(
                "%d requests still in flight after %g s; stopping", self._in_flight, timeout_s
            )
            return False
        return True

    async def close(self) -> None:
        """Close the running assistant and any still being retired."""
        if self._retiring:
            await asyncio.gather(*self._retiring, return_exceptions=True)
        if self._current is not None:
            await self._current.assistant.close()

    # ------------------------------------------------------------------ requests

    @asynccontextmanager
    async def request(self) -> AsyncIterator[None]:
        """Hold this around a whole request, answer and reply, so draining waits for it.

        Raises `Unavailable` when the daemon is shutting down or too busy."""
        if self.draining:
            raise Unavailable("shutting_down", "Mnemolis is shutting down; ask again shortly")
        if self._in_flight >= self.settings.limits.max_pending:
            raise Unavailable("busy", "Mnemolis is busy with other requests; ask again shortly")
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.set()

    async def ask(
        self,
        front_end: str,
        text: str,
        session: str,
        origin: Origin | None = None,
        scope: str | None = None,
        heard: Heard | None = None,
    ) -> Answer:
        """One turn of ``session`` (a front-end's scoped key) on the current assistant,
        logged in one line.

        ``scope`` names the client within a shared session (see the module's
        docstring); None when the session is the client's own. ``heard``: what a
        recogniser heard (a doubtful action is asked back)."""
        origin = origin or Origin(front_end=front_end, session=session)
        generation = self.generation
        generation.in_flight += 1
        generation.idle.clear()
        try:
            async with self._turns.hold(session):  # whose turn, and the turn, as one
                await self._bind_confirmations(generation.assistant, session, scope)
                answer = await generation.assistant.ask(text, session, origin, heard=heard)
        except Exception as exc:  # a bug must end as a sentence, never a traceback to a client
            log.exception("the %s request of session %r failed", front_end, session)
            raise Unavailable(
                "internal", "Something went wrong while answering; the daemon's log says what"
            ) from exc
        finally:
            generation.in_flight -= 1
            if generation.in_flight == 0:
                generation.idle.set()
        self.answered += 1
        request_log.info(request_line(front_end, session, answer))
        return answer

    def forget(self, session: str) -> None:
        self.generation.assistant.forget(session)

    async def _bind_confirmations(
        self, assistant: Assistant, session: str, scope: str | None
    ) -> None:
        """Drop the actions waiting for a yes in ``session`` when another scope asked them."""
        conversation = assistant.conversations.get(session)
        async with conversation.lock:
            dropped = conversation.turn_of(session if scope is None else f"{session}\0{scope}")
        if dropped:
            log.info(
                "session %s: %d action(s) waiting for a yes were asked by another client; "
                "that client's yes was not taken",
                dumps(session),
                len(dropped),
            )

    # ------------------------------------------------------------------ reload

    async def reload(self) -> ReloadResult:
        """Re-read the configuration and swap in a new assistant; keep the old on failure."""
        async with self._reloading:
            started = time.perf_counter()
            old = self.generation
            try:
                config = await asyncio.to_thread(load_config, self.config_dir)
                settings = load_serve_settings(config)
                lost = lost_files(old.config, config)
                if lost:
                    also = f" (and {', '.join(lost[1:])})" if lost[1:] else ""
                    raise ConfigError(
                        config.root / lost[0],
                        None,
                        f"the file is gone{also}, but the running configuration read it: put "
                        "it back, or restart the daemon to run without it",
                    )
                assistant = await self.starter(config, self.announcer)
            except ConfigError as exc:
                return self._refused(old, started, str(exc))
            except Exception as exc:  # never let a reload take the daemon down
                log.exception("reload failed")
                return self._refused(old, started, f"{type(exc).__name__}: {exc}")
            if self.draining:
                await assistant.close()
                return self._refused(old, started, "the daemon is shutting down")
            assistant.conversations = old.assistant.conversations
            assistant.conversations.settings = assistant.settings
            self._current = Generation(old.number + 1, config, assistant)
            task = asyncio.create_task(self._retire(old), name=f"retire-{old.number}")
            self._retiring.add(task)
            task.add_done_callback(self._retiring.discard)
            if settings.raw != self.settings.raw:
                log.warning(
                    "sources/serve.yaml changed: the front-ends keep their settings until a restart"
                )
            ms = (time.perf_counter() - started) * 1000
            log.info(
                "reloaded: generation %d, %d intents (%.0f ms)",
                old.number + 1,
                len(config.intents),
                ms,
            )
            return ReloadResult(True, old.number + 1, ms, len(config.intents))

    def _refused(self, old: Generation, started: float, reason: str) -> ReloadResult:
        log.error("reload refused, the running configuration keeps serving: %s", reason)
        return ReloadResult(False, old.number, (time.perf_counter() - started) * 1000, error=reason)

    async def _retire(self, old: Generation) -> None:
        """Close the old assistant once the requests it was answering are done."""
        await old.idle.wait()
        await old.assistant.close()
        log.info("generation %d closed", old.number)
