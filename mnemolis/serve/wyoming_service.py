"""The Wyoming protocol: Mnemolis as a "handle" service (a conversation agent).

Home Assistant's Wyoming integration and wyoming-satellite connect, may ask
``describe`` (answered with an `Info` naming one `HandleProgram`) or
``ping`` (``pong``), and send a ``transcript``; the reply is ``handled`` with
the answer's text, or ``not-handled`` when nothing was understood. The
conversation is the one the transcript's context names (Home Assistant sends
``conversation_id``, ``satellite_id``, ``device_id``), else the connection's
own, forgotten when it closes. Each is Wyoming's own (``wyoming:satellite:den``,
`sessions`): no MQTT or HTTP request can take a turn in it, or say its yes.
A connection's own session has a random name (``wyoming:connection:<hex>``),
so no other client can guess it.

Where a request comes from: the area ``wyoming.areas`` gives the context's
``satellite_id`` or ``device_id``, else the area a satellite named in its own
``info`` event. A peer that sent such an ``info`` is a *satellite*: while its
connection stays open, the timers it set come back to it as the protocol's
timer events (``timer-started`` ... ``timer-finished``). Home Assistant
closes its connection after each answer, so its announcements go out on
MQTT or Hermes for the area instead (see `announcements`).

Every connection is bounded (`wyoming_events`: sizes, strict JSON of a
bounded depth, a deadline from each event's first byte) and counted: beyond
``max_connections_per_client`` from one address, or ``max_connections`` in
all, a new one gets an ``error`` event and is closed.

Why not `wyoming.server.AsyncTcpServer`: the daemon needs the port it was
given for ``:0``, and to stop accepting while in-flight transcripts are still
answered; both want the listening socket, which that class keeps private.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from wyoming.asr import Transcript
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe
from wyoming.ping import Ping, Pong

from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Outcome
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.listeners import ClientCounts, client_address, describe, prepare_unix_path
from mnemolis.serve.requests import LONE_SURROGATE
from mnemolis.serve.sessions import WYOMING, scoped
from mnemolis.serve.settings import Limits, WyomingSettings
from mnemolis.serve.wire import clean, clean_text, lone_surrogate
from mnemolis.serve.wyoming_events import (
    BadEvent,
    read_event,
    service_info,
    timer_event,
    write_event,
)
from mnemolis.serve.wyoming_voice import Listening, WyomingVoice, heard_in

log = logging.getLogger(__name__)

NAME = WYOMING
#: Context keys that name a conversation, the most specific first.
CONTEXT_KEYS = ("conversation_id", "satellite_id", "device_id")
#: Context keys that name the device a transcript was spoken to.
SITE_KEYS = ("satellite_id", "device_id")
MAX_ID_CHARS = 100
MAX_SESSIONS_PER_CONNECTION = 64
INTERNAL = "Something went wrong; the daemon's log says what"


def _id(value: Any) -> str | None:
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        return clean_text(str(value))[:MAX_ID_CHARS]
    return None


def session_of(context: Any, fallback: str) -> str:
    """The conversation a transcript belongs to: its context's id, else ``fallback``."""
    if isinstance(context, dict):
        for key in CONTEXT_KEYS:
            value = _id(context.get(key))
            if value is not None:
                return scoped(NAME, f"{key.removesuffix('_id')}:{value}")
    return fallback


def connection_session() -> str:
    """A connection's own session: 128 random bits, so no other client can name it."""
    return scoped(NAME, f"connection:{secrets.token_hex(16)}")


def site_of(context: Any) -> str | None:
    """The satellite or device a transcript was spoken to."""
    if isinstance(context, dict):
        for key in SITE_KEYS:
            value = _id(context.get(key))
            if value is not None:
                return value
    return None


def _dict(value: Any) -> dict[str, Any] | None:
    return clean(value) if isinstance(value, dict) else None


class TranscriptHandler:
    """One connection: events one after the other, and timer events when a satellite."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        service: WyomingService,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.service = service
        self.session = connection_session()
        self.busy = False
        self.used_own_session = False
        self.satellite = False  # it described itself as one (an `info` with `satellite`)
        self.area: str | None = None  # the area it named
        self.site: str | None = None  # its satellite or device id, from its transcripts
        self.sessions: set[str] = set()
        self.listening: Listening | None = None  # a request streamed to the asr service
        self._running = True

    async def run(self) -> None:
        limits = self.service.limits
        try:
            while self._running:
                try:
                    event = await read_event(
                        self.reader, limits.max_body_bytes, limits.read_timeout_s
                    )
                except BadEvent as exc:
                    log.warning("wyoming: closing a connection: %s", exc)
                    with contextlib.suppress(ConnectionError):
                        await self.write(Error(text=str(exc), code=exc.code).event())
                    break
                except (ConnectionError, asyncio.IncompleteReadError):
                    break
                if event is None:
                    break
                try:
                    await self.handle_event(event)
                except (ConnectionError, OSError):  # the peer went away mid-answer
                    break
                except Exception:  # a bug ends as an error event, and the connection lives
                    log.exception("wyoming: a %s event failed", event.type)
                    with contextlib.suppress(ConnectionError, OSError):
                        await self.write(Error(text=INTERNAL, code="internal").event())
        finally:
            if self.used_own_session:
                self.service.daemon.forget(self.session)
            self.writer.close()

    async def stop(self) -> None:
        self._running = False
        self.writer.close()

    async def write(self, event: Event) -> None:
        await write_event(self.writer, event)

    async def handle_event(self, event: Event) -> None:
        if Describe.is_type(event.type):
            await self.write(self.service.info.event())
        elif Transcript.is_type(event.type):
            await self._transcript(event)
        elif Ping.is_type(event.type):
            text = event.data.get("text")
            await self.write(Pong(text=clean_text(text) if isinstance(text, str) else None).event())
        elif event.type == "info":
            self._described(event.data)
        elif self.service.voice is not None and self.service.voice.handles(event):
            self.listening = self.listening or Listening()
            await self.service.voice.handle(event, self.listening, self.write)
        else:
            log.debug("wyoming: ignored a %s event", event.type)

    def _described(self, data: dict[str, Any]) -> None:
        """A peer's own `info`: a satellite, and its area."""
        satellite = data.get("satellite")
        if isinstance(satellite, dict):
            self.satellite = True
            area = satellite.get("area")
            if isinstance(area, str) and area.strip():
                self.area = " ".join(clean_text(area).lower().split())
            log.info("wyoming: a satellite connected (area %s)", self.area or "unknown")

    async def _transcript(self, event: Event) -> None:
        text = event.data.get("text")
        context = event.data.get("context")
        if not isinstance(text, str):
            await self.write(Error(text="a transcript needs text", code="bad_event").event())
            return
        limit = self.service.limits.max_text_chars
        if len(text) > limit:
            message = f"The text is longer than {limit} characters"
            await self.write(NotHandled(text=message, context=_dict(context)).event())
            return
        if lone_surrogate(text):
            await self.write(NotHandled(text=LONE_SURROGATE, context=_dict(context)).event())
            return
        session = session_of(context, self.session)
        self.used_own_session = self.used_own_session or session == self.session
        if len(self.sessions) < MAX_SESSIONS_PER_CONNECTION:
            self.sessions.add(session)
        site = site_of(context)
        self.site = site or self.site
        settings = self.service.settings
        room = settings.area_of(site) or self.area
        origin = Origin(NAME, session, room, site or self.session)
        voice = self.service.voice
        heard = (voice.hearings.take(text) if voice is not None else None) or heard_in(context)
        if heard is not None:  # what our own asr service heard: a doubtful action is asked back
            heard = replace(heard, text=text)
        self.busy = True
        try:
            async with self.service.daemon.request():
                answer = await self.service.daemon.ask(NAME, text, session, origin, heard=heard)
                reply: Handled | NotHandled
                if answer.outcome is Outcome.NOT_UNDERSTOOD:
                    reply = NotHandled(text=answer.text, context=_dict(context))
                else:
                    reply = Handled(text=answer.text, context=_dict(context))
                await self.write(reply.event())
        except Unavailable as exc:
            await self.write(NotHandled(text=exc.message, context=_dict(context)).event())
        finally:
            self.busy = False

    def serves(self, origin: Origin) -> bool:
        """This open connection is the satellite the request came from."""
        return self.satellite and (
            origin.session in self.sessions
            or origin.session == self.session
            or (origin.site is not None and origin.site in (self.site, self.session))
        )


class WyomingService:
    """Listens for Wyoming clients; one `TranscriptHandler` per connection."""

    name = NAME

    def __init__(
        self,
        daemon: Daemon,
        settings: WyomingSettings,
        limits: Limits,
        language: str,
        announce: Callable[[str, str], None],
        max_connections: int | None = None,
        voice: WyomingVoice | None = None,
    ) -> None:
        self.daemon = daemon
        self.settings = settings
        self.limits = limits
        self.announce = announce
        self.voice = voice  # the asr and tts services, when offered
        asr = voice is not None and voice.asr
        tts = voice is not None and voice.tts
        self.info = service_info(language, asr=asr, tts=tts)
        self.max_connections = max_connections or limits.max_connections
        self.clients = ClientCounts(min(limits.max_connections_per_client, self.max_connections))
        self.refused = 0
        self.handlers: dict[asyncio.Task[None], TranscriptHandler] = {}
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listen (`CannotListen` says where and why) and say where."""
        listen = self.settings.listen
        limit = self.limits.max_body_bytes
        if listen.scheme == "unix":
            prepare_unix_path(self.name, listen.path)
            try:
                self._server = await asyncio.start_unix_server(
                    self._connected, listen.path, limit=limit
                )
            except OSError as exc:
                raise describe(self.name, listen.url("unix"), exc) from exc
            self.announce(self.name, listen.url("unix"))
            return
        try:
            self._server = await asyncio.start_server(
                self._connected, listen.host, listen.port, limit=limit
            )
        except OSError as exc:
            raise describe(self.name, listen.url("tcp"), exc) from exc
        port = self._server.sockets[0].getsockname()[1]
        if not listen.loopback:
            log.warning(
                "wyoming listens on %s: the Wyoming protocol has no authentication", listen.host
            )
        self.announce(self.name, listen.url("tcp", port))

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        address = client_address(writer.get_extra_info("peername"))
        if not self.clients.admit(address):
            log.warning(
                "wyoming: refused a connection from %s: it has %d open, the limit "
                "(limits.max_connections_per_client)",
                address,
                self.clients.limit,
            )
            message = (
                f"Mnemolis has {self.clients.limit} connections open on wyoming from your "
                "address, its limit for one client; try again shortly"
            )
            self._spawn(self._refuse(writer, message))
            return
        if len(self.handlers) >= self.max_connections:
            self.clients.release(address)
            self.refused += 1
            log.warning(
                "wyoming: refused a connection: %d are open, the limit (limits.max_connections "
                "and the open-file limit)",
                len(self.handlers),
            )
            message = (
                f"Mnemolis has {len(self.handlers)} connections open on wyoming, its limit; "
                "try again shortly"
            )
            self._spawn(self._refuse(writer, message))
            return
        handler = TranscriptHandler(reader, writer, self)
        task = asyncio.create_task(handler.run(), name="wyoming connection")
        self.handlers[task] = handler
        task.add_done_callback(lambda t: self._closed(t, address))

    def _closed(self, task: asyncio.Task[None], address: str | None) -> None:
        self.handlers.pop(task, None)
        self.clients.release(address)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _refuse(writer: asyncio.StreamWriter, message: str) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            error = Error(text=message, code="too_many_connections").event()
            await asyncio.wait_for(write_event(writer, error), 1.0)
        writer.close()

    # ------------------------------------------------------------------ announcements

    def speak(self, announcement: Announcement) -> bool:
        """A timer that rang, as ``timer-finished`` to the satellite that set it, while it
        is connected (any other announcement goes to the satellite's area instead)."""
        return self._tell(announcement)

    def show(self, notice: TimerNotice) -> bool:
        """A timer's start, change or cancellation, to the satellite that set it."""
        return self._tell(notice)

    def _tell(self, said: Announcement | TimerNotice) -> bool:
        event = timer_event(said)
        if event is None:
            return False
        for handler in self.handlers.values():
            if handler.serves(said.origin):
                self._spawn(self._send(handler, event))
                return True
        return False

    @staticmethod
    async def _send(handler: TranscriptHandler, event: Event) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await handler.write(event)

    # ------------------------------------------------------------------ stopping

    def refuse(self) -> None:
        """Stop accepting connections; open ones still get their answers."""
        if self._server is not None:
            self._server.close()

    async def close(self) -> None:
        """Let transcripts being answered finish (boundedly), then close every connection."""
        self.refuse()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.drain_s
        while any(h.busy for h in self.handlers.values()) and loop.time() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.gather(*(h.stop() for h in list(self.handlers.values())))
        if self.handlers:
            await asyncio.wait(list(self.handlers), timeout=1.0)
        if self.settings.listen.scheme == "unix":
            with contextlib.suppress(OSError):
                os.unlink(self.settings.listen.path)
