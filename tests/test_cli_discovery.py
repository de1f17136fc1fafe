"""`parse` and `explain` over a configuration directory with a `discovery.jsonl`: the
devices firmware announced are known, as they are to `eval` (the same loading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.config import load_config
from mnemolis.evaluation.discovered import home_registry

BIG_HOME = Path(__file__).parent / "data" / "big_home"
DISCOVERED_ID = "ha_0x0017880104e45553_light_zigbee2mqtt"  # "bulb enddevice", discovery only


@pytest.mark.parametrize(
    ("query", "intent", "device"),
    [
        ("turn on the bulb enddevice", "device.turn_on", "bulb enddevice"),
        ("turn off the bulb_enddevice", "device.turn_off", "bulb enddevice"),
    ],
)
def test_parse_over_a_home_with_discovery_names_a_discovered_device(
    capsys: pytest.CaptureFixture[str], query: str, intent: str, device: str
) -> None:
    assert main(["--config", str(BIG_HOME), "parse", query]) == 0
    (step,) = json.loads(capsys.readouterr().out)["steps"]
    assert (step["intent"], step["slots"]["device"]) == (intent, device)
    registry, _loaded = home_registry(load_config(str(BIG_HOME)), None)
    found = registry.by_name(step["slots"]["device"])
    assert found is not None and found.id == DISCOVERED_ID


def test_explain_over_a_home_with_discovery_names_a_discovered_device(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--config", str(BIG_HOME), "explain", "turn on the bulb enddevice"]) == 0
    assert 'slots: {"device": "bulb enddevice"}' in capsys.readouterr().out


def test_a_broken_discovery_file_is_a_configuration_error_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "discovery.jsonl").write_text('{"topic": "a/b", "payload": 1}\nnot json\n')
    assert main(["--config", str(tmp_path), "parse", "what time is it"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'discovery.jsonl'}:2: not JSON" in err
    assert "Traceback" not in err
