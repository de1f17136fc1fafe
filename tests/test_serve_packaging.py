"""The unit file and the Pi steps (docs/raspberry-pi.md), as the daemon needs them (issue 17)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from mnemolis.core.state_dir import state_dir
from mnemolis.serve.client import daemon_socket, socket_candidates
from tests.conftest import ROOT
from tests.test_demo_packaging import UNIT, unit_entries

README = ROOT / "docs" / "raspberry-pi.md"


def service() -> dict[str, list[str]]:
    return unit_entries(UNIT.read_text(encoding="utf-8"))["Service"]


def test_the_unit_gives_the_daemon_the_files_it_needs() -> None:
    """Item 2: every connection is an open file; 1,024 would let idle clients starve it."""
    (limit,) = service()["LimitNOFILE"]
    assert int(limit) >= 16_384


def test_the_unit_makes_the_runtime_and_state_directories() -> None:
    """Item 10: a unix socket in /run/mnemolis needs RuntimeDirectory=; timers and lists
    live in StateDirectory=, and MNEMOLIS_STATE names the same place for the CLI."""
    entries = service()
    assert entries["RuntimeDirectory"] == ["mnemolis"]
    assert entries["StateDirectory"] == ["mnemolis"]
    # lists, reminders and the token are private (issue 21): no access for anyone else
    assert entries["StateDirectoryMode"] == entries["CacheDirectoryMode"] == ["0700"]
    assert entries["UMask"] == ["0077"]
    environment = dict(e.split("=", 1) for e in entries["Environment"])
    systemd = {"STATE_DIRECTORY": "/var/lib/mnemolis", "RUNTIME_DIRECTORY": "/run/mnemolis"}
    assert state_dir(environment) == state_dir(systemd)
    sock = daemon_socket({**environment, **systemd})
    assert sock is not None and sock in socket_candidates({})  # a shell finds it


def test_the_readme_runs_doctor_and_check_with_the_units_environment() -> None:
    """Item 10: without the unit's environment `doctor` looked at another cache."""
    readme = README.read_text(encoding="utf-8")
    found = re.search(r'^MNEMOLIS_ENV="([^"]*)"$', readme, re.MULTILINE)
    assert found is not None, "the Pi page defines no MNEMOLIS_ENV"
    assert set(found.group(1).split()) == set(service()["Environment"])
    runs = [
        line for line in readme.splitlines() if re.search(r"bin/mnemolis (doctor|check)\b", line)
    ]
    by_hand = [line for line in runs if line.startswith("sudo -u mnemolis")]
    assert len(by_hand) == 2 and all("env $MNEMOLIS_ENV " in line for line in by_hand), by_hand


def test_building_a_zim_prints_nothing(tmp_path: Path) -> None:
    """Issue 17, footprint: libzim's progress lines ("ZIM file is ready!") no longer show
    on a first `make demo` or in JSON output."""
    program = (
        "from pathlib import Path\n"
        "from mnemolis.demo.zim import ZimArticle, ZimBook, write_zim\n"
        "book = ZimBook('t', 'T', articles=[ZimArticle('Ada', 'Ada was a mathematician.')])\n"
        f"write_zim(book, Path({str(tmp_path / 't.zim')!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert (tmp_path / "t.zim").stat().st_size > 0


def test_the_package_licence_is_an_spdx_string() -> None:
    """setuptools (>= 77) warns about a licence table on every build of `make venv`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    assert any(r.startswith("setuptools>=77") for r in project["build-system"]["requires"])
