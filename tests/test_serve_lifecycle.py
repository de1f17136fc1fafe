"""A running `mnemolis serve` over its life: reloads, shutdown with requests in flight,
and start-up refusals (a broken file, a bad flag, a taken port)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import load_config
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    config_variant,
    copy_config,
    fixture_daemon,
    fixture_serve_home,
    http_call,
    probe,
    running_daemon,
)

__all__ = ["fixture_daemon", "fixture_serve_home", "fixture_test_zims"]

CLOCK_PHRASE = "      - current time\n"


def add_clock_phrase(config_dir: Path, phrase: str) -> None:
    clock = config_dir / "intents" / "en" / "clock.yaml"
    text = clock.read_text(encoding="utf-8")
    assert CLOCK_PHRASE in text
    clock.write_text(text.replace(CLOCK_PHRASE, f"{CLOCK_PHRASE}      - {phrase}\n"), "utf-8")


def ask(daemon: ServeProcess, text: str, session: str = "http") -> dict[str, Any]:
    status, body, _ = http_call(
        daemon.http_port, "POST", "/ask", {"text": text, "session": session}
    )
    assert status == 200, body
    return body


def test_sighup_reloads_a_changed_intent_and_keeps_conversations(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    assert ask(daemon, "what does the sundial say")["outcome"] == "not_understood"
    ask(daemon, "turn on the porch light", "porch")
    add_clock_phrase(serve_home.config_dir, "what does the sundial say")
    mark = daemon.mark()
    daemon.signal(signal.SIGHUP)
    intents = len(load_config(serve_home.config_dir).intents)
    daemon.wait_for(rf"reloaded: generation \d+, {intents} intents", mark, timeout_s=20)
    after = ask(daemon, "what does the sundial say")
    assert after["outcome"] == "answered" and after["answer"].startswith("It's ")
    off = ask(daemon, "turn it off", "porch")  # the conversation survived the reload
    assert off["parts"][0]["data"]["device"] == "porch light"
    daemon.wait_for(r"generation \d+ closed", mark)


def test_post_reload_applies_a_change_and_reports_the_generation(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    before = http_call(daemon.http_port, "GET", "/health")[1]["generation"]
    add_clock_phrase(serve_home.config_dir, "what does the hourglass say")
    status, body, _ = http_call(daemon.http_port, "POST", "/reload")
    assert status == 200
    intents = len(load_config(serve_home.config_dir).intents)
    assert (body["reloaded"], body["generation"], body["intents"]) == (True, before + 1, intents)
    assert ask(daemon, "what does the hourglass say")["outcome"] == "answered"
    assert http_call(daemon.http_port, "GET", "/health")[1]["generation"] == before + 1


BROKEN_SOURCE = """intents:
  broken.intent:
    source: nowhere
    phrases: [frobnicate the widget]
"""
BROKEN_YAML = """intents:
  broken.intent:
    source: clock
    phrases: [frobnicate the widget
"""


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (BROKEN_SOURCE, "broken.yaml:3: intent 'broken.intent': unknown source 'nowhere'"),
        (BROKEN_YAML, "broken.yaml:5: invalid YAML"),
    ],
)
@pytest.mark.parametrize("how", ["POST", "SIGHUP"])
def test_a_broken_configuration_is_refused_and_the_old_one_keeps_serving(
    serve_home: ServeHome, daemon: ServeProcess, content: str, error: str, how: str
) -> None:
    broken = serve_home.config_dir / "intents" / "en" / "broken.yaml"
    generation = http_call(daemon.http_port, "GET", "/health")[1]["generation"]
    broken.write_text(content, encoding="utf-8")
    mark = daemon.mark()
    try:
        if how == "POST":
            status, body, _ = http_call(daemon.http_port, "POST", "/reload")
            assert status == 422
            assert (body["reloaded"], body["generation"]) == (False, generation)
            assert error in body["error"]
        else:
            daemon.signal(signal.SIGHUP)
        line = daemon.wait_for("reload refused, the running configuration keeps serving", mark)
        assert error in line.string
    finally:
        broken.unlink()
    assert ask(daemon, "what time is it")["outcome"] == "answered"
    assert http_call(daemon.http_port, "GET", "/health")[1]["generation"] == generation


OWN_TOPICS = "mqtt_api: {ask_topic: mnemolis/sigterm/ask, answer_topic: mnemolis/sigterm/answer}\n"


def test_sigterm_answers_the_requests_in_flight_then_exits_0(serve_home: ServeHome) -> None:
    simulator = serve_home.simulator
    silent = ("coffee maker", "garage door")
    for name in silent:  # each waits its 2 s for an echo that never comes
        simulator.set_echo(name, False)
    simulator.clear()
    results: dict[str, Any] = {}
    # topics of its own: the module's daemon, on the same broker, must not answer these
    own = config_variant(serve_home, "sigterm", OWN_TOPICS)
    try:
        with (
            probe(serve_home, "mnemolis/sigterm/answer") as client,
            running_daemon(serve_home, config_dir=own) as daemon,
        ):
            asking = threading.Thread(
                target=lambda: results.update(
                    http=http_call(
                        daemon.http_port, "POST", "/ask", {"text": "turn on the coffee maker"}
                    )
                )
            )
            asking.start()
            client.publish(
                "mnemolis/sigterm/ask", "close the garage door", correlation_data=b"late"
            )
            sent = simulator.wait_for_commands(2, timeout_s=30)  # both in flight (a busy machine)
            assert {c.device for c in sent} == set(silent), sent
            mark = daemon.mark()
            daemon.signal(signal.SIGTERM)
            daemon.wait_for("stopping: answering 2 requests in flight", mark)
            client.publish("mnemolis/sigterm/ask", "what time is it", correlation_data=b"after")
            answers = {m.correlation_data: m.json() for m in (client.next(), client.next())}
            asking.join(10)
            assert daemon.process.wait(15) == 0
            daemon.wait_for("stopped", mark)
    finally:
        for name in silent:
            simulator.set_echo(name, True)
    status, body, _ = results["http"]
    assert status == 200 and body["parts"][0]["status"] == "not_confirmed"
    assert answers[b"late"]["parts"][0]["data"]["device"] == "garage door"
    assert answers[b"after"]["code"] == "shutting_down"


def mnemolis(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemolis", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_a_broken_serve_file_or_flag_stops_the_start_with_a_sentence(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    (config / "sources" / "serve.yaml").write_text("http:\n  listen: nowhere\n", "utf-8")
    error = "serve.yaml:2: listen: 'nowhere' must be HOST:PORT"
    for command in ("serve", "check"):
        done = mnemolis("--config", str(config), command)
        assert done.returncode == 2
        assert "configuration error" in done.stderr and error in done.stderr
    flagged = mnemolis("serve", "--wyoming", "udp://127.0.0.1:1")
    assert flagged.returncode == 2
    assert "--wyoming: 'udp://127.0.0.1:1' must start with" in flagged.stderr
    assert "Traceback" not in flagged.stderr


def test_a_taken_port_is_a_clear_failure(serve_home: ServeHome) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = mnemolis(
            "--config",
            str(serve_home.config_dir),
            "serve",
            "--http",
            f"127.0.0.1:{port}",
            "--no-wyoming",
            "--no-mqtt-api",
            env=serve_home.environ(serve_home.folder / "cache-taken"),
        )
    assert done.returncode == 1, done.stderr
    # the address is named (issue 17, item 10)
    assert f"mnemolis: http cannot listen on http://127.0.0.1:{port}: address already in use" in (
        done.stderr
    )
    assert time.monotonic() - started < 30


def serve_wyoming_on(home: ServeHome, path: Path) -> subprocess.CompletedProcess[str]:
    """A daemon with only Wyoming, on the unix socket ``path``."""
    return mnemolis(
        "--config",
        str(home.config_dir),
        "serve",
        "--no-http",
        "--no-mqtt-api",
        "--wyoming",
        f"unix://{path}",
        env=home.environ(home.folder / f"cache-{path.stem}"),
    )


def test_a_unix_socket_in_a_missing_directory_names_the_path(serve_home: ServeHome) -> None:
    """As under a unit without RuntimeDirectory= (issue 17, item 10)."""
    missing = serve_home.folder / "no-such-run-dir"
    done = serve_wyoming_on(serve_home, missing / "wyoming.sock")
    assert done.returncode == 1, done.stderr
    assert (
        f"mnemolis: wyoming cannot listen on unix://{missing}/wyoming.sock: the directory "
        f"{missing} does not exist (under systemd, the unit's RuntimeDirectory= creates"
    ) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_live_unix_socket_is_not_taken_over(serve_home: ServeHome) -> None:
    path = serve_home.folder / "live.sock"
    with socket.socket(socket.AF_UNIX) as live:
        live.bind(str(path))
        live.listen()
        done = serve_wyoming_on(serve_home, path)
    assert done.returncode == 1, done.stderr
    assert f"wyoming cannot listen on unix://{path}: another process" in done.stderr


BUSY = "wyoming: {enabled: false}\nmqtt_api: {enabled: false}\nlimits: {max_pending: 1}\n"


def test_beyond_max_pending_a_request_is_told_busy(serve_home: ServeHome) -> None:
    config = config_variant(serve_home, "busy", BUSY)
    serve_home.simulator.set_echo("coffee maker", False)  # the first request waits 2 s
    serve_home.simulator.clear()
    results: dict[str, Any] = {}
    try:
        with running_daemon(
            serve_home, flags=["--http", "127.0.0.1:0"], front_ends=["http"], config_dir=config
        ) as daemon:
            slow = threading.Thread(
                target=lambda: results.update(
                    slow=http_call(
                        daemon.http_port, "POST", "/ask", {"text": "turn on the coffee maker"}
                    )
                )
            )
            slow.start()
            assert serve_home.simulator.wait_for_commands(1, timeout_s=30), (
                "the slow one never began"
            )
            status, body, headers = http_call(
                daemon.http_port, "POST", "/ask", {"text": "what time is it", "id": 9}
            )
            slow.join(10)
    finally:
        serve_home.simulator.set_echo("coffee maker", True)
    assert (status, body["code"], body["id"], headers["retry-after"]) == (503, "busy", 9, "1")
    assert results["slow"][0] == 200
