"""`mnemolis ask` and `chat` through a running `mnemolis serve`.

A one-shot ask that starts the assistant in-process imports spaCy, compiles
the intents and connects every source: one to three seconds here, several
times that on a Pi. A running daemon has done all that already, so the CLI
asks it instead, at the cost of a Python start and one request. This module
uses the standard library only, and `mnemolis.cli.main` imports it before
anything heavy.

Where the daemon is: the unix socket of ``http.socket`` (`socket_candidates`:
``$MNEMOLIS_SOCKET``, else ``mnemolis.sock`` in ``$RUNTIME_DIRECTORY``, in
``/run/mnemolis`` (the unit's ``RuntimeDirectory=``) or in
``$XDG_RUNTIME_DIR/mnemolis``), else the loopback HTTP API of
`sources/serve.yaml` with the token: ``$MNEMOLIS_TOKEN``, else the file's
``token:``, else the daemon's own token file (``token_file``, `token_file`),
when this user may read it. The socket needs no token: its mode (0660, in a
directory of the daemon's user) is the guard.

The same home, or none: every request names what the CLI would use itself
(`expectation`: its configuration directory and a fingerprint of each
``MNEMOLIS_*`` variable it sets); a daemon serving anything else answers 409
``other_home`` (`mismatch`), and the CLI answers in-process instead. So a
test pointing the CLI at its own broker never talks to someone's daemon.

Nothing is done twice: the CLI answers in-process only when the daemon could
not be reached or refused the request before acting (4xx, 503); once a
request is sent, a daemon that fails to answer is reported, not retried.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from mnemolis.serve.token_file import AUTO, configured_token

SOCKET_ENV = "MNEMOLIS_SOCKET"
TOKEN_ENV = "MNEMOLIS_TOKEN"
LOCAL_ENV = "MNEMOLIS_LOCAL"  # set (1, true): every command runs in-process
SOCKET_NAME = "mnemolis.sock"
UNIT_RUNTIME_DIR = Path("/run/mnemolis")
#: Variables that say how to reach the daemon, not what it serves.
NOT_COMPARED = frozenset({SOCKET_ENV, TOKEN_ENV, LOCAL_ENV, "MNEMOLIS_CONFIG"})
CONNECT_TIMEOUT_S = 1.0
ANSWER_TIMEOUT_S = 60.0


# --------------------------------------------------------------------------- where


def socket_candidates(environ: Mapping[str, str]) -> list[Path]:
    """Where the CLI looks for the daemon's socket, in order."""
    explicit = environ.get(SOCKET_ENV)
    if explicit:
        return [Path(explicit)]
    found: list[Path] = []
    runtime = environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        found.append(Path(runtime) / SOCKET_NAME)
    found.append(UNIT_RUNTIME_DIR / SOCKET_NAME)
    xdg = environ.get("XDG_RUNTIME_DIR")
    if xdg:
        found.append(Path(xdg) / "mnemolis" / SOCKET_NAME)
    return found


def daemon_socket(environ: Mapping[str, str]) -> Path | None:
    """Where ``http.socket: auto`` binds: the first runtime directory there is."""
    explicit = environ.get(SOCKET_ENV)
    if explicit:
        return Path(explicit)
    runtime = environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        return Path(runtime) / SOCKET_NAME
    xdg = environ.get("XDG_RUNTIME_DIR")
    return Path(xdg) / "mnemolis" / SOCKET_NAME if xdg else None


# --------------------------------------------------------------------------- same home


def fingerprint(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def expectation(config_dir: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """What this CLI would use itself: the daemon must serve the same."""
    variables = {
        name: fingerprint(value)
        for name, value in environ.items()
        if name.startswith("MNEMOLIS_") and name not in NOT_COMPARED
    }
    return {"config": str(config_dir.resolve()), "env": variables}


def mismatch(expect: Any, config_root: Path, environ: Mapping[str, str]) -> str | None:
    """Why a daemon (``config_root``, ``environ``) is not what the client expects; None
    when it is."""
    if not isinstance(expect, dict):
        return "the request's expect is not an object"
    wanted = expect.get("config")
    if wanted != str(config_root.resolve()):
        return f"this daemon serves the configuration {config_root}, not {wanted}"
    variables = expect.get("env") or {}
    if not isinstance(variables, dict):
        return "the request's expect.env is not an object"
    for name, value in sorted(variables.items()):
        mine = environ.get(name)
        if mine is None or fingerprint(mine) != value:
            return f"this daemon runs with another ${name}"
    return None


# --------------------------------------------------------------------------- talking


class Unreachable(Exception):
    """No daemon there (or it refused before acting): answer in-process."""


class NoAnswer(Exception):
    """The request was sent but no answer came: it may have been acted on."""


class NotAllowed(Unreachable):
    """A daemon's socket this user may not use (not in its group): said, then in-process."""

    def __init__(self, error: PermissionError) -> None:
        super().__init__(str(error))
        self.error = error


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(str(self.path))
        except OSError:
            sock.close()
            raise
        sock.settimeout(self.timeout)
        self.sock = sock


@dataclass(frozen=True)
class Daemon:
    """One way to a daemon: a unix socket, or a loopback URL and its token."""

    socket_path: Path | None = None
    host: str = "127.0.0.1"
    port: int = 0
    token: str | None = None

    @property
    def where(self) -> str:
        return (
            f"unix://{self.socket_path}" if self.socket_path else f"http://{self.host}:{self.port}"
        )

    def connection(self, timeout_s: float) -> http.client.HTTPConnection:
        if self.socket_path is not None:
            return _UnixConnection(self.socket_path, timeout_s)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout_s)

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.token and self.socket_path is None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def ask(self, body: dict[str, Any], timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """The answer's JSON; `Unreachable` when nothing was done, `NoAnswer` otherwise."""
        return self.post("/ask", body, "answer", timeout_s)

    def post(
        self, path: str, body: dict[str, Any], wanted: str, timeout_s: float
    ) -> dict[str, Any]:
        """A JSON request; its 200 reply holding ``wanted``. `Unreachable` when nothing
        was done, `NoAnswer` when the request went out and no answer came."""
        connection = self.connection(timeout_s)
        try:
            try:
                connection.connect()
            except PermissionError as exc:
                exc.filename = exc.filename or str(self.socket_path or self.where)
                raise NotAllowed(exc) from exc
            except OSError as exc:
                raise Unreachable(f"{self.where}: {exc.strerror or exc}") from exc
            try:
                connection.request("POST", path, json.dumps(body), self.headers())
                response = connection.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                raise NoAnswer(f"the daemon at {self.where} did not answer: {exc}") from exc
        finally:
            connection.close()
        try:
            reply = json.loads(data)
        except ValueError as exc:
            raise Unreachable(f"{self.where} is not Mnemolis (status {response.status})") from exc
        if response.status == 200 and isinstance(reply, dict) and wanted in reply:
            return reply
        if response.status >= 500 and response.status != 503:
            raise NoAnswer(f"the daemon at {self.where}: {reply.get('error', response.status)}")
        raise Unreachable(f"{self.where}: {reply.get('error') if isinstance(reply, dict) else ''}")

    def events(self, session: str, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """The announcements for ``session``, as they come (``GET /events``)."""
        connection = self.connection(timeout_s=3600.0)
        try:
            connection.request("GET", f"/events?session={quote(session)}", headers=self.headers())
            response = connection.getresponse()
            if response.status != 200:
                return
            kind = ""
            while not stop.is_set():
                line = response.readline()
                if not line:
                    return
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                if text.startswith("event:"):
                    kind = text[6:].strip()
                elif text.startswith("data:") and kind == "announcement":
                    data = json.loads(text[5:])
                    if isinstance(data, dict):
                        yield data
        except (OSError, http.client.HTTPException, ValueError):
            return
        finally:
            connection.close()


def _http_daemon(config_dir: Path, environ: Mapping[str, str]) -> Daemon | None:
    """The loopback HTTP API of `sources/serve.yaml`, with its token; None if switched off."""
    import yaml  # only on this path: the socket path needs no YAML

    try:
        raw = yaml.safe_load((config_dir / "sources" / "serve.yaml").read_text("utf-8")) or {}
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        raw = {}
    http_section = raw.get("http") if isinstance(raw, dict) else None
    http_section = http_section if isinstance(http_section, dict) else {}
    if http_section.get("enabled") is False:
        return None
    listen = str(http_section.get("listen") or "127.0.0.1:8686")
    parts = urlsplit(listen if "://" in listen else f"tcp://{listen}")
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.hostname is None or port is None:
        return None
    host = parts.hostname
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    token = environ.get(TOKEN_ENV) or (raw.get("token") if isinstance(raw, dict) else None)
    if not token:
        token_file = raw.get("token_file", AUTO) if isinstance(raw, dict) else AUTO
        named = token_file if isinstance(token_file, str) else None  # false: none
        token = configured_token(AUTO if token_file is None else named, environ)
    return Daemon(host=host, port=port, token=str(token) if token else None)


def daemons(config_dir: Path, environ: Mapping[str, str]) -> Iterator[Daemon]:
    """Every way to a daemon worth trying, the sockets first."""
    for path in socket_candidates(environ):
        try:
            there = path.exists()
        except PermissionError:  # a directory this user may not enter: connecting says so
            there = True
        if there:
            yield Daemon(socket_path=path)
    found = _http_daemon(config_dir, environ)
    if found is not None:
        yield found


def local_only(environ: Mapping[str, str]) -> bool:
    return environ.get(LOCAL_ENV, "").lower() in ("1", "true", "yes")


# --------------------------------------------------------------------------- the commands


OUTCOME_EXIT = {"answered": 0, "failed": 1, "partial": 3, "not_understood": 4, "waiting": 5}


@dataclass
class Asked:
    """What a daemon answered, and which one."""

    reply: dict[str, Any]
    daemon: Daemon

    @property
    def exit_status(self) -> int:
        return OUTCOME_EXIT.get(str(self.reply.get("outcome")), 1)

    def printable(self, as_json: bool) -> str:
        if not as_json:
            return str(self.reply.get("answer", ""))
        out = {k: v for k, v in self.reply.items() if k not in ("session", "id")}
        return json.dumps(out, ensure_ascii=False)


def ask(
    text: str,
    config_dir: Path,
    environ: Mapping[str, str],
    session: str | None = None,
    via: str = "cli",
    room: str | None = None,
    found: list[Daemon] | None = None,
) -> Asked | None:
    """Ask the first daemon that serves this home; None when there is none (answer
    in-process). `NoAnswer` when one took the request and did not answer.
    ``found`` is reused across the turns of a chat (the daemon that answered first)."""
    body: dict[str, Any] = {
        "text": text,
        "session": session or f"{via}:{uuid.uuid4().hex[:12]}",
        "via": via,
        "expect": expectation(config_dir, environ),
    }
    if room:
        body["room"] = room
    candidates = found if found else daemons(config_dir, environ)  # lazily: the socket first
    refused: NotAllowed | None = None
    for daemon in candidates:
        try:
            reply = daemon.ask(body)
        except NotAllowed as exc:
            refused = refused or exc
            continue
        except Unreachable:
            continue
        if found is not None and not found:
            found.append(daemon)
        return Asked(reply, daemon)
    if refused is not None:
        raise refused
    return None


def hello(config_dir: Path, environ: Mapping[str, str]) -> tuple[Daemon, list[str]] | None:
    """The first daemon that serves this home (``POST /hello``), and its quit words."""
    body = {"expect": expectation(config_dir, environ)}
    refused: NotAllowed | None = None
    for daemon in daemons(config_dir, environ):
        try:
            reply = daemon.post("/hello", body, "quit_words", CONNECT_TIMEOUT_S * 5)
        except NotAllowed as exc:
            refused = refused or exc
            continue
        except (Unreachable, NoAnswer):
            continue
        words = reply.get("quit_words")
        return daemon, [str(w) for w in words] if isinstance(words, list) else []
    if refused is not None:
        raise refused
    return None


def chat_session() -> str:
    return f"chat:{os.getpid()}-{uuid.uuid4().hex[:8]}"


def listen_for_announcements(
    daemon: Daemon, session: str, say: Callable[[dict[str, Any]], None]
) -> threading.Event:
    """Print (``say``) what the daemon announces for ``session``, on a daemon thread;
    set the returned event to stop."""
    stop = threading.Event()

    def run() -> None:
        for announcement in daemon.events(session, stop):
            say(announcement)

    threading.Thread(target=run, name="chat-announcements", daemon=True).start()
    return stop
