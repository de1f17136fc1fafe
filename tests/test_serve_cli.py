"""`mnemolis ask` and `chat` through a running `mnemolis serve` (its unix socket, or its
HTTP API with the token), in-process when there is none or it serves another home,
and what the CLI loads to get there."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    config_variant,
    fixture_serve_home,
    running_daemon,
)

__all__ = ["fixture_serve_home", "fixture_test_zims"]

FLAGS = ["--http", "127.0.0.1:0", "--no-wyoming", "--no-mqtt-api", "--no-hermes"]


@pytest.fixture(scope="module", name="daemon")
def fixture_cli_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    with running_daemon(serve_home, FLAGS, ["http"]) as daemon:
        yield daemon


def cli(
    home: ServeHome,
    *args: str,
    daemon: ServeProcess | None = None,
    stdin: str | None = None,
    config: Path | None = None,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """``mnemolis`` as the owner runs it: with the daemon's environment (its socket among
    it), or the house's and no socket when there is no daemon."""
    if daemon is not None:
        environ = dict(daemon.environ)
    else:
        environ = home.environ(home.folder / "cache-cli")
        environ["MNEMOLIS_SOCKET"] = str(home.folder / "no-daemon.sock")
    environ.update(env)
    command = [sys.executable, "-m", "mnemolis", "--config", str(config or home.config_dir)]
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, timeout=60, env=environ
    )


def answered_by_daemon(daemon: ServeProcess, since: int, via: str, query: str) -> bool:
    line = f'ask via={via} .*query="{query}"'
    try:
        daemon.wait_for(line, since, timeout_s=2)
    except AssertionError:
        return False
    return True


def test_ask_uses_the_running_daemon(serve_home: ServeHome, daemon: ServeProcess) -> None:
    serve_home.simulator.clear()
    mark = daemon.mark()
    done = cli(serve_home, "ask", "turn on the porch light", daemon=daemon)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Done: the porch light is on.\n", "")
    assert answered_by_daemon(daemon, mark, "cli", "turn on the porch light")
    assert len(serve_home.simulator.received("porch light")) == 1
    waiting = cli(serve_home, "ask", "--json", "unlock the back door", daemon=daemon)
    assert waiting.returncode == 5  # the same exit statuses as in-process
    result = json.loads(waiting.stdout)
    assert result["outcome"] == "waiting" and "session" not in result
    assert {"query", "answer", "parts", "ms"} <= set(result)


@pytest.mark.parametrize(
    ("args", "env", "why"),
    [
        (["ask", "--local"], {}, "--local"),
        (["ask"], {"MNEMOLIS_LOCAL": "1"}, "MNEMOLIS_LOCAL"),
        (["ask"], {"MNEMOLIS_WEATHER_CACHE": "/nowhere/else"}, "another environment"),
    ],
)
def test_ask_runs_in_process_when_told_or_when_the_daemon_serves_another_home(
    serve_home: ServeHome, daemon: ServeProcess, args: list[str], env: dict[str, str], why: str
) -> None:
    mark = daemon.mark()
    query = f"what time is it {why}"
    done = cli(serve_home, *args, query, daemon=daemon, **env)
    assert done.returncode in (0, 3), done.stderr  # answered here, whatever the extra words
    assert done.stdout.startswith("It's "), done.stdout
    assert not answered_by_daemon(daemon, mark, "cli", query)


def test_ask_uses_the_loopback_http_api_with_the_token(serve_home: ServeHome) -> None:
    """No socket: the CLI reads http.listen and the token like the daemon does."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    serve = f"http: {{listen: '127.0.0.1:{port}', socket: null}}\ntoken: cli-token-1\n"
    config = config_variant(serve_home, "cli-http", serve)
    flags = ["--no-wyoming", "--no-mqtt-api", "--no-hermes"]
    with running_daemon(serve_home, flags, ["http"], config_dir=config) as daemon:
        mark = daemon.mark()
        no_socket = str(serve_home.folder / "no-daemon.sock")
        done = cli(
            serve_home,
            "ask",
            "what day is it",
            daemon=daemon,
            config=config,
            MNEMOLIS_SOCKET=no_socket,
        )
        assert done.returncode == 0 and done.stdout.startswith("Today is "), done.stderr
        assert answered_by_daemon(daemon, mark, "cli", "what day is it")
        # a wrong token is a refusal before anything is done: answered in-process
        wrong = cli(
            serve_home,
            "ask",
            "what day is it now",
            daemon=daemon,
            config=config,
            MNEMOLIS_SOCKET=no_socket,
            MNEMOLIS_TOKEN="x",
        )
        assert wrong.returncode == 0 and not answered_by_daemon(
            daemon, mark, "cli", "what day is it now"
        )


def test_chat_is_a_session_of_the_daemon(serve_home: ServeHome, daemon: ServeProcess) -> None:
    serve_home.simulator.clear()
    mark = daemon.mark()
    turns = "unlock the front door\nyes\nlock it\nquit\nwhat time is it\n"
    done = cli(serve_home, "chat", daemon=daemon, stdin=turns)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Do you want me to unlock the front door?",
        "Done: the front door is unlocked.",
        "Done: the front door is locked.",
    ]
    assert answered_by_daemon(daemon, mark, "chat", "yes")
    assert [c.payload for c in serve_home.simulator.received("front door")] == [
        '{"state": "UNLOCK"}',
        '{"state": "LOCK"}',
    ]


def test_a_daemon_that_took_the_request_and_never_answered_is_not_asked_twice(
    serve_home: ServeHome, tmp_path: Path
) -> None:
    """The request may have been acted on: running it again in-process could act twice."""
    path = tmp_path / "mute.sock"
    mute = socket.socket(socket.AF_UNIX)
    mute.bind(str(path))
    mute.listen()

    def swallow() -> None:
        connection, _ = mute.accept()
        connection.recv(65536)
        connection.close()  # took it, said nothing

    threading.Thread(target=swallow, daemon=True).start()
    try:
        done = cli(serve_home, "ask", "turn on the porch light", MNEMOLIS_SOCKET=str(path))
    finally:
        mute.close()
    assert (done.returncode, done.stdout) == (1, "")
    assert f"the daemon at unix://{path} did not answer" in done.stderr


def loaded_by(code: str, home: ServeHome, daemon: ServeProcess | None) -> set[str]:
    """The top-level packages (and mnemolis modules) a CLI command imported."""
    program = (
        "import sys, contextlib, io\n"
        "from mnemolis.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({code})\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    environ = home.environ(home.folder / "cache-cli")
    environ["MNEMOLIS_SOCKET"] = str(home.folder / "no-daemon.sock")
    environ.update(daemon.environ if daemon is not None else {})
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=environ
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_help_and_an_ask_through_the_daemon_load_no_spacy(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    """`mnemolis --help` and `ask` through a daemon import only what they need."""
    helped = loaded_by("['--help']", serve_home, None)
    assert "spacy" not in helped and "mnemolis.understand" not in helped
    config = str(serve_home.config_dir)
    asked = loaded_by(f"['--config', {config!r}, 'ask', 'what time is it']", serve_home, daemon)
    heavy = {"spacy", "yaml", "paho", "aiohttp", "mnemolis.config", "mnemolis.runtime.assistant"}
    assert not heavy & asked, heavy & asked
    assert "mnemolis.serve.client" in asked


def test_a_clock_only_ask_says_nothing_of_a_broker_that_is_down(serve_home: ServeHome) -> None:
    """Issue 17, item 10: the reply needed no broker, so stderr stays empty."""
    done = cli(
        serve_home, "ask", "--local", "what time is it", MNEMOLIS_MQTT_URL="mqtt://127.0.0.1:1"
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("It's ")
    broken = cli(
        serve_home,
        "ask",
        "--local",
        "turn on the porch light",
        MNEMOLIS_MQTT_URL="mqtt://127.0.0.1:1",
    )
    assert "I can't reach the MQTT broker" in broken.stdout  # the reply still says so
