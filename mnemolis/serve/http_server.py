"""aiohttp's HTTP server, guarded for a daemon that any local client can reach.

aiohttp parses HTTP/1.1 (keep-alive, ``Expect``, chunked framing, pipelining);
around its low-level `web.Server` this module adds what it leaves out:

* **A read deadline from the first byte.** A request (request line, headers
  and body) must arrive whole within ``read_timeout_s`` of its first byte, or
  it is answered 408 and the connection closed: a client sending a byte a
  second holds nothing for long. A connection that sends nothing is closed
  after ``keepalive_s`` (aiohttp's keep-alive timer, which also runs before
  the first request).
* **The request line checked first**: over `LINE_LIMIT` bytes is 414, a
  version other than HTTP/1.0 or 1.1 is 505.
* **Refusals as JSON**: a request aiohttp cannot parse gets the same
  ``{"error", "code"}`` body as every other refusal, and one (rate-limited)
  log line instead of a traceback.
* **Refusals that can be read**: after refusing a request under way (408, 414,
  505) the connection is half-closed and what the client still sends is dropped for
  `LINGER_S`, so it reads the refusal instead of a reset. (A connection over the cap
  is closed at once: it must not hold a file open.)
* **A cap on open connections** per listener: beyond it a new connection gets
  503 ``too_many_connections`` at once and is closed, so idle sockets cannot
  take the open files the daemon needs to answer everyone else. Before it, a
  cap per remote address (`listeners.ClientCounts`): one client's idle
  sockets cannot take every place, and the others still get in.

The handler calls `began` when a request reaches it, which stops the header
deadline and tells it how much of the deadline is left for the body, and
`ended` when it is done, so the next request on the connection starts its
own deadline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import LineTooLong
from aiohttp.web_protocol import RequestHandler

from mnemolis.serve.listeners import ClientCounts, client_address
from mnemolis.serve.wire import dumps_bytes

log = logging.getLogger("mnemolis.serve.http")
LINGER_S = 2.0  # a refused connection is half-closed this long before it is closed

LINE_LIMIT = 16_384  # the request line, and each header line
MAX_HEADERS = 100
VERSIONS = (b"HTTP/1.0", b"HTTP/1.1")


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": message, "code": code}


def raw_response(status: int, code: str, message: str, **headers: str) -> bytes:
    """A whole JSON error response, for refusals made before aiohttp has a request."""
    body = dumps_bytes(error_body(code, message))
    lines = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "Content-Type: application/json; charset=utf-8",
        f"Content-Length: {len(body)}",
        "Cache-Control: no-store",
        "Connection: close",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class Guard:
    """One listener's limits and the count of its open connections (in all, and per
    remote address)."""

    name: str
    read_timeout_s: float
    max_connections: int
    per_client: int | None = None  # None: as many as max_connections
    open: int = 0
    refused: int = 0
    clients: ClientCounts = field(init=False)

    def __post_init__(self) -> None:
        limit = min(self.per_client or self.max_connections, self.max_connections)
        self.clients = ClientCounts(limit)


class GuardedHandler(RequestHandler):
    """aiohttp's connection protocol, with the deadline, the line check and the cap."""

    def __init__(self, manager: GuardedServer, **options: Any) -> None:
        super().__init__(manager, **options)
        self.guard = manager.guard
        self.began_at: float | None = None  # loop time of the current request's first byte
        self._handling = False
        self._line = bytearray()
        self._line_done = False
        self._timer: asyncio.TimerHandle | None = None
        self._counted = False
        self._refused = False
        self._address: str | None = None

    # ------------------------------------------------------------------ connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        guard = self.guard
        address = client_address(transport.get_extra_info("peername"))
        if not guard.clients.admit(address):
            log.warning(
                "%s: refused a connection from %s: it has %d open, the limit "
                "(limits.max_connections_per_client)",
                guard.name,
                address,
                guard.clients.limit,
            )
            message = (
                f"Mnemolis has {guard.clients.limit} connections open on {guard.name} from "
                "your address, its limit for one client; close some or try again shortly"
            )
            self._refuse(503, "too_many_connections", message, linger=False, **{"Retry-After": "1"})
            return
        self._address = address
        if guard.open >= guard.max_connections:
            guard.refused += 1
            log.warning(
                "%s: refused a connection: %d are open, the limit (limits.max_connections "
                "and the open-file limit)",
                guard.name,
                guard.open,
            )
            message = (
                f"Mnemolis has {guard.open} connections open on {guard.name}, its limit; "
                "try again shortly"
            )
            self._refuse(503, "too_many_connections", message, linger=False, **{"Retry-After": "1"})
            return
        guard.open += 1
        self._counted = True

    def connection_lost(self, exc: BaseException | None) -> None:
        self.guard.clients.release(self._address)
        self._address = None
        if self._counted:
            self.guard.open -= 1
            self._counted = False
        self._stop_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if not self._handling and self.began_at is None and data.strip():
            self._begin()
        reading_line = self.began_at is not None and not self._line_done and not self._handling
        if reading_line and not self._check_line(data):
            return
        super().data_received(data)

    # ------------------------------------------------------------------ one request

    def began(self) -> float:
        """The handler has the request: the header deadline ends here; the seconds left
        of the whole request's deadline (for its body)."""
        self._handling = True
        self._stop_timer()
        started = self.began_at if self.began_at is not None else self._loop.time()
        return max(0.0, started + self.guard.read_timeout_s - self._loop.time())

    def ended(self) -> None:
        """The response is out: the next bytes begin the next request."""
        self._handling = False
        self.began_at = None
        self._line.clear()
        self._line_done = False

    def _begin(self) -> None:
        self.began_at = self._loop.time()
        self._line.clear()
        self._line_done = False
        self._timer = self._loop.call_later(self.guard.read_timeout_s, self._timed_out)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timed_out(self) -> None:
        self._timer = None
        if self._handling or self.began_at is None:
            return
        log.info("%s: a request did not arrive in time", self.guard.name)
        timeout = self.guard.read_timeout_s
        self._refuse(408, "timeout", f"The request did not arrive within {timeout:g} s")

    def _check_line(self, data: bytes) -> bool:
        """False when the request line is refused (414, 505) and the connection closed."""
        end = data.find(b"\n")
        self._line += data if end < 0 else data[:end]
        if len(self._line) > LINE_LIMIT:
            self._refuse(414, "uri_too_long", "The request line is too long")
            return False
        if end < 0:
            return True
        self._line_done = True
        words = bytes(self._line).split()
        if len(words) == 3 and words[2] not in VERSIONS:
            self._refuse(505, "bad_version", "Only HTTP/1.0 and HTTP/1.1 are spoken")
            return False
        return True

    def _refuse(
        self, status: int, code: str, message: str, linger: bool = True, **headers: str
    ) -> None:
        self._refused = True
        self._stop_timer()
        transport = self.transport
        if transport is None or transport.is_closing():
            self.force_close()
            return
        transport.write(raw_response(status, code, message, **headers))
        # a lingering close: a client still sending (slow headers, a body) would make
        # closing at once reset the connection and lose the refusal it has not read yet;
        # half-closed, what it sends is dropped (`data_received`) until it closes or LINGER_S
        if linger and transport.can_write_eof():
            transport.write_eof()
            self._loop.call_later(LINGER_S, self.force_close)
        else:
            self.force_close()

    # ------------------------------------------------------------------ parse errors

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """What aiohttp could not parse, or a handler's crash, as a JSON refusal."""
        if status >= 500:
            log.error("%s: a request failed", self.guard.name, exc_info=exc)
            body = error_body("internal", "Something went wrong; the daemon's log says what")
        elif isinstance(exc, LineTooLong):
            status, body = 431, error_body("header_too_large", "A header is too long")
        else:
            reason = (getattr(exc, "message", "") or message or "malformed").splitlines()[0]
            if "too many headers" in reason.lower():
                status, body = 431, error_body("header_too_large", "There are too many headers")
            else:
                status = 400
                body = error_body("bad_request", f"The request is malformed ({reason.rstrip(':')})")
        log.info("%s: refused a request: %s", self.guard.name, body["error"])
        response = web.Response(
            status=status,
            body=dumps_bytes(body),
            content_type="application/json",
            charset="utf-8",
            headers={"Cache-Control": "no-store", "Server": "mnemolis"},
        )
        response.force_close()
        return response


class GuardedServer(web.Server):
    """`web.Server` whose connections are `GuardedHandler`s sharing one `Guard`."""

    def __init__(
        self,
        handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
        guard: Guard,
        keepalive_s: float,
    ) -> None:
        self.guard = guard
        self._options: dict[str, Any] = {
            "keepalive_timeout": keepalive_s,
            "max_line_size": LINE_LIMIT + 1,  # our own check comes first (414)
            "max_field_size": LINE_LIMIT,
            "max_headers": MAX_HEADERS,
            "access_log": None,
            "lingering_time": 1.0,
        }
        super().__init__(handler, **self._options)

    def __call__(self) -> RequestHandler:
        return GuardedHandler(self, loop=asyncio.get_running_loop(), **self._options)


def guarded(request: web.BaseRequest) -> GuardedHandler | None:
    protocol = request.protocol
    return protocol if isinstance(protocol, GuardedHandler) else None
