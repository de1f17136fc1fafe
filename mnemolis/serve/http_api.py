"""HTTP JSON: `POST /ask`, `GET /health`, `GET /intents`, `POST /reload`, `GET /events`.

Served by aiohttp (`http_server` guards it: deadlines from the first byte,
connection caps, JSON refusals) on the daemon's own event loop, so a request
in flight is a task the daemon waits for when it drains. The same API
listens on a unix socket for the CLI (``http.socket``), where the socket's
permissions stand in for the token. Everything a client sends is bounded:
the request line and each header, the header count, the body by
``max_body_bytes``, its JSON's depth (`wire`), the time to send a request by
``read_timeout_s``. Bad input gets a JSON error and a status code, never a
traceback. Before anything else, web pages are kept out (`web_guard`: a
foreign ``Host`` 421, an ``Origin`` not allowed 403, a body that is not
JSON 415). With a token (the daemon makes one, `token_file`), every endpoint
but `/health` wants ``Authorization: Bearer <token>``; `/health` stays open
for monitors and says nothing a stranger could use. Sessions are HTTP's own
(`sessions`): ``http:<session>`` over TCP, ``local:<session>`` on the socket.
`/hello` and ``expect`` compare homes only for a client with the token (or
on the socket): to anyone else they would tell whether a guess at one of the
daemon's variables is right.
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
from mnemolis.serve.sessions import HTTP, LOCAL, scoped
from mnemolis.serve.settings import AUTO, HttpSettings, Limits
from mnemolis.serve.web_guard import Refused, WebGuard
from mnemolis.serve.wire import NotJson, loads

log = logging.getLogger(__name__)

NAME = HTTP
DEFAULT_SESSION = "http"
OPEN_PATHS = frozenset({"/health"})
#: Who may say they are a CLI command (``"via"``) in a request.
VIA = frozenset({"cli", "chat"})
SOCKET_MODE = 0o660
#: What a client without the token hears when it asks to compare homes.
NO_COMPARING = (
    "This daemon has no token, so it compares homes with no one over TCP; ask through "
    "its unix socket, or give it a token"
)


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False


def error(status: int, code: str, message: str, **headers: str) -> Reply:
    return Reply(status, error_body(code, message), dict(headers))


def refusal(refused: Refused) -> Reply:
    return error(refused.status, refused.code, refused.message)


@dataclass
class _Call:
    """One request as the routes see it."""

    request: web.BaseRequest
    body: bytes
    trusted: bool  # came over the unix socket
    authenticated: bool  # the socket, or the token was checked

    @property
    def namespace(self) -> str:
        return LOCAL if self.trusted else HTTP


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
        per_client = limits.max_connections_per_client
        self.guard = Guard(NAME, limits.read_timeout_s, cap, per_client)
        self.socket_guard = Guard(f"{NAME} (unix socket)", limits.read_timeout_s, cap)
        self.web = WebGuard(settings.listen.host, settings.allowed_hosts, settings.allowed_origins)
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
        reply.headers.update(self.web.cors(request.headers.get("Origin")))
        return self._response(reply)

    def _response(self, reply: Reply) -> web.Response:
        response = web.Response(
            status=reply.status,
            body=to_json(reply.body) if reply.status != 204 else None,
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
        refused = self._framing(request) or self._foreign(request, trusted)
        if refused is not None:
            return refused
        methods = self.routes.get(request.path)
        if methods is None:
            known = ", ".join(self.routes)
            return error(404, "not_found", f"There is no {request.path}; try {known}")
        route = methods.get(request.method)
        origin = request.headers.get("Origin")
        if route is None and request.method == "OPTIONS" and origin is not None:
            return Reply(204, {}, self.web.preflight(origin, methods))
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
        content = request.headers.get("Content-Type")
        unsupported = self.web.content(request.method, request.content_length, content)
        if unsupported is not None:
            return refusal(unsupported)
        body = await self._body(request, left_s)
        if isinstance(body, Reply):
            return body
        authenticated = trusted or self.token is not None
        try:
            return await route(_Call(request, body, trusted, authenticated))
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

    def _foreign(self, request: web.BaseRequest, trusted: bool) -> Reply | None:
        """A web page's request: a name this daemon was not given (421; not on the
        socket, which no page reaches by name), an origin not allowed (403)."""
        host = None if trusted else self.web.host(request.headers.get("Host"))
        refused = host or self.web.origin(request.headers.get("Origin"))
        if refused is None:
            return None
        log.info("http: refused a request: %s", refused.message)
        return refusal(refused)

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

    def _other_home(self, fields: dict[str, Any], call: _Call) -> Reply | None:
        """409 when the CLI expects another home than this daemon serves; always 409, and
        the same words, for a client without the token (nothing it could learn from)."""
        if "expect" not in fields:
            return None
        if not call.authenticated:
            return error(409, "other_home", NO_COMPARING)
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
        other = self._other_home(fields, call)
        if other is not None:
            return other
        words = sorted(self.daemon.assistant.settings.quit_words)
        return Reply(200, {"version": __version__, "quit_words": words})

    async def ask(self, call: _Call) -> Reply:
        parsed = read_json_request(call.body, DEFAULT_SESSION, self.limits.max_text_chars)
        if isinstance(parsed, BadRequest):
            return Reply(parsed.status, parsed.to_dict())
        fields = parsed.fields
        other = self._other_home(fields, call)
        if other is not None:
            return other
        via = fields.get("via")
        front_end = via if isinstance(via, str) and via in VIA else NAME
        # a request that names no session shares "http", but nobody else's yes counts for it
        scope = None if parsed.named_session else f"request:{next(self._requests)}"
        session = scoped(call.namespace, parsed.session)
        origin = Origin(front_end, session, parsed.room)
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(front_end, parsed.text, session, origin, scope)
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
        named = call.request.query.get("session") or None
        session = scoped(call.namespace, named) if named is not None else None
        cors = self.web.cors(call.request.headers.get("Origin"))
        return await self.events.stream(call.request, session, cors)


__all__ = ["CannotListen", "HttpApi"]
