"""`mnemolis check` reads the satellites of sources/serve.yaml and the Wyoming engines of
sources/voice.yaml as the daemon will, and a wrong value names its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.config import load_config
from mnemolis.serve.satellite_settings import load_satellites
from mnemolis.voice.settings import load_voice_settings

# (file, text, the error)
WRONG = [
    ("serve.yaml", "satellites: kitchen\n", "sources/serve.yaml:1: satellites must be a list"),
    (
        "serve.yaml",
        "satellites:\n  - {address: 'tcp://a:1'}\n",
        "sources/serve.yaml:2: a satellite needs a name",
    ),
    (
        "serve.yaml",
        "satellites:\n  - {name: k, address: 'http://a:1'}\n",
        "sources/serve.yaml:2: address: 'http://a:1' must start with tcp:// or unix://",
    ),
    (
        "serve.yaml",
        "satellites:\n  - {name: k, address: 'tcp://a:1', room: x}\n",
        "sources/serve.yaml:2: unknown key 'room' (one of name, address, area, fallback)",
    ),
    (
        "serve.yaml",
        "satellites:\n  - {name: k, address: 'tcp://a:1'}\n  - {name: K, address: 'tcp://b:1'}\n",
        "sources/serve.yaml:3: two satellites are named 'K'",
    ),
    (
        "serve.yaml",
        "satellites:\n  - {name: k, address: 'tcp://a:1', fallback: attic}\n",
        "sources/serve.yaml:2: fallback must name another satellite (k), not 'attic'",
    ),
    (
        "voice.yaml",
        "wyoming:\n  asr: 10.0.0.2:10300\n",
        "sources/voice.yaml:2: wyoming.asr must be tcp://HOST:PORT or unix:///path",
    ),
    (
        "voice.yaml",
        "wyoming:\n  wake_names: okay_nabu\n",
        "sources/voice.yaml:2: wyoming.wake_names must be a list of names",
    ),
    (
        "voice.yaml",
        "wyoming:\n  timeout_s: 0\n",
        "sources/voice.yaml:2: wyoming.timeout_s must be a number from 0.5 to 600",
    ),
]


@pytest.mark.parametrize(("name", "text", "error"), WRONG)
def test_check_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, error: str
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / name).write_text(text, encoding="utf-8")
    assert main(["--config", str(tmp_path), "check"]) == 2
    assert error in capsys.readouterr().err.replace(str(tmp_path) + "/", "")


def test_satellites_and_engines_read_as_written(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "serve.yaml").write_text(
        "satellites:\n"
        "  - {name: Kitchen, address: 'tcp://10.0.0.31:10700', area: Kitchen, fallback: living}\n"
        "  - {name: living, address: 'unix:///run/sat.sock'}\n",
        encoding="utf-8",
    )
    (tmp_path / "sources" / "voice.yaml").write_text(
        "wyoming:\n  asr: tcp://10.0.0.2:10300\n  tts_voice: en_US-lessac-medium\n  wake_names: [okay_nabu]\n",
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    kitchen, living = load_satellites(config)
    assert (kitchen.name, kitchen.url, kitchen.area, kitchen.fallback) == (
        "Kitchen",
        "tcp://10.0.0.31:10700",
        "kitchen",
        "living",
    )
    assert (living.address.path, living.area, living.fallback) == ("/run/sat.sock", None, None)
    remote = load_voice_settings(config).wyoming
    assert (remote.asr, remote.tts, remote.wake) == ("tcp://10.0.0.2:10300", None, None)
    assert (remote.tts_voice, remote.wake_names, remote.timeout_s) == (
        "en_US-lessac-medium",
        ("okay_nabu",),
        15.0,
    )
