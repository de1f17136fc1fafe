"""`GET /events`: announcements as Server-Sent Events.

Each client holds one streaming response open. ``GET /events`` gets every
announcement (a dashboard, a monitor); ``GET /events?session=S`` only those
of requests made in session ``S`` (the CLI's chat listens so for its own).
Sessions are HTTP's own (``http:S`` over TCP, ``local:S`` on the socket:
`sessions`), and each event shows the session as its requester named it.
Every announcement is one event::

    event: announcement        (spoken: a timer rang, a reminder, a scheduled command ran)
    id: <announcement id>
    data: {"text", "kind", "id", "session", "room", "site", "front_end", "due_at", "late_s", "data"}

A timer's silent life (a `TimerNotice`: started, updated, cancelled) is
``event: lifecycle`` with ``{"event", "kind", "id", "session", "room",
"site", "front_end", "due_at", "data"}`` and no text: nothing to say.

A comment line every `HEARTBEAT_S` keeps proxies from closing an idle
stream and finds clients that went away. A client that reads too slowly
loses the oldest events of its queue, never the daemon's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from aiohttp import web

from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.serve.sessions import announcement_payload
from mnemolis.serve.wire import dumps

log = logging.getLogger(__name__)

HEARTBEAT_S = 15.0
QUEUE = 100


Said = Announcement | TimerNotice


def sse_event(item: Said) -> bytes:
    kind = "announcement" if isinstance(item, Announcement) else "lifecycle"
    ident = dumps(item.id).strip('"').replace("\n", " ")
    data = dumps(announcement_payload(item))
    return f"event: {kind}\nid: {ident}\ndata: {data}\n\n".encode()


@dataclass(eq=False)
class _Listener:
    session: str | None  # None: every announcement
    queue: asyncio.Queue[Said | None] = field(default_factory=lambda: asyncio.Queue(QUEUE))

    def put(self, announcement: Said | None) -> None:
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            log.warning("events: a slow client lost an announcement")
        self.queue.put_nowait(announcement)


class EventStreams:
    """The open ``/events`` streams; `speak` hands an announcement to them."""

    def __init__(self, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.heartbeat_s = heartbeat_s
        self._listeners: set[_Listener] = set()

    @property
    def open(self) -> int:
        return len(self._listeners)

    def listening_for(self, session: str) -> bool:
        return any(listener.session == session for listener in self._listeners)

    def watch(self, announcement: Announcement) -> None:
        """Every stream without a session filter sees every announcement."""
        for listener in self._listeners:
            if listener.session is None:
                listener.put(announcement)

    def speak(self, announcement: Announcement) -> bool:
        """To the streams of the requester's session; True when one was open."""
        reached = False
        for listener in self._listeners:
            if listener.session is not None and listener.session == announcement.origin.session:
                listener.put(announcement)
                reached = True
        return reached

    def notice(self, notice: TimerNotice) -> None:
        """A timer's silent life: to every stream without a session and to the
        requester's, as ``event: lifecycle``."""
        for listener in self._listeners:
            if listener.session in (None, notice.origin.session):
                listener.put(notice)

    def speak_to_sessions(self, announcement: Announcement) -> None:
        """A broadcast: to the streams of every session too (`watch` has the others)."""
        for listener in self._listeners:
            if listener.session is not None:
                listener.put(announcement)

    def close(self) -> None:
        """End every stream (the daemon is stopping)."""
        for listener in self._listeners:
            listener.put(None)

    async def stream(
        self,
        request: web.BaseRequest,
        session: str | None,
        headers: Mapping[str, str] | None = None,
    ) -> web.StreamResponse:
        """Hold one client's stream (``session``: a scoped key) until it goes away or the
        daemon stops; ``headers`` are added to the response's (CORS)."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
                **(headers or {}),
            }
        )
        await response.prepare(request)
        listener = _Listener(session)
        self._listeners.add(listener)
        try:
            await response.write(b": mnemolis announcements\n\n")
            while True:
                try:
                    announcement = await asyncio.wait_for(listener.queue.get(), self.heartbeat_s)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                if announcement is None:
                    break
                await response.write(sse_event(announcement))
        except ConnectionError:
            pass
        finally:
            self._listeners.discard(listener)
        with contextlib.suppress(ConnectionError, RuntimeError):
            await response.write_eof()
        return response
