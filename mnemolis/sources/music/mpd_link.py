"""One connection to one player over the MPD protocol (python-mpd2).

The client is synchronous and not thread-safe, so each player has one
connection, used by one request at a time in a worker thread. It connects on
first use and again after a drop; a connection idle for a while is pinged
first, since MPD closes idle clients (its ``connection_timeout``, 60 s by
default). A player that is down is `PlayerDown` with a short reason, an ACK
from MPD is `PlayerRefused` with MPD's own message: the source turns both
into sentences.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import mpd

from mnemolis.sources.music.settings import PlayerSettings

T = TypeVar("T")

#: A connection idle longer than this is pinged before it is used.
IDLE_PING_S = 20.0


class PlayerDown(Exception):
    """The player cannot be reached, or the connection broke."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PlayerRefused(Exception):
    """MPD answered ACK: a command it would not carry out."""

    def __init__(self, reason: str, code: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def down_reason(exc: BaseException, timeout_s: float) -> str:
    """ "connection refused", "no answer within 3 s", "unknown host"."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.timeout | TimeoutError):
        return f"no answer within {timeout_s:g} s"
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, FileNotFoundError):
        return "no such socket"
    if isinstance(exc, mpd.ConnectionError | mpd.ProtocolError):
        return str(exc).lower().rstrip(".") or "the connection was lost"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def refusal(exc: mpd.CommandError) -> PlayerRefused:
    code = exc.errno.name.lower() if exc.errno is not None else None
    return PlayerRefused(str(exc.msg or exc).strip(), code)


class MpdLink:
    """Runs jobs (functions of a connected client) against one player."""

    def __init__(
        self,
        player: PlayerSettings,
        timeout_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.player = player
        self.timeout_s = timeout_s
        self.clock = clock
        self.version: str | None = None  # the protocol version the player said hello with
        self._client: mpd.MPDClient | None = None
        self._used_at = 0.0
        self._lock = threading.Lock()

    async def call(self, job: Callable[[mpd.MPDClient], T]) -> T:
        """Run ``job`` on the connected client in a worker thread."""
        return await asyncio.to_thread(self.call_now, job)

    def call_now(self, job: Callable[[mpd.MPDClient], T]) -> T:
        """The same, in the calling thread (benchmarks, `doctor`)."""
        with self._lock:
            client = self._connected()
            try:
                result = job(client)
            except mpd.CommandError as exc:
                self._used_at = self.clock()
                raise refusal(exc) from exc
            except (mpd.ConnectionError, mpd.ProtocolError, OSError) as exc:
                self._drop()
                raise PlayerDown(down_reason(exc, self.timeout_s)) from exc
            self._used_at = self.clock()
            return result

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _connected(self) -> mpd.MPDClient:
        if self._client is not None and self.clock() - self._used_at > IDLE_PING_S:
            try:
                self._client.ping()
            except (mpd.MPDError, OSError):
                self._drop()
        if self._client is not None:
            return self._client
        client = mpd.MPDClient()
        client.timeout = self.timeout_s
        client.idletimeout = None
        port = self.player.port or None
        try:
            client.connect(self.player.host, port)
            if self.player.password:
                client.password(self.player.password)
        except mpd.CommandError as exc:
            _quietly_disconnect(client)
            raise refusal(exc) from exc
        except (mpd.MPDError, OSError) as exc:
            _quietly_disconnect(client)
            raise PlayerDown(down_reason(exc, self.timeout_s)) from exc
        self._client = client
        self.version = client.mpd_version
        return client

    def _drop(self) -> None:
        if self._client is not None:
            _quietly_disconnect(self._client)
        self._client = None


def _quietly_disconnect(client: mpd.MPDClient) -> None:
    with contextlib.suppress(mpd.MPDError, OSError):
        client.disconnect()
