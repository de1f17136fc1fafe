"""A newcomer's first commands (issue 26): a clear sentence and status instead of a
traceback or argparse's usage, and commands after `make demo` that stay inside the demo."""

from __future__ import annotations

import argparse
import contextlib
import grp
import json
import os
import pwd
import shutil
import socket
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.demo.mosquitto import free_port
from mnemolis.serve.cli_client import ask_through_daemon
from tests.conftest import ROOT

#: A group the test's unprivileged user is not in (as `mnemolis` is not, for a newcomer).
OTHER_GROUP = "adm"


def as_stranger(call: Callable[[], int | None]) -> tuple[int, str]:
    """``call()`` in a forked child that runs as nobody (when the tests run as root, for
    whom no permission is ever denied), with its standard error captured: (status, err)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            os.close(read_end)
            sys.stderr = os.fdopen(write_end, "w", buffering=1)  # pytest's capture is not fd 2
            if os.geteuid() == 0:
                # what the child imports lazily must be loaded while it may still read the
                # Python install (root's here; a real user's is readable): the socket
                # module looks up host names with the idna codec on first use
                "localhost".encode("idna")
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            result = call()
            code = 0 if result is None else result
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, encoding="utf-8", errors="replace") as err:
        said = err.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said


@contextlib.contextmanager
def closed_folder() -> Iterator[Path]:
    """A folder only its owner and the group `OTHER_GROUP` may enter (as /etc/mnemolis and
    /run/mnemolis are, for the group mnemolis); under root, owned by root."""
    parent = Path(tempfile.mkdtemp(prefix="mnemolis-closed-"))
    parent.chmod(0o755)
    folder = parent / "mnemolis"
    folder.mkdir()
    try:
        if os.geteuid() == 0:
            os.chown(folder, 0, grp.getgrnam(OTHER_GROUP).gr_gid)
            folder.chmod(0o750)
        else:
            folder.chmod(0o000)  # not even its owner: as good as another user's
        yield folder
    finally:
        folder.chmod(0o755)
        shutil.rmtree(parent, ignore_errors=True)


def test_ask_with_no_words_says_so_and_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask"]) == 4
    assert main(["ask", "  "]) == 4
    err = capsys.readouterr().err
    assert (
        err.splitlines()
        == ["mnemolis: nothing to ask: say it after ask (mnemolis ask what time is it)"] * 2
    )
    assert "usage:" not in err


def test_a_configuration_the_user_may_not_read_is_a_sentence_and_status_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with closed_folder() as folder:
        shutil.copytree(ROOT / "sources", folder / "sources")
        monkeypatch.setenv("MNEMOLIS_CONFIG", str(folder))
        monkeypatch.setenv("MNEMOLIS_LOCAL", "1")
        status, err = as_stranger(lambda: main(["ask", "what time is it"]))
    assert status == 2, err
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"mnemolis: you may not read {folder}")
    assert "(permission denied)" in line
    if os.geteuid() == 0:  # the folder's group is one nobody is not in
        assert line.endswith(
            f"it belongs to the group {OTHER_GROUP}, which you are not in: "
            f"`sudo usermod -aG {OTHER_GROUP} $USER`, then log in again"
        )


def test_a_daemon_socket_the_user_may_not_use_is_said_then_answered_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with closed_folder() as folder:
        path = folder / "mnemolis.sock"
        listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        folder.chmod(0o755)
        listening.bind(str(path))
        listening.listen()
        folder.chmod(0o750 if os.geteuid() == 0 else 0o000)
        monkeypatch.setenv("MNEMOLIS_SOCKET", str(path))
        monkeypatch.delenv("MNEMOLIS_LOCAL", raising=False)
        args = argparse.Namespace(config=str(ROOT), local=False, room=None, json=False)
        try:
            status, err = as_stranger(lambda: 7 if ask_through_daemon(args, "hi") is None else 0)
        finally:
            listening.close()
    assert status == 7, err  # no daemon answered: the command goes on in-process
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"mnemolis: you may not use the daemon at {path}")


def test_the_demo_parses_and_explains_its_own_home_whatever_the_shell_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mnemolis demo --parse` / `--explain`: the demo's configuration, never the
    configuration $MNEMOLIS_CONFIG (or /etc/mnemolis) names, and nothing is started."""
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "mqtt.yaml").write_text("devices: []\nrooms: []\n")
    monkeypatch.setenv("MNEMOLIS_CONFIG", str(tmp_path))
    assert main(["demo", "--parse", "turn on the kitchen light"]) == 0
    (step,) = json.loads(capsys.readouterr().out)["steps"]
    assert (step["intent"], step["slots"]) == ("device.turn_on", {"device": "kitchen light"})
    assert main(["demo", "--explain", "turn on the kitchen light"]) == 0
    out = capsys.readouterr().out
    assert "'turn on the kitchen light' -> device.turn_on [mqtt]" in out
    assert main(["parse", "turn on the kitchen light"]) == 0  # the shell's home has no devices
    (step,) = json.loads(capsys.readouterr().out)["steps"]
    assert step["slots"].get("device") != "kitchen light"


def test_the_demo_doctor_checks_the_demo_home(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["demo", "--cache", str(tmp_path), "--doctor"])
    out = capsys.readouterr().out
    assert "OK       mqtt       broker at 127.0.0.1:" in out
    assert f"kept in {tmp_path / 'demo' / 'state'}" in out


def test_ask_on_the_shipped_home_says_where_its_commands_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("MNEMOLIS_CONFIG", "MNEMOLIS_MQTT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("mnemolis.core.config_dir.ETC_CONFIG_DIR", Path("/nonexistent"))
    monkeypatch.setenv("MNEMOLIS_LOCAL", "1")
    assert main(["ask", "what time is it"]) == 0
    err = capsys.readouterr().err
    assert "no home of your own is set up" in err
    assert "its commands go to whatever MQTT broker listens at 127.0.0.1:1883" in err
    assert "`mnemolis demo` tries Mnemolis on a simulated home" in err
    monkeypatch.setenv("MNEMOLIS_MQTT_URL", f"mqtt://127.0.0.1:{free_port()}")  # a choice
    assert main(["ask", "what time is it"]) == 0
    assert "no home of your own" not in capsys.readouterr().err
