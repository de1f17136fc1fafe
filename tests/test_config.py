"""Broken configuration fails with the file, the line and the reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.config import ConfigError, load_config
from tests.conftest import ROOT


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "intents", tmp_path / "intents")
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    return tmp_path


BROKEN = [
    # (file, text to find, replacement, line of the error relative to the replaced text, reason)
    (
        "intents/en/clock.yaml",
        "    source: clock\n    priority: 70\n    slots: [location]",
        "    source: clok\n    priority: 70\n    slots: [location]",
        0,
        "unknown source 'clok'",
    ),
    (
        "intents/en/clock.yaml",
        "    slots: [location]",
        "    slots: [place]",
        0,
        "unknown slot 'place'",
    ),
    (
        "intents/en/clock.yaml",
        "    slots: [location]\n",
        "    slots: [location\n",
        None,
        "invalid YAML",
    ),
    (
        "intents/en/devices.yaml",
        '      - "{brightness} percent"',
        "      - {brightness} percent",
        None,
        "invalid YAML",
    ),
    (
        "intents/en/slots.yaml",
        '      "on": ["on", switched on',
        "      on: [on, switched on",
        None,
        "YAML reads on as true",
    ),
    (
        "intents/en/clock.yaml",
        "    priority: 70\n    slots: [location]",
        "    priority: high\n    slots: [location]",
        0,
        "priority must be an integer",
    ),
    (
        "intents/en/knowledge.yaml",
        "    requires: [topic]",
        "    requires: [device]",
        None,
        "required slot 'device' is not in its slots",
    ),
    ("intents/en/weather.yaml", "  weather.forecast:", "  device.turn_on:", 0, "already defined"),
    (
        "sources/mqtt.yaml",
        "    type: light\n    room: kitchen",
        "    type: lamp\n    room: kitchen",
        None,
        "unknown type 'lamp'",
    ),
    ("sources/mqtt.yaml", "  - name: porch light", "  - name: kitchen light", None, "already used"),
    (
        "intents/en/language.yaml",
        "max_query_chars: 500",
        "max_query_chars: five",
        None,
        "max_query_chars",
    ),
    (
        "intents/en/clock.yaml",
        "      - what time\n",
        '      - what time\n      - {text: "", weight: 1}\n',
        None,
        "must not be empty",
    ),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "offset", "reason"), BROKEN, ids=[b[4] for b in BROKEN]
)
def test_broken_config_names_file_line_and_reason(
    config_dir: Path, file: str, old: str, new: str, offset: int | None, reason: str
) -> None:
    path = config_dir / file
    text = path.read_text()
    assert old in text, "the fixture no longer matches the shipped file"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as caught:
        load_config(config_dir)
    err = caught.value
    assert err.path.endswith(file)
    assert reason in err.reason
    assert err.line is not None
    if offset is not None:
        assert err.line == text[: text.index(old)].count("\n") + 1 + offset
    assert str(err).startswith(f"{err.path}:{err.line}: ")


def test_check_command_reports_broken_yaml(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_dir / "intents/en/clock.yaml"
    path.write_text(path.read_text().replace("source: clock", "source: [clock", 1))
    assert main(["--config", str(config_dir), "check"]) == 2
    err = capsys.readouterr().err
    assert "clock.yaml:" in err and "invalid YAML" in err


def test_check_command_fails_on_a_wrong_example(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_dir / "intents/en/clock.yaml"
    path.write_text(
        path.read_text().replace("      - what time is it\n", "      - lock the front door\n", 1)
    )
    assert main(["--config", str(config_dir), "check"]) == 1
    out = capsys.readouterr().out
    assert "'lock the front door' -> device.lock, expected clock.time" in out
    assert "clock.yaml:" in out


def test_shipped_config_passes_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 0
    assert "examples pass" in capsys.readouterr().out


def test_missing_intents_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no intents directory"):
        load_config(tmp_path)


def test_config_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "intents", tmp_path / "intents")
    monkeypatch.setenv("MNEMOLIS_CONFIG", str(tmp_path))
    assert load_config().root == tmp_path
    assert load_config(ROOT).root == ROOT
