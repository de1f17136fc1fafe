"""The second home (tests/data/second_home), written blind, holds together.

Like tests/test_big_home.py, these check the fixture, not the router: how well
the router does on it is `make gate`'s job (its third line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config, load_config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.evaluation.command import check_entities_known
from mnemolis.evaluation.datasets import read_datasets
from mnemolis.evaluation.discovered import home_registry
from tests.conftest import ROOT
from tests.test_big_home import frozen_held_out, held_out, loaded_home

SECOND_HOME = ROOT / "tests" / "data" / "second_home"
SENTENCES = sorted((SECOND_HOME / "sentences").glob("*.jsonl"))


@pytest.fixture(scope="module")
def home() -> tuple[Config, DeviceRegistry]:
    return loaded_home(SECOND_HOME)


def test_the_home_is_a_real_one(home: tuple[Config, DeviceRegistry]) -> None:
    config, registry = home
    devices = registry.devices()
    assert len(devices) >= 100
    assert len({d.room for d in devices if d.room}) >= 12
    assert len(config.floors) >= 3
    assert any(d.room is None for d in devices)  # entities without an area
    names = [d.name for d in devices]
    assert len(names) > len(set(names))  # clashing names ("Ceiling Fan" in two rooms)


def test_every_row_names_only_devices_of_the_home(home: tuple[Config, DeviceRegistry]) -> None:
    config, registry = home
    dataset = read_datasets([str(p) for p in SENTENCES], config, allow_undefined=True)
    assert len(dataset.rows) >= 450
    check_entities_known(dataset.rows, registry)


def rows_of(paths: list[Path]) -> list[dict[str, Any]]:
    """Every row of the files, with its file's name (as `held_out` reads them)."""
    return [
        {**json.loads(line), "_file": path.stem}
        for path in paths
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_the_held_out_fold_is_the_one_frozen_when_it_was_written() -> None:
    rows = rows_of(SENTENCES)
    assert held_out(rows) == frozen_held_out(SECOND_HOME)
    assert {r["fold"] for r in rows} == {1, 2, 3, 4, 5}


THIRD_HOME = ROOT / "tests" / "data" / "third_home"


def test_the_third_home_names_only_its_devices_and_keeps_its_held_out_fold() -> None:
    """The third home (written blind like the second; firmware names): every row names
    devices it has, and its held-out fold is the one frozen when it was written."""
    config = load_config(THIRD_HOME)
    registry, _ = home_registry(config, None)  # no discovery: every device is in its YAML
    paths = sorted((THIRD_HOME / "sentences").glob("*.jsonl"))
    dataset = read_datasets([str(p) for p in paths], config, allow_undefined=True)
    assert len(dataset.rows) >= 250 and len(registry.devices()) >= 60
    check_entities_known(dataset.rows, registry)
    assert held_out(rows_of(paths)) == frozen_held_out(THIRD_HOME)
