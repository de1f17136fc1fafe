"""Binary sensors and sensors found by device class, area and the words of names.

"is CO detected", "is anyone in the kitchen", "the humidity in the bedroom",
"what is the car mileage distance": the words of `intents/en/device_classes.yaml`
name a class; the area and the other words of the request narrow it. A class
with no entity in the area asked about never falls back to another device.
And the class file is checked like every other: errors name file and line.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config, ConfigError, load_config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.conftest import ROOT
from tests.support_questions import entity_ids, question_understander

Row = tuple[str, str, set[str], dict[str, Any]]

BINARY: list[Row] = [
    ("is CO detected", "device.state", {"binary_sensor.hallway_co"}, {"state": "on"}),
    (
        "is carbon monoxide detected in the hallway",
        "device.state",
        {"binary_sensor.hallway_co"},
        {"state": "on"},
    ),
    (
        "is smoke detected in the kitchen",
        "device.state",
        {"binary_sensor.kitchen_smoke"},
        {"state": "on"},
    ),
    (
        "is the smoke alarm going off",
        "device.state",
        {"binary_sensor.kitchen_smoke"},
        {"state": "on"},
    ),
    ("is the phone battery low", "device.state", {"binary_sensor.phone_battery"}, {"state": "on"}),
    (
        "is there a leak",
        "sensor.read",
        {"binary_sensor.bathroom_leak", "binary_sensor.washer_leak"},
        {},
    ),
    ("is there a leak in the bathroom", "sensor.read", {"binary_sensor.bathroom_leak"}, {}),
    ("is the bathroom floor wet", "device.state", {"binary_sensor.bathroom_leak"}, {"state": "on"}),
    ("is anyone in the kitchen", "sensor.read", {"binary_sensor.kitchen_occupancy"}, {}),
    (
        "is occupancy detected in the kitchen",
        "device.state",
        {"binary_sensor.kitchen_occupancy"},
        {"state": "on"},
    ),
    ("is there motion in the hallway", "sensor.read", {"binary_sensor.hallway_motion"}, {}),
    # a question naming a device asks it, whatever a declined domain's word says ("post")
    ("is there post in the mailbox", "sensor.read", {"binary_sensor.mailbox"}, {}),
    ("any movement in the hallway", "sensor.read", {"binary_sensor.hallway_motion"}, {}),
    ("is the internet connected", "device.state", {"binary_sensor.internet"}, {"state": "on"}),
    (
        "is the washing machine running",
        "device.state",
        {"binary_sensor.washer_running"},
        {"state": "on"},
    ),
    (
        "is a firmware update available",
        "device.state",
        {"binary_sensor.hub_update"},
        {"state": "on"},
    ),
    ("is the server cupboard hot", "device.state", {"binary_sensor.server_heat"}, {"state": "on"}),
    (
        "is the kitchen window open",
        "device.state",
        {"binary_sensor.kitchen_window"},
        {"state": "open"},
    ),
    (
        "is the kitchen window closed",
        "device.state",
        {"binary_sensor.kitchen_window"},
        {"state": "closed"},
    ),
]

SENSORS: list[Row] = [
    ("what's the humidity in the bedroom", "sensor.read", {"sensor.bedroom_humidity"}, {}),
    ("how humid is the bathroom", "sensor.read", {"sensor.bathroom_humidity"}, {}),
    ("what is the temperature in the bedroom", "sensor.read", {"sensor.bedroom_temperature"}, {}),
    ("how warm is it in the living room", "sensor.read", {"sensor.living_room_temperature"}, {}),
    ("what is the outdoor temperature", "sensor.read", {"sensor.outdoor_temperature"}, {}),
    ("what is the car mileage distance?", "sensor.read", {"sensor.car_mileage"}, {}),
    ("what does the dishwasher power read", "sensor.read", {"sensor.dishwasher_power"}, {}),
    ("how much power is the dishwasher using", "sensor.read", {"sensor.dishwasher_power"}, {}),
    ("what is the co2 in the office", "sensor.read", {"sensor.office_co2"}, {}),
    ("what's the air quality in the office", "sensor.read", {"sensor.office_co2"}, {}),
    (
        "what is the particulate matter in the living room",
        "sensor.read",
        {"sensor.living_room_pm25"},
        {},
    ),
    ("how much energy has the house used", "sensor.read", {"sensor.house_energy"}, {}),
    ("what is the air pressure", "sensor.read", {"sensor.outdoor_pressure"}, {}),
    ("how bright is it in the garden", "sensor.read", {"sensor.garden_illuminance"}, {}),
    ("what is the phone battery level", "sensor.read", {"sensor.phone_battery_level"}, {}),
    ("how much charge does the phone have", "sensor.read", {"sensor.phone_battery_level"}, {}),
]

# a class asked about in an area that has none of it: no device, never another one
NONE_THERE = [
    "what is the temperature in the garage",
    "what's the humidity in the kitchen",
    "is there a leak in the kitchen",
    "is occupancy detected in the bedroom",
]


@pytest.fixture(scope="module")
def home(config: Config) -> tuple[Understander, DeviceRegistry]:
    return question_understander(config)


def _check(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    understander, registry = home
    text, intent, devices, values = row
    (part,) = understander.understand(text).parts()
    assert part.intent == intent, (text, part.intent, part.provenance)
    assert entity_ids(registry, part.slots.get("device")) == devices, (text, part.slots)
    for name, value in values.items():
        assert part.slots.get(name) == value, (text, name, part.slots)


@pytest.mark.parametrize("row", BINARY, ids=[r[0] for r in BINARY])
def test_binary_sensors_by_class(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    _check(home, row)


@pytest.mark.parametrize("row", SENSORS, ids=[r[0] for r in SENSORS])
def test_sensors_by_class_and_unit(home: tuple[Understander, DeviceRegistry], row: Row) -> None:
    _check(home, row)


@pytest.mark.parametrize("text", NONE_THERE)
def test_a_class_missing_in_the_area_picks_no_other_device(
    home: tuple[Understander, DeviceRegistry], text: str
) -> None:
    understander, _ = home
    for part in understander.understand(text).parts():
        if part.source == "mqtt":
            assert "device" not in part.slots, (text, part.slots)
            assert not part.provenance.get("options"), (text, part.provenance)


def test_a_sensor_without_a_class_is_found_by_its_unit(config: Config) -> None:
    understander, registry = question_understander(config)
    device = registry.get("sensor.bathroom_humidity")
    assert device is not None
    device.device_class = None  # announced with a unit only
    registry.upsert(device)
    (part,) = understander.understand("how humid is the bathroom").parts()
    assert entity_ids(registry, part.slots.get("device")) == {"sensor.bathroom_humidity"}


NAMED_READINGS = [
    # a sensor named with words that are no device word, owned with "'s" (issue 24)
    ("what is the modem's upload rate", {"sensor.modem_upload"}),
    ("what is the modem download rate", {"sensor.modem_download"}),
    ("how much is the modem's download rate", {"sensor.modem_download"}),
]


@pytest.mark.parametrize(("text", "ids"), NAMED_READINGS)
def test_a_named_sensor_is_read_by_its_name(config: Config, text: str, ids: set[str]) -> None:
    understander, registry = question_understander(config)
    for name in ("upload", "download"):
        registry.upsert(
            Device(
                name=f"modem {name} rate",
                type="sensor",
                id=f"sensor.modem_{name}",
                room="office",
                device_class="data_rate",
                unit="Mbit/s",
            )
        )
    (part,) = understander.understand(text).parts()
    assert part.intent == "sensor.read"
    assert entity_ids(registry, part.slots.get("device")) == ids


# ----------------------------------------------------------------------------- the YAML


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "intents", tmp_path / "intents")
    shutil.copytree(ROOT / "sources", tmp_path / "sources")
    return tmp_path


BROKEN = [
    ("    cold:\n      words:", "    cold:\n      wordz:", "unknown key 'wordz'"),
    ("  intent: sensor.read\n", "  intent: sensor.reed\n", "no intent 'sensor.reed'"),
    ("  sensor:\n    temperature:", "  sensors:\n    temperature:", "unknown key 'sensors'"),
    (
        "      phrases: [fault]",
        "      phrases: [fault, glitch]",
        "phrases must also be words (glitch)",
    ),
]


@pytest.mark.parametrize(("old", "new", "reason"), BROKEN, ids=[b[2] for b in BROKEN])
def test_a_broken_class_file_names_file_line_and_reason(
    config_dir: Path, old: str, new: str, reason: str
) -> None:
    path = config_dir / "intents/en/device_classes.yaml"
    text = path.read_text()
    assert old in text, "the fixture no longer matches the shipped file"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as caught:
        load_config(config_dir)
    err = caught.value
    assert err.path.endswith("device_classes.yaml")
    assert reason in err.reason
    assert err.line is not None
    assert err.line >= text[: text.index(old)].count("\n") + 1


def test_the_class_words_are_read(config: Config) -> None:
    classes = {(c.domain, c.name): c for c in config.device_classes.classes}
    assert "co" in classes[("binary_sensor", "carbon_monoxide")].words
    assert ("sensor", "humidity") in classes
    assert {p.text for p in config.intents["sensor.read"].phrases} >= {"humidity", "leak"}
