"""The big-home fixture (tests/data/big_home) holds what issue 12's acceptance asks of it.

These tests check the fixture and its sentence tables, not the router: how
well the router does on them is `make gate`'s and `bench/big_home.py`'s job.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemolis.config import Config, load_config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.evaluation.command import check_entities_known
from mnemolis.evaluation.datasets import read_datasets
from mnemolis.evaluation.discovered import home_registry
from tests.conftest import ROOT

BIG_HOME = ROOT / "tests" / "data" / "big_home"
SENTENCES = sorted((BIG_HOME / "sentences").glob("*.jsonl"))
MECHANISMS = {
    "names",
    "areas",
    "origin",
    "questions",
    "binary_sensors",
    "sensors",
    "values",
    "device_types",
    "ambiguity",
    "compound",
}


def loaded_home(folder: Path) -> tuple[Config, DeviceRegistry]:
    """A home's configuration and registry, its discovery read whole (nothing refused)."""
    config = load_config(folder)
    registry, loaded = home_registry(config, None)
    assert loaded is not None and not loaded.refused and not loaded.ignored
    return config, registry


@pytest.fixture(scope="module")
def home() -> tuple[Config, DeviceRegistry]:
    return loaded_home(BIG_HOME)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    out = []
    for path in SENTENCES:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            row["_file"] = path.stem
            out.append(row)
    return out


def _devices(home: tuple[Config, DeviceRegistry]) -> list[Device]:
    return home[1].devices()


def test_a_hundred_entities_in_ten_areas_on_three_floors(
    home: tuple[Config, DeviceRegistry],
) -> None:
    config, _ = home
    devices = _devices(home)
    assert len(devices) >= 100
    assert len({d.room for d in devices if d.room}) >= 10
    raw = yaml.safe_load((BIG_HOME / "sources" / "mqtt.yaml").read_text(encoding="utf-8"))
    floors = raw["floors"]
    assert len(floors) >= 3
    assert all(isinstance(f["level"], int) and f["name"] and "aliases" in f for f in floors)
    assert len({f["level"] for f in floors}) == len(floors)
    assert all(room.get("floor") in {f["name"] for f in floors} for room in raw["rooms"])
    assert set(config.floors) == {f["name"] for f in floors}


def test_the_clashes_of_the_issue_are_in_the_home(home: tuple[Config, DeviceRegistry]) -> None:
    devices = _devices(home)
    named = Counter(d.name for d in devices)
    light_sensor = [d for d in devices if d.name == "light"]
    assert [d.type for d in light_sensor] == ["binary_sensor"]
    assert {d.room for d in devices if d.name == "ceiling light"} == {"kitchen", "bedroom"}
    assert named["bulb"] == 1 and named["bulb enddevice"] == 1
    assert {d.room for d in devices if d.type == "fan"} >= {"living room", "kitchen"}
    assert any(d.room is None and d.type == "lock" for d in devices)
    assert any(d.room is None and d.device_class == "door" for d in devices)
    assert any(d.name == "garden" and d.room == "garden" for d in devices)
    discovered = [d for d in devices if d.origin != "yaml"]
    assert len(discovered) >= 40


def test_sensors_binary_sensors_and_device_types_of_many_kinds(
    home: tuple[Config, DeviceRegistry],
) -> None:
    devices = _devices(home)
    sensors = {d.device_class for d in devices if d.type == "sensor"}
    assert sensors >= {
        "temperature",
        "humidity",
        "atmospheric_pressure",
        "power",
        "energy",
        "battery",
        "illuminance",
        "carbon_dioxide",
        "pm25",
    }
    binary = {d.device_class for d in devices if d.type == "binary_sensor"}
    assert binary >= {
        "door",
        "window",
        "garage_door",
        "motion",
        "occupancy",
        "smoke",
        "gas",
        "carbon_monoxide",
        "moisture",
        "battery",
        "battery_charging",
        "light",
        "plug",
        "running",
        "sound",
    }
    types = {d.type for d in devices}
    assert types >= {
        "light",
        "switch",
        "fan",
        "lock",
        "cover",
        "climate",
        "vacuum",
        "scene",
        "button",
        "valve",
        "siren",
        "humidifier",
        "water_heater",
        "lawn_mower",
        "select",
        "number",
        "sensor",
        "binary_sensor",
    }


def test_every_discovery_line_says_where_it_came_from() -> None:
    lines = (BIG_HOME / "discovery.jsonl").read_text(encoding="utf-8").splitlines()
    sources = (BIG_HOME / "SOURCES.md").read_text(encoding="utf-8")
    for line in lines:
        message = json.loads(line)
        assert message["source"].startswith("https://"), message["topic"]
        assert f"`{message['topic']}`" in sources


def test_six_hundred_rows_read_and_name_only_devices_of_the_home(
    home: tuple[Config, DeviceRegistry],
) -> None:
    config, registry = home
    dataset = read_datasets([str(p) for p in SENTENCES], config, allow_undefined=True)
    assert len(dataset.rows) >= 600
    check_entities_known(dataset.rows, registry)
    assert all(r.entity_labelled for r in dataset.rows)


def test_every_mechanism_has_a_file_and_a_held_out_fifth(rows: list[dict[str, Any]]) -> None:
    assert {p.stem for p in SENTENCES} == MECHANISMS
    assert held_out(rows) == frozen_held_out(BIG_HOME)  # rows added since are folds 1-4
    for stem in MECHANISMS:
        folds = [r["fold"] for r in rows if r["_file"] == stem]
        assert set(folds) <= {1, 2, 3, 4, 5}, stem
        assert folds.count(5) >= 1, stem


def held_out(rows: list[dict[str, Any]]) -> list[str]:
    """The held-out rows, as `<file>\t<text>` lines, sorted."""
    return sorted(f"{r['_file']}\t{r['text']}" for r in rows if r["fold"] == 5)


def frozen_held_out(folder: Path) -> list[str]:
    """The held-out rows as they were frozen when the home's rows were first written."""
    lines = (folder / "held_out.tsv").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_rows_are_distinct_and_origin_rows_name_areas(
    home: tuple[Config, DeviceRegistry], rows: list[dict[str, Any]]
) -> None:
    config, _ = home
    keys = Counter((r["text"].lower(), r.get("room")) for r in rows)
    assert [k for k, n in keys.items() if n > 1] == []
    with_room = [r for r in rows if "room" in r]
    assert len(with_room) >= 40
    assert all(r["room"] in config.rooms for r in with_room)


def test_the_demo_gate_does_not_read_the_big_home() -> None:
    demo = {p.resolve() for p in (ROOT / "tests" / "data").glob("*.jsonl")}
    assert not demo & {p.resolve() for p in SENTENCES}
    assert all(isinstance(p, Path) and p.parent.name == "sentences" for p in SENTENCES)
