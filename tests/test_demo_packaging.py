"""Packaging for a Pi: the systemd unit, and the config search order it relies on."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from mnemolis.config import bundled_config_dir, find_config_dir, load_config
from tests.conftest import ROOT
from tests.tools import require

UNIT = ROOT / "packaging" / "mnemolis.service"


def unit_entries(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections of a unit file, each key with all its values (systemd allows repeats)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("Service", "ExecStart", "/opt/mnemolis/bin/mnemolis serve"),
        ("Service", "User", "mnemolis"),
        ("Service", "Restart", "on-failure"),
        ("Service", "ExecReload", "/bin/kill -HUP $MAINPID"),
        ("Service", "Environment", "MNEMOLIS_CONFIG=/etc/mnemolis"),
        ("Service", "Environment", "MNEMOLIS_CACHE=/var/cache/mnemolis"),
        ("Service", "CacheDirectory", "mnemolis"),
        ("Install", "WantedBy", "multi-user.target"),
    ],
)
def test_the_unit_runs_serve_as_its_own_user(section: str, key: str, value: str) -> None:
    entries = unit_entries(UNIT.read_text(encoding="utf-8"))
    assert value in entries[section][key]


def test_the_raspberry_pi_page_installs_what_the_unit_runs() -> None:
    readme = (ROOT / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    assert "sudo python3 -m venv /opt/mnemolis" in readme
    assert "sudo cp packaging/mnemolis.service /etc/systemd/system/" in readme
    assert "journalctl -u mnemolis" in readme


def test_systemd_reads_the_unit_without_complaint(tmp_path: Path) -> None:
    """The unit (its program swapped for /bin/true), checked by systemd itself."""
    analyze = require("systemd-analyze")
    unit = tmp_path / "mnemolis.service"
    unit.write_text(
        UNIT.read_text(encoding="utf-8").replace("/opt/mnemolis/bin/mnemolis", "/bin/true"),
        encoding="utf-8",
    )
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=30
    )
    complaints = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if str(unit) in line or re.match(r"mnemolis\.service:", line)
    ]
    assert complaints == []


def _config_dir(root: Path) -> Path:
    (root / "intents").mkdir(parents=True)
    return root


@pytest.mark.parametrize(
    ("explicit", "env", "etc_has_intents", "expected"),
    [
        ("flag", "env", True, "flag"),
        (None, "env", True, "env"),
        (None, None, True, "etc"),
        (None, "", True, "etc"),  # an empty variable is not set
        (None, None, False, "bundled"),
        ("flag", None, False, "flag"),
    ],
)
def test_config_search_order(
    tmp_path: Path, explicit: str | None, env: str | None, etc_has_intents: bool, expected: str
) -> None:
    places = {name: tmp_path / name for name in ("flag", "env", "etc")}
    etc = _config_dir(places["etc"]) if etc_has_intents else places["etc"]
    environ = {} if env is None else {"MNEMOLIS_CONFIG": str(places[env]) if env else ""}
    found = find_config_dir(str(places[explicit]) if explicit else None, environ, etc)
    assert found == (bundled_config_dir() if expected == "bundled" else places[expected])


def test_the_bundled_defaults_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MNEMOLIS_CONFIG", raising=False)
    config = load_config(bundled_config_dir())
    assert config.root == ROOT
    assert {"mqtt", "kiwix", "weather", "clock", "assistant"} <= set(config.sources)
