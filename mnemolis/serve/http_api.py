"""HTTP JSON: `POST /ask`, `GET /health`, `GET /intents`, `POST /reload`.

A small HTTP/1.1 server on asyncio streams (keep-alive, ``Content-Length``
bodies, ``Expect: 100-continue``), on the daemon's own event loop, so a
request in flight is simply a task the daemon can wait for when it drains.
Everything a client sends is bounded: the request line and each header by
the stream's limit, the header count, the body by ``max_body_bytes``, and
the time to send a request once begun by ``read_timeout_s``. Bad input gets
a JSON error and a status code, never a traceback. With a token set, every
endpoint but `/health` wants ``Authorization: Bearer <token>``; `/health`
stays open for monitors and says nothing a stranger could use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from mnemolis import __version__
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.requests import (
    BadRequest,
    answer_payload,
    read_json_request,
    to_json,
    token_matches,
)
from mnemolis.serve.settings import HttpSettings, Limits

log = logging.getLogger(__name__)

NAME = "http"
DEFAULT_SESSION = "http"
LINE_LIMIT = 16_384  # the request line and each header line
MAX_HEADERS = 100
OPEN_PATHS = frozenset({"/health"})


@dataclass
class HttpRequest:
    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes = b""

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return connection == "keep-alive"
        return connection != "close"


@dataclass
class HttpResponse:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False


def error(status: int, code: str, message: str, **headers: str) -> HttpResponse:
    return HttpResponse(status, {"error": message, "code": code}, dict(headers))


class HttpError(Exception):
    """A request that cannot be read; the connection ends after the error response."""

    def __init__(self, response: HttpResponse) -> None:
        super().__init__(response.body.get("error"))
        self.response = response


@dataclass(eq=False)
class _Connection:
    writer: asyncio.StreamWriter
    busy: bool = False


Route = Callable[[HttpRequest], Awaitable[HttpResponse]]


class HttpApi:
    """The HTTP front-end."""

    name = NAME

    def __init__(
        self,
        daemon: Daemon,
        settings: HttpSettings,
        limits: Limits,
        token: str | None,
        announce: Callable[[str, str], None],
    ) -> None:
        self.daemon = daemon
        self.settings = settings
        self.limits = limits
        self.token = token
        self.announce = announce
        self.closing = False
        self.connections: set[_Connection] = set()
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.routes: dict[str, dict[str, Route]] = {
            "/ask": {"POST": self.ask},
            "/health": {"GET": self.health},
            "/intents": {"GET": self.intents},
            "/reload": {"POST": self.reload},
        }

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Listen (raises OSError when the address is taken) and say where."""
        listen = self.settings.listen
        self._server = await asyncio.start_server(
            self._connected, listen.host, listen.port, limit=LINE_LIMIT
        )
        port = self._server.sockets[0].getsockname()[1]
        if not listen.loopback and self.token is None:
            log.warning(
                "http listens on %s without a token: anyone who can reach it may ask", listen.host
            )
        self.announce(self.name, listen.url("http", port))

    def refuse(self) -> None:
        """Stop accepting; idle keep-alive connections are closed, busy ones finish."""
        self.closing = True
        if self._server is not None:
            self._server.close()
        for connection in self.connections:
            if not connection.busy:
                connection.writer.close()

    async def close(self) -> None:
        self.refuse()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.drain_s
        while any(c.busy for c in self.connections) and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for connection in self.connections:
            connection.writer.close()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=1.0)

    # ------------------------------------------------------------------ connections

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(self._serve(reader, writer), name="http connection")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = _Connection(writer)
        self.connections.add(connection)
        try:
            while not self.closing:
                try:
                    request = await self._read(reader, writer, connection)
                except HttpError as exc:
                    exc.response.close = True
                    await self._write(writer, exc.response)
                    break
                if request is None:
                    break
                response = await self._respond(request)
                response.close = response.close or not request.keep_alive or self.closing
                await self._write(writer, response)
                connection.busy = False
                if response.close:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            connection.busy = False
            self.connections.discard(connection)
            writer.close()

    async def _read(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connection: _Connection
    ) -> HttpRequest | None:
        """The next request; None when the client is done (or idle past keepalive_s)."""
        try:
            first = await asyncio.wait_for(reader.readline(), self.limits.keepalive_s)
        except TimeoutError:
            return None
        except ValueError as exc:  # over the stream's line limit
            raise HttpError(error(414, "uri_too_long", "The request line is too long")) from exc
        if not first.strip():
            return None
        connection.busy = True
        try:
            return await asyncio.wait_for(
                self._read_rest(first, reader, writer), self.limits.read_timeout_s
            )
        except TimeoutError as exc:
            raise HttpError(error(408, "timeout", "The request did not arrive in time")) from exc

    async def _read_rest(
        self, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> HttpRequest:
        try:
            method, target, version = first.decode("latin-1").split()
        except ValueError as exc:
            raise HttpError(error(400, "bad_request", "The request line is malformed")) from exc
        if not version.startswith("HTTP/1."):
            raise HttpError(error(505, "bad_version", "Only HTTP/1.0 and HTTP/1.1 are spoken"))
        headers: dict[str, str] = {}
        while True:
            try:
                line = await reader.readline()
            except ValueError as exc:
                raise HttpError(error(431, "header_too_large", "A header is too long")) from exc
            if line in (b"\r\n", b"\n", b""):
                break
            if len(headers) >= MAX_HEADERS:
                raise HttpError(error(431, "header_too_large", "There are too many headers"))
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep or not name.strip():
                raise HttpError(error(400, "bad_request", "A header is malformed"))
            headers[name.strip().lower()] = value.strip()
        if "transfer-encoding" in headers:
            raise HttpError(
                error(501, "chunked", "Chunked bodies are not supported; send Content-Length")
            )
        length_text = headers.get("content-length", "0")
        if not length_text.isdigit():
            raise HttpError(error(400, "bad_request", "Content-Length is not a number"))
        length = int(length_text)
        if length > self.limits.max_body_bytes:
            limit = self.limits.max_body_bytes
            raise HttpError(error(413, "too_large", f"The body is over {limit} bytes"))
        if length and headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = await reader.readexactly(length) if length else b""
        return HttpRequest(method.upper(), target.split("?", 1)[0], version, headers, body)

    async def _write(self, writer: asyncio.StreamWriter, response: HttpResponse) -> None:
        body = to_json(response.body)
        phrase = HTTPStatus(response.status).phrase
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Content-Length": str(len(body)),
            "Cache-Control": "no-store",
            "Connection": "close" if response.close else "keep-alive",
            **response.headers,
        }
        head = f"HTTP/1.1 {response.status} {phrase}\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        writer.write(head.encode("latin-1") + b"\r\n" + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    # ------------------------------------------------------------------ routing

    async def _respond(self, request: HttpRequest) -> HttpResponse:
        methods = self.routes.get(request.path)
        if methods is None:
            return error(
                404, "not_found", f"There is no {request.path}; try {', '.join(self.routes)}"
            )
        route = methods.get(request.method)
        if route is None:
            allowed = ", ".join(methods)
            return error(
                405,
                "method_not_allowed",
                f"The {request.path} endpoint takes {allowed}",
                Allow=allowed,
            )
        if self.token is not None and request.path not in OPEN_PATHS:
            scheme, _, given = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not token_matches(given.strip(), self.token):
                return error(
                    401,
                    "unauthorized",
                    "This needs the token: send Authorization: Bearer <token>",
                    **{"WWW-Authenticate": 'Bearer realm="mnemolis"'},
                )
        try:
            return await route(request)
        except Exception:  # a bug must end as a JSON error, never a traceback to the client
            log.exception("http: %s %s failed", request.method, request.path)
            return error(500, "internal", "Something went wrong; the daemon's log says what")

    async def ask(self, request: HttpRequest) -> HttpResponse:
        parsed = read_json_request(request.body, DEFAULT_SESSION, self.limits.max_text_chars)
        if isinstance(parsed, BadRequest):
            return HttpResponse(parsed.status, parsed.to_dict())
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(NAME, parsed.text, parsed.session)
        except Unavailable as exc:
            status = 500 if exc.code == "internal" else 503
            response = error(status, exc.code, exc.message, **{"Retry-After": "1"})
            if parsed.id is not None:
                response.body["id"] = parsed.id
            return response
        return HttpResponse(200, answer_payload(answer, parsed.session, parsed.id))

    async def health(self, _request: HttpRequest) -> HttpResponse:
        daemon = self.daemon
        body = {
            "status": "draining" if daemon.draining else "ok",
            "version": __version__,
            "generation": daemon.generation.number,
            "uptime_s": round(time.monotonic() - daemon.started_at, 1),
            "in_flight": daemon.in_flight,
            "answered": daemon.answered,
        }
        return HttpResponse(503 if daemon.draining else 200, body)

    async def intents(self, _request: HttpRequest) -> HttpResponse:
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
        return HttpResponse(200, {"generation": self.daemon.generation.number, "intents": intents})

    async def reload(self, _request: HttpRequest) -> HttpResponse:
        if self.daemon.draining:
            return error(503, "shutting_down", "Mnemolis is shutting down")
        result = await self.daemon.reload()
        return HttpResponse(200 if result.ok else 422, result.to_dict())
