"""Lists shared by separate `mnemolis ask` processes through the state directory.

One process adds, another reads it back; several processes adding at the
same moment lose nothing. Each is a real ``python -m mnemolis ask`` with
``$MNEMOLIS_STATE`` pointing at the test's own directory (and the MQTT
broker at a closed port, so no process waits for devices).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mnemolis.demo.mosquitto import free_port


def environ(state: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MNEMOLIS_STATE=str(state),
        MNEMOLIS_MQTT_URL=f"mqtt://127.0.0.1:{free_port()}",
        MNEMOLIS_KIWIX=str(state / "no-encyclopedia.zim"),  # nothing to build or open
        MNEMOLIS_CACHE=str(state / "cache"),
    )
    env.pop("MNEMOLIS_MPD", None)
    return env


def ask(state: Path, text: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mnemolis", "ask", "--json", text],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(state),
    )


def answer(process: subprocess.Popen[str]) -> dict[str, object]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err or out
    result: dict[str, object] = json.loads(out)
    return result


def test_one_process_adds_and_another_reads_it_back(tmp_path: Path) -> None:
    added = answer(ask(tmp_path, "add milk, eggs and bread to the shopping list"))
    assert added["answer"] == "Added milk, eggs and bread to the shopping list."
    assert (tmp_path / "lists.sqlite3").is_file()
    read = answer(ask(tmp_path, "what's on my shopping list"))
    assert read["answer"] == "The shopping list has 3 items: milk, eggs and bread."


def test_processes_adding_at_once_lose_nothing(tmp_path: Path) -> None:
    things = ["apples and bananas", "coffee and flour", "honey and rice", "tea and sugar"]
    running = [ask(tmp_path, f"add {thing} to the shopping list") for thing in things]
    for process in running:
        assert answer(process)["outcome"] == "answered"
    listed = answer(ask(tmp_path, "what's on my shopping list"))
    parts = listed["parts"]
    assert isinstance(parts, list)
    assert parts[0]["data"]["count"] == 8
    assert sorted(parts[0]["data"]["items"]) == sorted(
        item for thing in things for item in thing.split(" and ")
    )
