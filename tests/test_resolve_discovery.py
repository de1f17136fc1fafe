"""Discovered entities named as Home Assistant names them, and found by what people say.

The full name is the device's name then the entity's (``name: null`` is the
device's own name); the device's name, and an entity name of several words,
are aliases, so two entities called "ceiling light" are told apart by their
areas (``device.suggested_area``) or asked about. Floors come from
``floors:`` in sources/mqtt.yaml.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.config.home import load_home
from mnemolis.config.yaml_at import At, ConfigError
from mnemolis.core.devices import DeviceRegistry
from mnemolis.understand import Understander
from tests.support_discovery import announced
from tests.support_targets import home_config, only_part, option_ids, part_ids


def _light(device: dict[str, Any], name: Any = ..., unique: str = "x") -> dict[str, Any]:
    config: dict[str, Any] = {
        "command_topic": f"home/{unique}/set",
        "unique_id": unique,
        "device": {"identifiers": [unique], **device},
    }
    if name is not ...:
        config["name"] = name
    return config


def test_device_and_entity_names_are_aliases() -> None:
    device = announced(
        "light", _light({"name": "Kitchen Hub", "suggested_area": "Kitchen"}, "Ceiling Light")
    )
    assert device.name == "kitchen hub ceiling light"
    assert device.room == "kitchen"
    assert device.aliases == ["kitchen hub", "ceiling light"]


def test_a_null_name_is_the_device_and_one_word_is_no_alias() -> None:
    bulb = announced("light", _light({"name": "Bulb_EndDevice"}, None))
    assert bulb.name == "bulb enddevice" and bulb.aliases == []
    power = announced("light", _light({"name": "Desk"}, "Power"))
    assert power.name == "desk power" and power.aliases == ["desk"]


def test_an_area_name_is_never_an_alias() -> None:
    device = announced("light", _light({"name": "Kitchen"}, "Spots"))
    assert device.name == "kitchen spots" and device.aliases == []


@pytest.fixture(scope="module")
def discovered_home(config: Config) -> Understander:
    configs = [
        ("light", _light({"name": "Hub A", "suggested_area": "Kitchen"}, "Ceiling Light", "a")),
        ("light", _light({"name": "Hub B", "suggested_area": "Bedroom"}, "Ceiling Light", "b")),
        ("light", _light({"name": "Bulb"}, None, "bulb")),
        ("light", _light({"name": "Bulb_EndDevice"}, None, "end")),
    ]
    devices = [announced(component, c, c["unique_id"]) for component, c in configs]
    registry = DeviceRegistry(devices, rooms=["kitchen", "bedroom"])
    return Understander(home_config(config), registry)


@pytest.mark.parametrize(
    ("text", "room", "ids", "options"),
    [
        ("turn on the ceiling light in the kitchen", None, ["ha_a"], []),
        ("turn on the bedroom ceiling light", None, ["ha_b"], []),
        ("turn on the ceiling light", "bedroom", ["ha_b"], []),
        ("turn on the ceiling light", None, [], ["ha_a", "ha_b"]),
        ("turn on hub a ceiling light", None, ["ha_a"], []),
        ("turn on the bulb enddevice", None, ["ha_end"], []),
        ("turn on the bulb", None, ["ha_bulb"], []),
    ],
)
def test_discovered_names_resolve(
    discovered_home: Understander,
    text: str,
    room: str | None,
    ids: list[str],
    options: list[str],
) -> None:
    part = only_part(discovered_home.understand(text, room=room))
    assert part.intent == "device.turn_on", part.to_dict()
    assert part_ids(discovered_home.registry, part) == ids, part.to_dict()
    assert option_ids(discovered_home.registry, part) == options, part.to_dict()


def test_floors_from_yaml() -> None:
    home = load_home(
        {
            "rooms": [
                {"name": "Kitchen", "floor": "Ground Floor"},
                {"name": "Bedroom", "floor": "first floor"},
            ],
            "floors": [
                {"name": "Ground Floor", "level": 0, "aliases": ["downstairs hall"]},
                {"name": "first floor", "level": 1},
                {"name": "attic", "level": 2},
            ],
        },
        At(Path("mqtt.yaml")),
    )
    floors = {f.name: f for f in home.floor_specs}
    assert floors["ground floor"].level == 0
    assert floors["ground floor"].areas == ("kitchen",)
    assert floors["ground floor"].aliases == ("downstairs hall",)
    assert floors["first floor"].areas == ("bedroom",)
    assert floors["attic"].areas == () and floors["attic"].level == 2
    assert home.floors["first floor"] == ["bedroom"]


@pytest.mark.parametrize(
    ("floor", "message"),
    [
        ({"name": "attic", "level": "two"}, "level must be an integer"),
        ({"name": "attic", "height": 2}, "unknown key 'height'"),
        ({"level": 2}, "a floor must be a name"),
    ],
)
def test_a_wrong_floor_is_reported(floor: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_home({"floors": [floor]}, At(Path("mqtt.yaml")))


def test_a_floor_word_needs_levels(config: Config) -> None:
    """Without levels "upstairs" narrows to nothing: no device is guessed."""
    from mnemolis.core.devices import Device, Floor

    registry = DeviceRegistry(
        [Device("lamp", "light", "bedroom", id="lamp"), Device("spot", "light", "hall", id="s")]
    )
    registry.add_floor(Floor("top", None, (), ("bedroom",)))
    understander = Understander(dataclasses.replace(home_config(config)), registry)
    part = only_part(understander.understand("turn off the lights upstairs"))
    assert part_ids(registry, part) == [] and option_ids(registry, part) == []


def test_a_siblings_alias_never_takes_a_name() -> None:
    """The radiator is "bedroom radiator" (``name: null``); its sibling "bedroom
    radiator pi heating demand" answers to "bedroom radiator" only where no entity
    is called that: the label of each leads back to it alone."""
    radiator = announced("light", _light({"name": "Bedroom Radiator"}, None, "trv"))
    demand = announced("light", _light({"name": "Bedroom Radiator"}, "Heating Demand", "dem"))
    assert demand.aliases == ["bedroom radiator", "heating demand"]
    registry = DeviceRegistry([radiator, demand])
    assert [d.id for d in registry.named("bedroom radiator")] == ["ha_trv"]
    assert registry.label(radiator) == "bedroom radiator"
    assert registry.label(demand) == "bedroom radiator heating demand"
