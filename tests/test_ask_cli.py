"""`mnemolis ask`, `chat` and `doctor` as a person or a script runs them, against
the simulated home on a real Mosquitto, a test ZIM and a loopback weather server.
The commands find them through the environment, as an owner's would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.demo.simulator import Simulator
from tests.support_home import home
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import closed_port_url, open_meteo

__all__ = ["broker", "fixture_test_zims", "home", "open_meteo"]


ASK = [
    # (request, environment changes, exit status, the reply starts with)
    (
        "turn off the kitchen light and who was ada lovelace",
        {},
        0,
        "Done: the kitchen light is off. Augusta Ada King",
    ),
    (
        "who was ada lovelace",
        {"MNEMOLIS_KIWIX": "/nowhere/missing.zim"},
        1,
        "I cannot look up ada lovelace",
    ),
    (
        "turn off the kitchen light and what's the weather tomorrow",
        {"MNEMOLIS_WEATHER_URL": closed_port_url()},
        3,
        "Done: the kitchen light is off. The weather is unavailable",
    ),
    ("play some jazz", {}, 4, "I can't play music: no music player is set up"),
    ("unlock the front door", {}, 5, "Do you want me to unlock the front door?"),
]


@pytest.mark.parametrize(("query", "environ", "status", "reply"), ASK)
def test_ask_answers_once_with_an_exit_status_per_outcome(
    home: Simulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    query: str,
    environ: dict[str, str],
    status: int,
    reply: str,
) -> None:
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    assert main(["ask", query]) == status
    out = capsys.readouterr().out
    assert out.startswith(reply), out
    assert out.count("\n") == 1


def test_ask_words_need_no_quotes(home: Simulator, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "turn", "on", "the", "porch", "light"]) == 0
    assert capsys.readouterr().out == "Done: the porch light is on.\n"
    assert [c.device for c in home.received()] == ["porch light"]


def test_ask_json_prints_the_structured_result(
    home: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "if the back door is unlocked lock it otherwise turn on the porch light"
    assert main(["ask", "--json", query]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["query"] == query
    assert result["answer"] == "The back door is locked, so I turned on the porch light."
    assert {"query", "answer", "parts", "ms"} <= set(result)
    assert [(p["role"], p["status"], p["branch"]) for p in result["parts"]] == [
        ("if", "ok", "else"),
        ("then", "declined", "else"),
        ("else", "done", "else"),
    ]
    for part in result["parts"]:
        assert {"text", "intent", "source", "status", "data", "provenance", "ms"} <= set(part)


def test_ask_with_a_broken_config_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--config", str(tmp_path / "nowhere"), "ask", "what time is it"]) == 2
    assert "configuration error" in capsys.readouterr().err


def test_ask_help_documents_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["ask", "--help"])
    out = capsys.readouterr().out
    for line in (
        "0  every part",
        "1  parts were understood",
        "3  partial",
        "4  nothing",
        "5  waiting",
    ):
        assert line in out


def test_chat_through_a_pipe_keeps_the_conversation(home: Simulator) -> None:
    turns = [
        "turn on the light",
        "the kitchen one",
        "unlock the front door",
        "yes",
        "lock it",
        "",
        "quit",
        "what time is it",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "mnemolis", "chat"],
        input="\n".join(turns) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Which one do you mean: the bedroom light, the hallway light, the kitchen light, "
        "the living room lamp or the porch light?",
        "Done: the kitchen light is on.",
        "Do you want me to unlock the front door?",
        "Done: the front door is unlocked.",
        "Done: the front door is locked.",
    ]
    assert "> " not in done.stdout  # no prompt when standard input is not a terminal
    commanded = [(c.device, c.payload) for c in home.received()]
    assert commanded == [
        ("kitchen light", '{"state": "ON"}'),
        ("front door", '{"state": "UNLOCK"}'),
        ("front door", '{"state": "LOCK"}'),
    ]


def test_doctor_says_what_works(home: Simulator, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "OK       mqtt" in out
    assert "all reported their state" in out
    assert "OK       kiwix      1 book(s) readable: kiwix_test" in out
    assert "OK       intents" in out
    assert "BROKEN" not in out


def test_doctor_says_what_to_fix(
    home: Simulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEMOLIS_MQTT_URL", "mqtt://127.0.0.1:1")
    monkeypatch.setenv("MNEMOLIS_KIWIX", "/nowhere/missing.zim")
    monkeypatch.setenv("MNEMOLIS_WEATHER_URL", closed_port_url())
    assert main(["doctor"]) == 1
    lines = capsys.readouterr().out.splitlines()
    broken = [line.split()[1] for line in lines if line.startswith("BROKEN")]
    assert broken == ["mqtt", "kiwix", "weather"]
    fixes = [line.strip() for line in lines if line.strip().startswith("fix:")]
    assert any("MNEMOLIS_MQTT_URL" in f for f in fixes)
    assert any("sources/kiwix.yaml" in f for f in fixes)
