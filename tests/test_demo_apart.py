"""The demo shows everything and stays apart (issue 26): its timers and lists live in its
own cache directory, never in the real state directory; it plays music on a real mpd
with a generated library where mpd is installed, and says how to get it where not."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.config import Config
from mnemolis.demo import home as demo_home_module
from mnemolis.demo.home import DemoHome
from mnemolis.demo.mosquitto import free_port
from tests.support_demo import demo_cache, running_demo
from tests.tools import require

__all__ = ["demo_cache"]


def test_the_demo_keeps_its_lists_and_timers_in_its_own_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As on a newcomer's machine: no $MNEMOLIS_STATE, the real state directory is
    ~/.local/state/mnemolis, and the real home never sees the demo's shopping."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("MNEMOLIS_STATE", "STATE_DIRECTORY", "XDG_STATE_HOME", "MNEMOLIS_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    real = tmp_path / "home" / ".local" / "state" / "mnemolis"
    cache = tmp_path / "cache"
    demo = ["demo", "--cache", str(cache), "--ask"]
    assert main([*demo, "add milk and eggs to the shopping list"]) == 0
    assert main([*demo, "set a timer for 10 minutes"]) == 0
    assert main([*demo, "what's on my shopping list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("The shopping list has 2 items")
    assert not real.exists(), "the demo wrote into the real state directory"
    assert (cache / "demo" / "state" / "lists.sqlite3").is_file()
    monkeypatch.setenv("MNEMOLIS_LOCAL", "1")
    monkeypatch.setenv("MNEMOLIS_MQTT_URL", f"mqtt://127.0.0.1:{free_port()}")
    assert main(["ask", "what's on my shopping list"]) == 0
    assert "milk" not in capsys.readouterr().out, "the real home lists the demo's shopping"


def test_the_demo_environment_names_its_own_state_directory(config: Config, tmp_path: Path) -> None:
    home = running_demo(config, tmp_path)
    try:
        variables = home.environment.variables()
    finally:
        home.stop()
    assert variables["MNEMOLIS_STATE"] == str(tmp_path / "demo" / "state")
    assert "MNEMOLIS_MPD" not in variables  # started without its player


def test_the_demo_plays_music_on_its_own_mpd(
    demo_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require("mpd")
    demo = ["demo", "--cache", str(demo_cache), "--ask"]
    assert main([*demo, "play some jazz"]) == 0
    assert capsys.readouterr().out == "Playing Jazz (4 songs).\n"
    assert main([*demo, "play the album abbey road"]) == 0
    assert capsys.readouterr().out == "Playing the album Abbey Road.\n"


def test_the_demo_player_stops_with_the_demo(config: Config, tmp_path: Path) -> None:
    require("mpd")
    home = running_demo(config, tmp_path, music=True)
    player = home.player
    assert player is not None and player.process is not None
    process = player.process
    summary = home.summary()
    assert any(
        line.startswith(f"music: mpd at {player.address} with 8 silent tracks") for line in summary
    )
    home.stop()
    assert process.poll() is not None, "mpd outlived the demo"
    assert not player.workdir.exists()


def test_without_mpd_the_demo_says_how_to_get_it(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo_home_module, "find_mpd", lambda: None)
    home = DemoHome(config, tmp_path).start()
    try:
        summary = home.summary()
        assert home.environment.mpd is None
    finally:
        home.stop()
    assert (
        "music: none, mpd is not installed (sudo apt-get install mpd, then start the demo again)"
        in summary
    )


def test_a_player_that_cannot_start_leaves_the_rest_of_the_demo_running(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "mpd"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setattr(demo_home_module, "find_mpd", lambda: str(broken))
    home = DemoHome(config, tmp_path / "cache").start()
    try:
        assert home.player is None and home.environment.mqtt_url.startswith("mqtt://")
        assert any(
            line.startswith("music: none, mpd did not start (mpd exited at start")
            for line in home.summary()
        )
    finally:
        home.stop()


def test_the_demo_chat_says_its_broadcasts_and_one_answer_points_at_the_chat(
    demo_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broadcast is said in the demo's chat (it answered "nothing that speaks is
    listening"); a one-shot --ask cannot keep a timer and says where it can: the demo's
    chat, never `mnemolis chat` (the real home)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("tell everyone dinner is ready\n"))
    assert main(["demo", "--cache", str(demo_cache)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "dinner is ready",
        "Done: I said 'dinner is ready' everywhere.",
    ]
    assert main(["demo", "--cache", str(demo_cache), "--ask", "set a timer for 10 seconds"]) == 0
    assert capsys.readouterr().out == (
        "Timers need the demo to keep running: set one in its chat (mnemolis demo).\n"
    )
