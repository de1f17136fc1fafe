"""A timer set through every front-end is said exactly once, when it rings (issue 26,
item 1): never an empty say when it starts (``mnemolis/say`` got one 0.04 s after "set a
timer for 3 seconds", Hermes an empty ``tts/say``, the demo's chat a "nobody listens"
line). The daemon's front-ends on a real Mosquitto; the chat and the demo as commands."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mnemolis.demo.mosquitto import free_port
from tests.conftest import ROOT
from tests.support_demo import demo_cache
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import MqttProbe, ServeHome, fixture_serve_home, http_call, probe
from tests.support_serve_inprocess import in_process_daemon
from tests.test_serve_announcements import SERVE, read_sse, wyoming

__all__ = ["demo_cache", "fixture_serve_home", "fixture_test_zims"]

SAY, TTS, ANSWER = "mnemolis/say", "hermes/tts/say", "mnemolis/answer"
SET = "set a timer for 1 second"
SET_REPLY = "Timer set for 1 second."
RANG = "Your 1 second timer is done"


async def heard(ear: MqttProbe, topics: tuple[str, ...] = (SAY, TTS)) -> list[tuple[str, Any]]:
    """What was said on the say topics until the timer rang, and then nothing more."""
    said: list[tuple[str, Any]] = []
    while not any(body.get("text") == RANG for _topic, body in said):
        got = await asyncio.to_thread(ear.next, 10.0)
        if got.topic in topics:
            said.append((got.topic, got.json()))
    while not await asyncio.to_thread(ear.nothing, 0.5):  # a late stray say would show here
        raise AssertionError("something more was said after the timer rang")
    return said


def test_a_timer_set_through_each_front_end_of_the_daemon_is_said_once(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with in_process_daemon(serve_home, SERVE, monkeypatch) as running:
            with probe(serve_home, SAY, TTS, ANSWER) as ear:
                ear.publish("mnemolis/ask", json.dumps({"text": SET, "session": "m1"}))
                found["mqtt"] = await heard(ear, (SAY, TTS, ANSWER))
                said = {"text": SET, "siteId": "kitchen-pi", "sessionId": "h1"}
                ear.publish("hermes/asr/textCaptured", json.dumps(said))
                found["hermes"] = await heard(ear)
                base = f"http://127.0.0.1:{running.http_port}"
                async with (
                    aiohttp.ClientSession() as http,
                    http.get(f"{base}/events?session=web-1") as mine,
                ):
                    await mine.content.readline()  # the stream's opening comment
                    body = {"text": SET, "session": "web-1"}
                    await asyncio.to_thread(http_call, running.http_port, "POST", "/ask", body)
                    found["http"] = [await read_sse(mine), await read_sse(mine)]
                    found["http_quiet"] = await asyncio.to_thread(ear.nothing, 1.5)
                async with wyoming(running) as satellite:
                    await satellite.send("info", satellite={"area": "kitchen"})
                    await satellite.send("transcript", text=SET)
                    found["wyoming"] = [(await satellite.receive())[0] for _ in range(3)]
                    found["wyoming_quiet"] = await asyncio.to_thread(ear.nothing, 1.5)
        return found

    found = asyncio.run(scenario())
    rang = {"text": RANG, "kind": "timer"}
    answer, say = found["mqtt"]
    assert answer[0] == ANSWER and answer[1]["answer"] == SET_REPLY
    assert say[0] == SAY and {k: say[1][k] for k in rang} == rang
    replied, rings = found["hermes"]  # Hermes says its reply, then the timer: nothing else
    assert (replied[0], replied[1]["text"]) == (TTS, SET_REPLY)
    assert (rings[0], rings[1]["text"], rings[1]["siteId"]) == (TTS, RANG, "kitchen-pi")
    (started, notice), (rang_kind, said) = found["http"]
    assert (started, notice["event"]) == ("lifecycle", "started") and "text" not in notice
    assert (rang_kind, said["text"]) == ("announcement", RANG)
    assert found["http_quiet"], "the requester heard it: nothing on mnemolis/say"
    # timer-started may come before or after the reply; the timer-finished comes last
    assert sorted(found["wyoming"][:2]) == ["handled", "timer-started"]
    assert found["wyoming"][2] == "timer-finished"
    assert found["wyoming_quiet"], "the satellite heard it: nothing on mnemolis/say"


def chat_command(*command: str, env: dict[str, str]) -> tuple[list[str], str]:
    """Set a timer in a chat, wait for it to ring, leave: every line printed, and stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mnemolis", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(f"{SET}\n")
        process.stdin.flush()
        lines = [process.stdout.readline(), process.stdout.readline()]
        process.stdin.write("quit\n")
        process.stdin.flush()
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    return [line.rstrip("\n") for line in [*lines, *out.splitlines(keepends=True)]], err


def test_the_chat_prints_the_timer_once_and_no_stray_line(tmp_path: Path) -> None:
    env = {
        "MNEMOLIS_LOCAL": "1",
        "MNEMOLIS_STATE": str(tmp_path),
        "MNEMOLIS_MQTT_URL": f"mqtt://127.0.0.1:{free_port()}",
    }
    lines, err = chat_command("chat", env=env)
    assert lines == [SET_REPLY, RANG]
    assert "nobody listens" not in err


def test_the_demo_chat_prints_the_timer_once_and_no_stray_line(demo_cache: Path) -> None:
    lines, err = chat_command("demo", "--cache", str(demo_cache), env={})
    assert lines == [SET_REPLY, RANG]
    assert "nobody listens" not in err and "was not said" not in err
