"""`mnemolis demo`: the demo home and the assistant, one answer or a chat, in and out
of process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from tests.conftest import ROOT
from tests.support_demo import demo_cache

__all__ = ["demo_cache"]

DEMO_WEATHER = "in the demo's recorded forecast (not live weather)"


def broker_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "mnemolis-mqtt-broker"]


@pytest.mark.parametrize(
    ("request_text", "status", "starts"),
    [
        ("turn on the kitchen light", 0, "Done: the kitchen light is on."),
        ("is the back door locked", 0, "Yes, the back door is locked."),
        ("who was ada lovelace", 0, "Ada Lovelace was an English mathematician"),
        ("unlock the front door", 5, "Do you want me to unlock the front door?"),
    ],
)
def test_demo_ask_answers_one_request(
    demo_cache: Path,
    capsys: pytest.CaptureFixture[str],
    request_text: str,
    status: int,
    starts: str,
) -> None:
    assert main(["demo", "--cache", str(demo_cache), "--ask", request_text]) == status
    out = capsys.readouterr().out
    assert out.startswith(starts)
    assert broker_threads() == []


@pytest.mark.parametrize(
    ("room", "starts"),
    [
        ("bedroom", "Done: the bedroom light is on."),
        ("Lounge", "Done: the living room lamp is on."),
        (None, "Which one do you mean:"),
    ],
)
def test_demo_ask_from_a_room(
    demo_cache: Path, capsys: pytest.CaptureFixture[str], room: str | None, starts: str
) -> None:
    """``--room``: "turn on the light" means the light of the area it is said in."""
    where = ["--room", room] if room else []
    main(["demo", "--cache", str(demo_cache), *where, "--ask", "turn on the light"])
    assert capsys.readouterr().out.startswith(starts)


def test_demo_ask_weather_says_where_it_comes_from(
    demo_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["demo", "--cache", str(demo_cache), "--json", "--ask", "will it rain tomorrow"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert DEMO_WEATHER in result["answer"] and result["answer"].startswith("As of ")
    [part] = result["parts"]
    assert part["source"] == "weather" and part["data"]["origin"] == "demo"


def test_demo_chat_keeps_a_conversation(
    demo_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [
        "unlock the front door",
        "yes",
        "is the front door locked",
        "turn on the light",
        "the kitchen one",
        "quit",
        "turn off the kitchen light",  # after quit: never asked
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(turns) + "\n"))
    assert main(["demo", "--cache", str(demo_cache)]) == 0
    captured = capsys.readouterr()
    replies = captured.out.splitlines()
    assert replies[:3] == [
        "Do you want me to unlock the front door?",
        "Done: the front door is unlocked.",
        "No, the front door is unlocked.",
    ]
    assert replies[3].startswith("Which one do you mean")
    assert replies[4] == "Done: the kitchen light is on."
    assert len(replies) == 5
    assert "demo: MQTT broker mqtt://127.0.0.1:" in captured.err
    assert "demo: weather: the demo's recorded forecast for Berlin" in captured.err
    assert broker_threads() == []


def test_a_first_demo_builds_its_zim_without_a_word_on_stdout_or_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """libzim's progress lines come from C++ on file descriptor 1 (capfd sees them);
    a fresh cache makes the demo build its ZIM, and only the answer is printed."""
    assert main(["demo", "--cache", str(tmp_path), "--ask", "who was ada lovelace"]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("Ada Lovelace was an English mathematician")
    assert out.count("\n") == 1
    assert err == ""
    assert [p.suffix for p in tmp_path.glob("*.zim")] == [".zim"]  # built just now


def test_demo_that_cannot_start_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file, not a directory")
    assert main(["demo", "--cache", str(blocked), "--ask", "what time is it"]) == 1
    assert "the demo home could not start" in capsys.readouterr().err
    assert broker_threads() == []


def test_the_installed_command_runs_the_demo(demo_cache: Path) -> None:
    """As `make demo` runs it: the console script, standard input at its end at once."""
    command = Path(sys.executable).with_name("mnemolis")
    env = {**os.environ, "MNEMOLIS_CACHE": str(demo_cache)}
    done = subprocess.run(
        [str(command), "demo"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "demo: MQTT broker mqtt://127.0.0.1:" in done.stderr
    assert f"demo: encyclopedia: the demo ZIM {demo_cache}" in done.stderr
