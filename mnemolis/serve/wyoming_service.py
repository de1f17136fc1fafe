"""The Wyoming protocol: Mnemolis as a "handle" service (a conversation agent).

Home Assistant's Wyoming integration and wyoming-satellite connect, may ask
``describe`` (answered with an `Info` naming one `HandleProgram`) or
``ping`` (``pong``), and send a ``transcript``; the reply is ``handled`` with the answer's text, or
``not-handled`` when nothing was understood. The conversation is the one
the transcript's context names (Home Assistant sends ``conversation_id``,
``satellite_id``, ``device_id``), else the connection's own, forgotten when
it closes.

Why not `wyoming.server.AsyncTcpServer`: the daemon needs the port it was
given for ``:0``, and to stop accepting while in-flight transcripts are still
answered; both want the listening socket, which that class keeps private.
The handler is the package's `AsyncEventHandler`, reading events through a
bounded reader (the package's reader trusts ``data_length`` and
``payload_length`` whatever they say).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
from collections.abc import Callable
from typing import Any

from wyoming.asr import Transcript
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Attribution, Describe, HandleModel, HandleProgram, Info
from wyoming.ping import Ping, Pong
from wyoming.server import AsyncEventHandler

from mnemolis import __version__
from mnemolis.answer import Outcome
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.settings import Limits, WyomingSettings

log = logging.getLogger(__name__)

NAME = "wyoming"
#: Context keys that name a conversation, the most specific first.
CONTEXT_KEYS = ("conversation_id", "satellite_id", "device_id")
MAX_ID_CHARS = 100
DESCRIPTION = "Mnemolis: compound home requests, offline encyclopedia, weather and clock"


class BadEvent(Exception):
    """An event that breaks the protocol or the size limits."""


async def read_event(reader: asyncio.StreamReader, max_bytes: int) -> Event | None:
    """The next event, None at the end of the stream; `BadEvent` when it is malformed.

    The header line is bounded by the reader's own limit."""
    try:
        line = await reader.readline()
    except ValueError as exc:  # the line is over the reader's limit
        raise BadEvent("an event header is too long") from exc
    if not line:
        return None
    try:
        header = json.loads(line)
    except ValueError as exc:
        raise BadEvent("an event header is not JSON") from exc
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise BadEvent("an event has no type")
    data = header.get("data") or {}
    data_length = header.get("data_length") or 0
    payload_length = header.get("payload_length") or 0
    if not isinstance(data, dict):
        raise BadEvent("an event's data is not an object")
    for length in (data_length, payload_length):
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise BadEvent("an event's length is not a number")
    if data_length + payload_length > max_bytes:
        raise BadEvent(f"an event is over {max_bytes} bytes")
    if data_length:
        try:
            extra = json.loads(await reader.readexactly(data_length))
        except ValueError as exc:
            raise BadEvent("an event's data is not JSON") from exc
        if not isinstance(extra, dict):
            raise BadEvent("an event's data is not an object")
        data.update(extra)
    payload = await reader.readexactly(payload_length) if payload_length else None
    return Event(type=header["type"], data=data, payload=payload)


def service_info(language: str) -> Info:
    """What ``describe`` answers: one handle program with one model for the language."""
    attribution = Attribution(name="Mnemolis", url="")
    model = HandleModel(
        name=f"mnemolis-{language}",
        attribution=attribution,
        installed=True,
        description="the intents of the configuration directory",
        version=__version__,
        languages=[language],
    )
    program = HandleProgram(
        name="mnemolis",
        attribution=attribution,
        installed=True,
        description=DESCRIPTION,
        version=__version__,
        models=[model],
        supports_home_control=True,
    )
    return Info(handle=[program])


def session_of(context: Any, fallback: str) -> str:
    """The conversation a transcript belongs to: its context's id, else ``fallback``."""
    if isinstance(context, dict):
        for key in CONTEXT_KEYS:
            value = context.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
                return f"wyoming:{key.removesuffix('_id')}:{str(value)[:MAX_ID_CHARS]}"
    return fallback


class TranscriptHandler(AsyncEventHandler):
    """One connection: describe and transcript events, one after the other."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        service: WyomingService,
        number: int,
    ) -> None:
        super().__init__(reader, writer)
        self.service = service
        self.session = f"wyoming:connection:{number}"
        self.busy = False
        self.used_own_session = False

    async def run(self) -> None:
        """`AsyncEventHandler.run`, with the bounded reader and a goodbye for bad events."""
        self._is_running = True
        try:
            while self._is_running:
                try:
                    event = await read_event(self.reader, self.service.limits.max_body_bytes)
                except BadEvent as exc:
                    log.warning("wyoming: closing a connection: %s", exc)
                    with contextlib.suppress(ConnectionError):
                        await self.write_event(Error(text=str(exc), code="bad_event").event())
                    break
                except (ConnectionError, asyncio.IncompleteReadError):
                    break
                if event is None or not await self.handle_event(event):
                    break
        finally:
            await self.disconnect()
            self.writer.close()

    async def disconnect(self) -> None:
        if self.used_own_session:
            self.service.daemon.forget(self.session)

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self.service.info.event())
            return True
        if Transcript.is_type(event.type):
            await self._transcript(event)
            return True
        if Ping.is_type(event.type):
            text = event.data.get("text")
            await self.write_event(Pong(text=text if isinstance(text, str) else None).event())
            return True
        log.debug("wyoming: ignored a %s event", event.type)
        return True

    async def _transcript(self, event: Event) -> None:
        text = event.data.get("text")
        context = event.data.get("context")
        if not isinstance(text, str):
            await self.write_event(Error(text="a transcript needs text", code="bad_event").event())
            return
        limit = self.service.limits.max_text_chars
        if len(text) > limit:
            message = f"The text is longer than {limit} characters"
            await self.write_event(NotHandled(text=message, context=_dict(context)).event())
            return
        session = session_of(context, self.session)
        self.used_own_session = self.used_own_session or session == self.session
        self.busy = True
        try:
            async with self.service.daemon.request():
                answer = await self.service.daemon.ask(NAME, text, session)
                reply: Handled | NotHandled
                if answer.outcome is Outcome.NOT_UNDERSTOOD:
                    reply = NotHandled(text=answer.text, context=_dict(context))
                else:
                    reply = Handled(text=answer.text, context=_dict(context))
                await self.write_event(reply.event())
        except Unavailable as exc:
            await self.write_event(NotHandled(text=exc.message, context=_dict(context)).event())
        finally:
            self.busy = False


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


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
    ) -> None:
        self.daemon = daemon
        self.settings = settings
        self.limits = limits
        self.announce = announce
        self.info = service_info(language)
        self.handlers: dict[asyncio.Task[None], TranscriptHandler] = {}
        self._server: asyncio.AbstractServer | None = None
        self._numbers = itertools.count(1)

    async def start(self) -> None:
        """Listen (raises OSError when the address is taken) and say where."""
        listen = self.settings.listen
        limit = self.limits.max_body_bytes
        if listen.scheme == "unix":
            self._server = await asyncio.start_unix_server(
                self._connected, listen.path, limit=limit
            )
            self.announce(self.name, listen.url("unix"))
            return
        self._server = await asyncio.start_server(
            self._connected, listen.host, listen.port, limit=limit
        )
        port = self._server.sockets[0].getsockname()[1]
        if not listen.loopback:
            log.warning(
                "wyoming listens on %s: the Wyoming protocol has no authentication", listen.host
            )
        self.announce(self.name, listen.url("tcp", port))

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = TranscriptHandler(reader, writer, self, next(self._numbers))
        task = asyncio.create_task(handler.run(), name="wyoming connection")
        self.handlers[task] = handler
        task.add_done_callback(lambda t: self.handlers.pop(t, None))

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
