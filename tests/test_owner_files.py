"""The install creates only the owner's own files (issue 26): `packaging/etc/mnemolis`
holds a commented `sources/mqtt.yaml` and `intents/en/mine.yaml`, never a copy of a
shipped file, so an upgrade still updates every shipped default under them; as
installed they change nothing, and their examples, written out, pass `mnemolis check`."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from mnemolis.cli.main import main
from mnemolis.config import load_config
from tests.conftest import ROOT

STARTER = ROOT / "packaging" / "etc" / "mnemolis"


def starter_files() -> list[Path]:
    return sorted(p for p in STARTER.rglob("*") if p.is_file())


def test_the_owner_starts_with_two_commented_files_and_no_shipped_copy() -> None:
    files = [p.relative_to(STARTER).as_posix() for p in starter_files()]
    assert files == ["intents/en/mine.yaml", "sources/mqtt.yaml"]
    for path in starter_files():
        assert yaml.safe_load(path.read_text(encoding="utf-8")) is None, f"{path}: not all comments"
    assert not (ROOT / "intents" / "en" / "mine.yaml").exists(), (
        "mine.yaml would replace a shipped file"
    )


def test_as_installed_they_leave_the_shipped_defaults_in_charge() -> None:
    config = load_config(STARTER)
    shipped = load_config(ROOT)
    assert config.devices == []  # the demo home is never inherited
    assert config.sources["mqtt"]["broker"] == shipped.sources["mqtt"]["broker"]
    assert set(config.intents) == set(shipped.intents)
    assert main(["--config", str(STARTER), "check"]) == 0


def test_their_examples_written_out_pass_check(tmp_path: Path) -> None:
    """Each file's examples (everything after its opening paragraph), uncommented."""
    owner = tmp_path / "mnemolis"
    shutil.copytree(STARTER, owner)
    for path in owner.rglob("*.yaml"):
        _header, _, examples = path.read_text(encoding="utf-8").partition("\n\n")
        lines = [line.removeprefix("# ") for line in examples.splitlines()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = load_config(owner)
    assert [d.name for d in config.devices] == ["kitchen light"]
    assert "routine.leaving" in config.intents
    assert main(["--config", str(owner), "check"]) == 0
