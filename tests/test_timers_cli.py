"""Timers from the command line: `chat` prints what is said unasked between the turns
(on a terminal, above the line being typed, which stays as it was), and a one-shot
`ask` says plainly that timers need a Mnemolis that keeps running."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.demo.simulator import Simulator
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.test_ask_cli import home

__all__ = ["broker", "fixture_test_zims", "home", "open_meteo"]


def chat(state: Path, **streams: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mnemolis", "chat"],
        env={**os.environ, "MNEMOLIS_STATE": str(state)},
        stderr=subprocess.DEVNULL,
        **streams,  # type: ignore[call-overload]
    )


def test_chat_through_a_pipe_prints_a_timer_when_it_rings(home: Simulator, tmp_path: Path) -> None:
    process = chat(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"set a timer for 1 second\n")
        process.stdin.flush()
        assert process.stdout.readline() == b"Timer set for 1 second.\n"
        set_at = time.monotonic()
        assert process.stdout.readline() == b"Your 1 second timer is done\n"
        assert 0.8 <= time.monotonic() - set_at <= 5.0  # not early; late only on a busy machine
        process.stdin.write(b"quit\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()


def _read_until(fd: int, wanted: bytes, timeout_s: float = 30.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout_s
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{wanted!r} never came; the terminal showed {seen!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            seen += os.read(fd, 4096)
    return seen


def test_chat_on_a_terminal_keeps_the_line_being_typed(home: Simulator, tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    process = chat(tmp_path, stdin=follower, stdout=follower)
    os.close(follower)
    try:
        _read_until(leader, b"> ")
        # the half line must be typed before the timer rings: on a machine so busy that
        # the reply and the prompt came after it, try again with a longer timer (under a
        # minute: 60 seconds is answered "1 minute")
        for seconds in (6, 20, 45):
            os.write(leader, f"set a timer for {seconds} seconds\r".encode())
            before = _read_until(leader, f"Timer set for {seconds} seconds.".encode())
            before += _read_until(leader, b"> ")
            if b"timer is done" not in before:
                break
        else:
            pytest.fail("every timer rang before the prompt came back")
        os.write(leader, b"what ti")  # half a question, not sent yet
        done = f"Your {seconds} second timer is done".encode()
        shown = _read_until(leader, done + b"\r\n> what ti", timeout_s=seconds + 30.0)
        # the half-typed line was cleared, the announcement printed, the line shown again
        assert b"\r\x1b[2K" + done + b"\r\n> what ti" in shown
        os.write(leader, b"me is it\r")
        assert b"It's " in _read_until(leader, b"It's ")
    finally:
        process.kill()
        process.wait()
        os.close(leader)


def test_a_one_shot_ask_says_timers_need_mnemolis_to_keep_running(
    home: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "set", "a", "timer", "for", "5", "minutes"]) == 0
    assert capsys.readouterr().out == (
        "Timers need Mnemolis to keep running: ask mnemolis serve or mnemolis chat.\n"
    )
