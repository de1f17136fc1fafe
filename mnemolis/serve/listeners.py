"""Opening the daemon's listening sockets: errors that say where, and open-file budgets.

A listener that cannot open says which address or path and why ("http
cannot listen on http://127.0.0.1:8686: address already in use"; a unix
socket whose directory is missing names the directory and the unit's
``RuntimeDirectory=``). A unix socket another daemon still answers on is
never taken over; a stale one is replaced.

Every connection costs an open file. `connection_caps` keeps the sum of the
listeners' caps under the process's limit (``RLIMIT_NOFILE``, raised to its
hard limit first), with room left for the broker, the sources and the
files they read, so a flood of idle sockets is refused at the cap instead
of starving everything else of file descriptors. Before that cap, each
remote address may hold only ``max_connections_per_client`` of a listener's
connections (`ClientCounts`), so one client's idle sockets cannot take every
place and lock out the others (the token holders among them).
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import os
import socket
import stat
from collections import Counter
from pathlib import Path

log = logging.getLogger("mnemolis.serve")

#: Open files kept free for everything but client connections.
RESERVED_FILES = 128
#: Every listener gets at least this many connections, whatever the limit.
MIN_CAP = 8


class CannotListen(Exception):
    """A front-end cannot open its listening socket; the message says where and why."""

    def __init__(self, name: str, where: str, reason: str) -> None:
        super().__init__(f"{name} cannot listen on {where}: {reason}")
        self.name = name
        self.where = where
        self.reason = reason


def reason_of(exc: OSError) -> str:
    return os.strerror(exc.errno).lower() if exc.errno else str(exc)


def prepare_unix_path(name: str, path: str) -> None:
    """Make ``path`` free to bind: a stale socket file is removed; a live one, a file that
    is not a socket, or a missing directory is a `CannotListen` that names it."""
    where = f"unix://{path}"
    directory = Path(path).parent
    if not directory.is_dir():
        raise CannotListen(
            name,
            where,
            f"the directory {directory} does not exist (under systemd, the unit's "
            "RuntimeDirectory= creates /run/mnemolis)",
        )
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise CannotListen(name, where, "the path exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(path)
    except OSError:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # stale: nobody answers on it
        return
    finally:
        probe.close()
    raise CannotListen(name, where, "another process (a running mnemolis serve?) listens there")


def describe(name: str, where: str, exc: OSError) -> CannotListen:
    reason = reason_of(exc)
    if exc.errno in (errno.EACCES, errno.EPERM):
        reason += " (a port under 1024 needs privileges; a path, write access to its directory)"
    return CannotListen(name, where, reason)


def open_file_limit() -> int:
    """The soft limit on open files, raised to the hard limit when it is lower."""
    try:
        import resource
    except ImportError:  # not on this platform
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    elif hard == resource.RLIM_INFINITY and soft != resource.RLIM_INFINITY:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 65536), hard))
            soft = max(soft, 65536)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def connection_caps(configured: int, listeners: int, limit: int | None = None) -> int:
    """Connections each of ``listeners`` may hold: ``configured``, or less when the open
    files would not suffice for all of them at once."""
    limit = open_file_limit() if limit is None else limit
    share = max(MIN_CAP, (limit - RESERVED_FILES) // max(1, listeners))
    cap = min(configured, share)
    if cap < configured:
        log.warning(
            "the open-file limit is %d: each listener takes at most %d connections, not "
            "limits.max_connections %d (raise LimitNOFILE= in the unit)",
            limit,
            cap,
            configured,
        )
    return cap


def client_address(peername: object) -> str | None:
    """The remote address of a TCP peer (an IPv4-mapped IPv6 one as IPv4); None for a
    unix socket, whose clients are this machine's users."""
    if not isinstance(peername, tuple) or not peername or not isinstance(peername[0], str):
        return None
    host = peername[0]
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    mapped = getattr(address, "ipv4_mapped", None)
    return str(mapped or address)


class ClientCounts:
    """Open connections per remote address, each address held to ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.refused = 0
        self._open: Counter[str] = Counter()

    def admit(self, address: str | None) -> bool:
        """Count one more connection of ``address``; False (nothing counted) when it
        already holds its limit. A unix socket's (None) are not counted."""
        if address is None:
            return True
        if self._open[address] >= self.limit:
            self.refused += 1
            return False
        self._open[address] += 1
        return True

    def release(self, address: str | None) -> None:
        if address is None or address not in self._open:
            return
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def open(self, address: str) -> int:
        return self._open[address]
