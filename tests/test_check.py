"""`mnemolis check`: the table of broken files and the exact message for each, every
error at once; warnings for what discovery may still announce; where every intent,
phrase and example came from; a config file that is not UTF-8 anywhere in the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemolis.cli.main import main
from mnemolis.config import bundled_config_dir
from tests.support_routines import owner_dir

TABLE = Path(__file__).parent / "data" / "broken_configs"
CASES: list[dict[str, Any]] = yaml.safe_load((TABLE / "cases.yaml").read_text(encoding="utf-8"))


def lay(folder: Path, files: dict[str, str]) -> Path:
    for target, fixture in files.items():
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TABLE / fixture, folder / target)
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_a_broken_file_gets_exactly_its_message(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = lay(tmp_path / "owner", case["files"])
    assert main(["--config", str(folder), "check"]) == case["status"]
    err = capsys.readouterr().err
    said = [
        line.replace(str(folder), "{dir}").replace(str(bundled_config_dir()), "{shipped}")
        for line in err.splitlines()
    ]
    assert said == case["says"]
    assert "Traceback" not in err


def test_every_case_of_the_table_uses_its_files() -> None:
    used = {fixture for case in CASES for fixture in case["files"].values()}
    assert used == {p.name for p in TABLE.glob("*.yaml")} - {"cases.yaml"}


@pytest.mark.parametrize("command", [["check"], ["parse", "hello"], ["ask", "what time is it"]])
def test_a_file_that_is_not_utf8_names_its_line_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    folder = lay(tmp_path / "owner", {"intents/en/latin1.yaml": "latin1.yaml"})
    assert main(["--config", str(folder), *command]) == 2
    err = capsys.readouterr().err
    assert "latin1.yaml:1: is not UTF-8 text (byte 0xe9 at column 6)" in err
    assert "Traceback" not in err


UNKNOWN_DEVICES = """
intents:
  routine.shed:
    phrases: [shed lights off]
    do:
      - action: turn_off
        device: garden shed light
      - action: turn_off
        device: kitchen lite
"""


@pytest.mark.parametrize(
    ("discovery", "status", "errors", "warnings"),
    [
        (True, 2, ["'kitchen lite' (kitchen lite -> kitchen light?)"], ["'garden shed light'"]),
        (False, 2, ["'garden shed light'", "'kitchen lite'"], []),
    ],
)
def test_a_device_discovery_may_announce_is_a_warning_unless_it_looks_like_a_typo(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    discovery: bool,
    status: int,
    errors: list[str],
    warnings: list[str],
) -> None:
    files = {"intents/en/mine.yaml": UNKNOWN_DEVICES}
    if not discovery:
        mqtt = (bundled_config_dir() / "sources" / "mqtt.yaml").read_text(encoding="utf-8")
        files["sources/mqtt.yaml"] = mqtt.replace("homeassistant: true", "homeassistant: false")
        files["sources/mqtt.yaml"] = files["sources/mqtt.yaml"].replace(
            "zigbee2mqtt: true", "zigbee2mqtt: false"
        )
    folder = owner_dir(tmp_path / "owner", files)
    assert main(["--config", str(folder), "check"]) == status
    err = capsys.readouterr().err.splitlines()
    found_errors = [line for line in err if line.startswith(str(folder))]
    found_warnings = [line for line in err if line.startswith("warning:")]
    assert len(found_errors) == len(errors)
    assert all(e in line for e, line in zip(errors, found_errors, strict=True))
    assert len(found_warnings) == len(warnings)
    assert all(
        w in line and "fine if discovery announces it" in line
        for w, line in zip(warnings, found_warnings, strict=True)
    )


OWNER = """
intents:
  device.turn_off:
    phrases: [nix]
    examples:
      - text: nix the porch light
        slots: {device: porch light}
  decline.music:
    enabled: false
  reply.hello:
    override: true
    phrases: [hello]
    say: Hi.
"""


def test_check_says_what_the_owners_files_add_and_where_each_phrase_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = owner_dir(tmp_path / "owner", {"intents/en/mine.yaml": OWNER})
    mine = folder / "intents" / "en" / "mine.yaml"
    assert (
        main(["--config", str(folder), "check", "--where", "device.turn_off", "decline.music"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("device.turn_off: defined in ") and out[0].endswith(
        f"(shipped); extended in {mine}:3"
    )
    assert f"  phrase 'nix': {mine}:4" in out
    assert f"  example 'nix the porch light': {mine}:6" in out
    assert any(line.startswith("  phrase 'turn off': ") and "devices.yaml:" in line for line in out)
    assert any(
        line.startswith("decline.music (switched off): defined in ")
        and line.endswith(f"; disabled in {mine}:8")
        for line in out
    )
    summary = [line for line in out if line.startswith(f"  {mine}: ")]
    assert summary == [
        f"  {mine}: 1 intents extended, 1 intents overridden, 1 intents switched off, "
        "2 phrases, 1 examples"
    ]
    assert out[-1].endswith("examples pass")


def test_the_shipped_configuration_passes_check_without_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.strip().endswith("examples pass")


@pytest.mark.parametrize(
    "target", ["intents/en/latin1.yaml", "sources/clock.yaml", "intents/en/language.yaml"]
)
def test_a_file_that_is_not_utf8_is_a_config_error_every_caller_reports(
    tmp_path: Path, target: str
) -> None:
    """`ConfigError`, not `UnicodeDecodeError`: the CLI exits 2 and a daemon's reload is
    refused with the file and line (it catches `ConfigError`)."""
    from mnemolis.config import ConfigError, load_config

    folder = lay(tmp_path / "owner", {target: "latin1.yaml"})
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    assert (caught.value.path, caught.value.line) == (str(folder / target), 1)
