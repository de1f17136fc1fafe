"""Issue 21's probes of what the daemon keeps and who may hold its connections, against
a running `mnemolis serve` on a real Mosquitto: the token it makes for itself, the CLI
that reads it, the state directory under umask 000, and idle connections from one
client while a token holder asks.

The module's daemon is started the way a newcomer starts it: no token anywhere, a state
directory someone left world-writable, and ``umask 000``; its limits are small so a
flood is quick (24 connections per listener, 6 from one address)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    config_variant,
    fixture_serve_home,
    http_call,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

FLAGS = ["--wyoming", "tcp://127.0.0.1:0", "--mqtt-api", "--no-hermes"]  # HTTP: serve.yaml's
FRONT_ENDS = ["http", "wyoming", "mqtt-api"]
LIMITS = "limits: {max_connections: 24, max_connections_per_client: 6}\n"
ATTACKER = "127.0.0.2"  # another client on this machine: loopback, another address


@pytest.fixture(scope="module", name="state")
def fixture_state(serve_home: ServeHome) -> Path:
    """A state directory left open to everyone, with a list someone else could read."""
    state = serve_home.folder / "open-state"
    (state / "old").mkdir(parents=True)
    (state / "lists.sqlite3").write_bytes(b"")
    (state / "old" / "notes.json").write_text("{}")
    for path, mode in ((state, 0o777), (state / "old", 0o777), (state / "lists.sqlite3", 0o666)):
        os.chmod(path, mode)
    os.chmod(state / "old" / "notes.json", 0o644)
    return state


def no_umask() -> None:
    os.umask(0)


@pytest.fixture(scope="module", name="config")
def fixture_config(serve_home: ServeHome) -> Path:
    """The daemon's configuration, its HTTP port written in it: the CLI reads it there."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    return config_variant(serve_home, "private", LIMITS + f"http: {{listen: '127.0.0.1:{port}'}}\n")


@pytest.fixture(scope="module", name="daemon")
def fixture_private_daemon(
    serve_home: ServeHome, state: Path, config: Path
) -> Iterator[ServeProcess]:
    env = {"MNEMOLIS_STATE": str(state)}
    with running_daemon(
        serve_home, FLAGS, FRONT_ENDS, env=env, config_dir=config, preexec=no_umask
    ) as daemon:
        yield daemon


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --------------------------------------------------------------------------- the token


def test_the_daemon_makes_its_own_token_and_refuses_the_probes_door(
    serve_home: ServeHome, daemon: ServeProcess, state: Path
) -> None:
    """No token was set: the daemon made one (0600, under umask 000) and wants it."""
    token = (state / "token").read_text().strip()
    assert daemon.token == token and len(token) >= 40 and mode(state / "token") == 0o600
    serve_home.simulator.clear()
    for text in ("unlock the front door", "yes"):
        status, body, _ = http_call(
            daemon.http_port, "POST", "/ask", {"text": text, "session": "s"}, token=None
        )
        assert (status, body["code"]) == (401, "unauthorized")
    assert serve_home.simulator.received("front door") == []
    status, body, _ = http_call(daemon.http_port, "POST", "/ask", {"text": "what time is it"})
    assert (status, body["outcome"]) == (200, "answered")
    assert token not in daemon.output(), "the token is never logged"


def test_the_cli_reads_the_token_file_and_asks_the_daemon(
    serve_home: ServeHome, daemon: ServeProcess, config: Path
) -> None:
    """No socket: `mnemolis ask` uses the loopback API of serve.yaml with the daemon's
    own token, from the state directory it shares with the daemon."""
    env = {
        **daemon.environ,
        "MNEMOLIS_SOCKET": str(serve_home.folder / "no-daemon-here.sock"),
    }
    env.pop("MNEMOLIS_TOKEN", None)
    mark = daemon.mark()
    argv = [sys.executable, "-m", "mnemolis", "--config", str(config), "ask", "what day is it"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.startswith("Today is "), done.stderr
    daemon.wait_for(r'ask via=cli .*query="what day is it"', mark)


# --------------------------------------------------------------------------- the state


def test_the_state_directory_is_private_whatever_the_umask(
    daemon: ServeProcess, state: Path
) -> None:
    """Tightened on start, and what the daemon makes afterwards is private too."""
    assert (mode(state), mode(state / "old")) == (0o700, 0o700)
    assert (mode(state / "lists.sqlite3"), mode(state / "old" / "notes.json")) == (0o600, 0o600)
    for text in ("add milk to the shopping list", "set a timer for 2 hours"):
        status, body, _ = http_call(daemon.http_port, "POST", "/ask", {"text": text})
        assert (status, body["outcome"]) == (200, "answered"), body
    made = sorted(p.name for p in state.iterdir())
    assert {"timers.sqlite3", "lists.sqlite3", "token"} <= set(made), made
    shared = {p.name: oct(mode(p)) for p in state.rglob("*") if mode(p) & 0o077}
    assert shared == {}, f"readable by others under umask 000: {shared}"


# --------------------------------------------------------------------------- V10: idle sockets


def test_one_clients_idle_connections_cannot_lock_out_a_token_holder(
    daemon: ServeProcess,
) -> None:
    """The probe held every place of the listener with idle connections (token holders
    got 503 for 30 s); one address now gets its share, the rest are refused in words."""
    with ExitStack() as stack:
        idle = [
            stack.enter_context(
                socket.create_connection(
                    ("127.0.0.1", daemon.http_port), timeout=5, source_address=(ATTACKER, 0)
                )
            )
            for _ in range(24)
        ]
        refused = refusal(idle[-1])
        status, body, _ = http_call(daemon.http_port, "POST", "/ask", {"text": "what time is it"})
        assert (status, body["outcome"]) == (200, "answered")
        other = http_call(daemon.http_port, "GET", "/health", source="127.0.0.3")
        assert other[0] == 200
    head, _, text = refused.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 ")
    assert json.loads(text)["code"] == "too_many_connections"
    assert b"your address" in text


def refusal(sock: socket.socket) -> bytes:
    """What the server said on ``sock`` before it closed it."""
    sock.settimeout(5)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_one_clients_idle_wyoming_connections_leave_room_for_a_satellite(
    daemon: ServeProcess,
) -> None:
    host, port = daemon.wyoming_address
    with ExitStack() as stack:
        idle = [
            stack.enter_context(
                socket.create_connection((host, port), timeout=5, source_address=(ATTACKER, 0))
            )
            for _ in range(24)
        ]
        header, _, data = refusal(idle[-1]).partition(b"\n")
        error = json.loads(data[: json.loads(header)["data_length"]])
        with socket.create_connection((host, port), timeout=5) as satellite:
            satellite.sendall(b'{"type": "ping"}\n')
            pong = json.loads(satellite.makefile("rb").readline())
    assert json.loads(header)["type"] == "error" and error["code"] == "too_many_connections"
    assert pong["type"] == "pong"
