"""HTTP JSON: `POST /ask`, `GET /health`, `GET /intents`, `POST /reload`, `GET /events`.

Served by aiohttp (`http_server` guards it: deadlines from the first byte,
connection caps, JSON refusals) on the daemon's own event loop, so a request
in flight is a task the daemon waits for when it drains. The same API
listens on a unix socket for the CLI (``http.socket``), where the socket's
permissions stand in for the token. Everything a client sends is bounded:
the request line and each header, the header count, the body by
``max_body_bytes``, the time to send a request by ``read_timeout_s``. Bad
input gets a JSON error and a status code, never a traceback. With a token
set, every endpoint but `/health` wants ``Authorization: Bearer <token>``;
`/health` stays open for monitors and says nothing a stranger could use.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from mnemolis import __version__
from mnemolis.core.origin import Origin
from mnemolis.serve.client import daemon_socket, mismatch
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.http_events import EventStreams
from mnemolis.serve.http_server import Guard, GuardedServer, error_body, guarded
from mnemolis.serve.listeners import CannotListen, describe, prepare_unix_path
from mnemolis.serve.requests import (
    BadRequest,
    answer_payload,
    read_json_request,
    to_json,
    token_matches,
)
from mnemolis.serve.settings import AUTO, HttpSettings, Limits
from mnemolis.serve.wire import NotJson, loads

log = logging.getLogger(__name__)

NAME = "http"
DEFAULT_SESSION = "http"
OPEN_PATHS = frozenset({"/health"})
#: Who may say they are a CLI command (``"via"``) in a request.
VIA = frozenset({"cli", "chat"})
SOCKET_MODE = 0o660


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False


def error(status: int, code: str, message: str, **headers: str) -> Reply:
    return Reply(status, error_body(code, message), dict(headers))


@dataclass
class _Call:
    """One request as the routes see it."""

    request: web.BaseRequest
    body: bytes
    trusted: bool  # came over the unix socket


Route = Callable[[_Call], Awaitable[Reply | web.StreamResponse]]


class HttpApi:
    """The HTTP front-end: a TCP listener and, for the CLI, a unix socket."""

    name = NAME

    def __init__(
        self,
        daemon: Daemon,
        settings: HttpSettings,
        limits: Limits,
        token: str | None,
        announce: Callable[[str, str], None],
        events: EventStreams | None = None,
        max_connections: int | None = None,
    ) -> None:
        self.daemon = daemon
        self.settings = settings
        self.limits = limits
        self.token = token
        self.announce = announce
        self.events = events or EventStreams()
        self.closing = False
        cap = max_connections or limits.max_connections
        self.guard = Guard(NAME, limits.read_timeout_s, cap)
        self.socket_guard = Guard(f"{NAME} (unix socket)", limits.read_timeout_s, cap)
        self.socket_path: str | None = None
        self._requests = itertools.count(1)
        self._servers: list[tuple[GuardedServer, asyncio.AbstractServer]] = []
        self.routes: dict[str, dict[str, Route]] = {
            "/ask": {"POST": self.ask},
            "/health": {"GET": self.health},
            "/intents": {"GET": self.intents},
            "/reload": {"POST": self.reload},
            "/events": {"GET": self.stream},
            "/hello": {"POST": self.hello},
        }

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Listen (`CannotListen` says where and why) and say where."""
        loop = asyncio.get_running_loop()
        listen = self.settings.listen
        server = GuardedServer(self._tcp, self.guard, self.limits.keepalive_s)
        try:
            listening = await loop.create_server(server, listen.host, listen.port)
        except OSError as exc:
            raise describe(self.name, listen.url("http"), exc) from exc
        self._servers.append((server, listening))
        port = listening.sockets[0].getsockname()[1]
        if not listen.loopback and self.token is None:
            log.warning(
                "http listens on %s without a token: anyone who can reach it may ask", listen.host
            )
        await self._start_socket()
        self.announce(self.name, listen.url("http", port))

    async def _start_socket(self) -> None:
        path = self._socket_path()
        if path is None:
            return
        if self.settings.socket == AUTO:
            with contextlib.suppress(OSError):  # $XDG_RUNTIME_DIR/mnemolis may not exist yet
                Path(path).parent.mkdir(mode=0o700, exist_ok=True)
        prepare_unix_path(self.name, path)
        loop = asyncio.get_running_loop()
        server = GuardedServer(self._unix, self.socket_guard, self.limits.keepalive_s)
        try:  # born with the umask's mode (0755: only the owner may connect), then 0660
            listening = await loop.create_unix_server(server, path)
        except OSError as exc:
            raise describe(self.name, f"unix://{path}", exc) from exc
        os.chmod(path, SOCKET_MODE)
        self._servers.append((server, listening))
        self.socket_path = path
        log.info("http: the CLI's socket is unix://%s", path)

    def _socket_path(self) -> str | None:
        socket = self.settings.socket
        if socket is None:
            return None
        if socket == AUTO:
            found = daemon_socket(os.environ)
            return str(found) if found is not None else None
        return socket

    def refuse(self) -> None:
        """Stop accepting; idle keep-alive connections close, busy ones finish."""
        self.closing = True
        for server, listening in self._servers:
            listening.close()
            server.pre_shutdown()
        self.events.close()

    async def close(self) -> None:
        self.refuse()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.drain_s
        while self.daemon.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for server, listening in self._servers:
            with contextlib.suppress(Exception):
                await server.shutdown(1.0)
            with contextlib.suppress(Exception):
                await listening.wait_closed()
        if self.socket_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.socket_path)

    # ------------------------------------------------------------------ requests

    async def _tcp(self, request: web.BaseRequest) -> web.StreamResponse:
        return await self._handle(request, trusted=False)

    async def _unix(self, request: web.BaseRequest) -> web.StreamResponse:
        return await self._handle(request, trusted=True)

    async def _handle(self, request: web.BaseRequest, trusted: bool) -> web.StreamResponse:
        protocol = guarded(request)
        left = protocol.began() if protocol is not None else self.limits.read_timeout_s
        try:
            reply = await self._respond(request, trusted, left)
        finally:
            if protocol is not None:
                protocol.ended()
        if isinstance(reply, web.StreamResponse):
            return reply
        return self._response(reply)

    def _response(self, reply: Reply) -> web.Response:
        response = web.Response(
            status=reply.status,
            body=to_json(reply.body),
            content_type="application/json",
            charset="utf-8",
            headers={"Cache-Control": "no-store", "Server": "mnemolis", **reply.headers},
        )
        if reply.close or self.closing:
            response.force_close()
        return response

    async def _respond(
        self, request: web.BaseRequest, trusted: bool, left_s: float
    ) -> Reply | web.StreamResponse:
        refused = self._framing(request)
        if refused is not None:
            return refused
        methods = self.routes.get(request.path)
        if methods is None:
            known = ", ".join(self.routes)
            return error(404, "not_found", f"There is no {request.path}; try {known}")
        route = methods.get(request.method)
        if route is None:
            allowed = ", ".join(methods)
            return error(
                405,
                "method_not_allowed",
                f"The {request.path} endpoint takes {allowed}",
                Allow=allowed,
            )
        if not trusted and self.token is not None and request.path not in OPEN_PATHS:
            scheme, _, given = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not token_matches(given.strip(), self.token):
                return error(
                    401,
                    "unauthorized",
                    "This needs the token: send Authorization: Bearer <token>",
                    **{"WWW-Authenticate": 'Bearer realm="mnemolis"'},
                )
        body = await self._body(request, left_s)
        if isinstance(body, Reply):
            return body
        try:
            return await route(_Call(request, body, trusted))
        except Exception:  # a bug must end as a JSON error, never a traceback to the client
            log.exception("http: %s %s failed", request.method, request.path)
            return error(500, "internal", "Something went wrong; the daemon's log says what")

    def _framing(self, request: web.BaseRequest) -> Reply | None:
        """A body that will not be read, refused first (and the connection closed)."""
        reply = None
        limit = self.limits.max_body_bytes
        if "Transfer-Encoding" in request.headers:
            reply = error(501, "chunked", "Chunked bodies are not supported; send Content-Length")
        elif (request.content_length or 0) > limit:
            reply = error(413, "too_large", f"The body is over {limit} bytes")
        if reply is not None:
            reply.close = True
        return reply

    async def _body(self, request: web.BaseRequest, left_s: float) -> bytes | Reply:
        """The whole body within what is left of the request's deadline."""
        length = request.content_length or 0
        if not length:
            return b""
        if request.headers.get("Expect", "").lower() == "100-continue":
            await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            return await asyncio.wait_for(request.read(), left_s)
        except TimeoutError:
            timeout = self.limits.read_timeout_s
            reply = error(408, "timeout", f"The request did not arrive within {timeout:g} s")
            reply.close = True
            return reply

    # ------------------------------------------------------------------ routes

    def _other_home(self, fields: dict[str, Any]) -> Reply | None:
        """409 when the CLI expects another home than this daemon serves."""
        if "expect" not in fields:
            return None
        why = mismatch(fields["expect"], self.daemon.generation.config.root, os.environ)
        return None if why is None else error(409, "other_home", f"{why[0].upper()}{why[1:]}")

    async def hello(self, call: _Call) -> Reply:
        """The CLI's chat: does this daemon serve my home, and what ends a chat?"""
        try:
            fields = loads(call.body) if call.body.strip() else {}
        except (NotJson, UnicodeDecodeError) as exc:
            return error(400, "invalid_json", f"The request is not valid JSON ({exc})")
        if not isinstance(fields, dict):
            return error(400, "invalid_json", "The request must be a JSON object")
        other = self._other_home(fields)
        if other is not None:
            return other
        words = sorted(self.daemon.assistant.settings.quit_words)
        return Reply(200, {"version": __version__, "quit_words": words})

    async def ask(self, call: _Call) -> Reply:
        parsed = read_json_request(call.body, DEFAULT_SESSION, self.limits.max_text_chars)
        if isinstance(parsed, BadRequest):
            return Reply(parsed.status, parsed.to_dict())
        fields = parsed.fields
        other = self._other_home(fields)
        if other is not None:
            return other
        via = fields.get("via")
        front_end = via if isinstance(via, str) and via in VIA else NAME
        # a request that names no session shares "http", but nobody else's yes counts for it
        scope = None if parsed.named_session else f"http:{next(self._requests)}"
        origin = Origin(front_end, parsed.session, parsed.room)
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(
                    front_end, parsed.text, parsed.session, origin, scope
                )
        except Unavailable as exc:
            status = 500 if exc.code == "internal" else 503
            reply = error(status, exc.code, exc.message, **{"Retry-After": "1"})
            if parsed.id is not None:
                reply.body["id"] = parsed.id
            return reply
        return Reply(200, answer_payload(answer, parsed.session, parsed.id))

    async def health(self, _call: _Call) -> Reply:
        daemon = self.daemon
        body = {
            "status": "draining" if daemon.draining else "ok",
            "version": __version__,
            "generation": daemon.generation.number,
            "uptime_s": round(time.monotonic() - daemon.started_at, 1),
            "in_flight": daemon.in_flight,
            "answered": daemon.answered,
        }
        return Reply(503 if daemon.draining else 200, body)

    async def intents(self, _call: _Call) -> Reply:
        config = self.daemon.generation.config
        intents = [
            {
                "name": spec.name,
                "source": spec.source,
                "slots": list(spec.slots),
                "phrases": [p.text for p in spec.phrases],
                "examples": [e.text for e in spec.examples],
            }
            for spec in config.intents.values()
        ]
        return Reply(200, {"generation": self.daemon.generation.number, "intents": intents})

    async def reload(self, _call: _Call) -> Reply:
        if self.daemon.draining:
            return error(503, "shutting_down", "Mnemolis is shutting down")
        result = await self.daemon.reload()
        return Reply(200 if result.ok else 422, result.to_dict())

    async def stream(self, call: _Call) -> Reply | web.StreamResponse:
        if self.closing:
            return error(503, "shutting_down", "Mnemolis is shutting down")
        session = call.request.query.get("session") or None
        return await self.events.stream(call.request, session)


__all__ = ["CannotListen", "HttpApi"]
