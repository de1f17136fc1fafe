"""Home Assistant's reading rules for discovery (abbreviations, ``~``, naming, availability,
wildcards, device-based removal, unique ids, refusals) and zigbee2mqtt exposes (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mnemolis.sources.mqtt.announced import Discovered
from mnemolis.sources.mqtt.discovery.abbreviations import ABBREVIATIONS, expand
from mnemolis.sources.mqtt.known import routes_for
from tests.support_discovery import ha, known_devices, parse


@pytest.mark.parametrize(
    ("short", "full"),
    [
        ("stat_t", "state_topic"),
        ("cmps", "components"),
        ("p", "platform"),
        ("o", "origin"),
        ("stat_jam", "state_jammed"),
        ("pct_cmd_tpl", "percentage_command_template"),
        ("pr_mode_val_tpl", "preset_mode_value_template"),
        ("clr_temp_k", "color_temp_kelvin"),
        ("dock_cmd_t", "dock_command_topic"),
        ("strt_mw_cmd_t", "start_mowing_command_topic"),
        ("curr_hum_t", "current_humidity_topic"),
        ("tilt_status_tpl", "tilt_status_template"),
        ("pos", "reports_position"),
        ("avty_mode", "availability_mode"),
        ("hum_state_tpl", "target_humidity_state_template"),
        ("def_ent_id", "default_entity_id"),
    ],
)
def test_abbreviations(short: str, full: str) -> None:
    assert ABBREVIATIONS[short] == full


def test_abbreviations_expand_at_every_level() -> None:
    config = expand(
        {
            "dev": {"ids": ["x"], "sa": "Kitchen", "mf": "Acme", "via_dev": "hub"},
            "o": {"name": "fw", "sw": "1.0", "url": "https://example.org"},
            "avty": [{"t": "a/status", "pl_avail": "up"}],
            "cmps": {"c1": {"p": "switch", "cmd_t": "a/set"}},
            "state_topic": "full",
            "stat_t": "abbreviated",  # the full key wins when both are given
        }
    )
    assert config["device"] == {
        "identifiers": ["x"],
        "suggested_area": "Kitchen",
        "manufacturer": "Acme",
        "via_device": "hub",
    }
    assert config["origin"] == {
        "name": "fw",
        "sw_version": "1.0",
        "support_url": "https://example.org",
    }
    assert config["availability"] == [{"topic": "a/status", "payload_available": "up"}]
    assert config["components"] == {"c1": {"platform": "switch", "command_topic": "a/set"}}
    assert config["state_topic"] == "full"


def test_tilde_at_either_end_and_in_availability() -> None:
    found = parse(
        "homeassistant/switch/tilde/config",
        {
            "~": "home/pump",
            "name": "Pump",
            "cmd_t": "~/set",
            "stat_t": "state/~",
            "avty": [{"t": "~/status"}],
        },
    )
    device = found.devices[0]
    assert device.topics["command"] == "home/pump/set"
    assert device.topics["state"] == "state/home/pump"
    assert device.topics["availability"] == "home/pump/status"


NAMES = [
    ({"name": None, "dev": {"name": "Porch Heater"}}, "switch", "porch heater"),
    ({"name": "Porch Heater", "dev": {"name": "Porch Heater"}}, "switch", "porch heater"),
    ({"name": "Left", "dev": {"name": "wall_switch_double"}}, "switch", "wall switch double left"),
    ({"name": "Kitchen Kettle", "dev": {"name": "Kitchen"}}, "switch", "kitchen kettle"),
    ({"dev": {"name": "Weather"}, "dev_cla": "humidity"}, "sensor", "weather humidity"),
    ({"dev": {"name": "Weather"}}, "switch", "weather thing"),
    ({}, "switch", "thing"),
    ({"name": "Büro Licht"}, "switch", "büro licht"),
]


@pytest.mark.parametrize(("fields", "component", "name"), NAMES)
def test_entity_names(fields: dict[str, Any], component: str, name: str) -> None:
    config = {"cmd_t": "n/set", "stat_t": "n/state", **fields}
    found = parse(f"homeassistant/{component}/thing/config", config)
    assert [d.name for d in found.devices] == [name]


def test_availability_modes_and_templates() -> None:
    config = {
        "name": "Socket",
        "cmd_t": "s/set",
        "avty_mode": "latest",
        "avty": [
            {"t": "s/lwt", "pl_avail": "Online", "pl_not_avail": "Offline"},
            {"t": "bridge/state", "val_tpl": "{{ value_json.state }}"},
        ],
    }
    device = parse("homeassistant/switch/socket/config", config).devices[0]
    assert device.extra["availability_mode"] == "latest"
    specs = device.extra["availability"]
    assert [s["topic"] for s in specs] == ["s/lwt", "bridge/state"]
    assert specs[0]["available"] == "Online" and specs[1]["template"] == "{{ value_json.state }}"
    bad = parse("homeassistant/switch/x/config", {**config, "avty_mode": "sometimes"})
    assert any("availability_mode" in p for p in bad.problems)


def test_wildcards_only_where_a_topic_is_read() -> None:
    gateway = {
        "name": "Garden Thermometer",
        "stat_t": "home/OpenMQTTGateway/BTtoMQTT/+",
        "val_tpl": "{{ value_json.tempc }}",
        "dev_cla": "temperature",
        "unit_of_meas": "°C",
    }
    device = parse("homeassistant/sensor/omg/config", gateway).devices[0]
    assert device.topics["state"] == "home/OpenMQTTGateway/BTtoMQTT/+"
    table = routes_for([device])
    assert [r.role for r in table.lookup("home/OpenMQTTGateway/BTtoMQTT/A4C138AABBCC")] == ["state"]
    assert table.lookup("home/OpenMQTTGateway/other/A4C1") == []
    for bad in (
        {"name": "x", "cmd_t": "a/+/set"},
        {"name": "x", "stat_t": "a/b+/c"},
        {"name": "x", "stat_t": "a/#/c"},
    ):
        assert parse("homeassistant/switch/w/config", bad).devices == []


def test_device_based_discovery_removes_one_component_and_keeps_the_others() -> None:
    config = {
        "dev": {"ids": ["0AFFD2"], "name": "Bedroom"},
        "o": {"name": "bla2mqtt"},
        "~": "sensorBedroom",
        "stat_t": "~/state",
        "cmps": {
            "t": {
                "p": "sensor",
                "dev_cla": "temperature",
                "val_tpl": "{{ value_json.t }}",
                "uniq_id": "temp01ae_t",
            },
            "h": {"p": "sensor"},
        },
    }
    found = parse("homeassistant/device/0AFFD2/config", config)
    assert [(d.name, d.topics["state"]) for d in found.devices] == [
        ("bedroom temperature", "sensorBedroom/state")
    ]


def test_disabled_and_unreachable_platforms_are_skipped() -> None:
    assert (
        parse(
            "homeassistant/sensor/lq/config", {"name": "Linkquality", "stat_t": "x", "en": False}
        ).devices
        == []
    )
    assert parse("homeassistant/event/btn/config", {"name": "Action", "stat_t": "x"}).devices == []


def test_a_unique_id_belongs_to_the_first_config() -> None:
    known, registry = known_devices()
    first = parse(
        "homeassistant/switch/a/config", {"name": "Pump", "cmd_t": "a/set", "uniq_id": "pump1"}
    )
    second = parse(
        "homeassistant/switch/b/config",
        {"name": "Other Pump", "cmd_t": "b/set", "uniq_id": "pump1"},
    )
    known.stage(first)
    known.stage(second)
    known.flush()
    active = [d.name for d in registry.devices() if d.refused is None]
    assert active == ["pump"]
    refusal = known.refusal_for("other pump")
    assert refusal is not None and "already used by homeassistant/switch/a/config" in refusal.reason


def test_a_refused_config_is_known_by_name_until_it_is_fixed() -> None:
    known, registry = known_devices()
    topic = "homeassistant/switch/pump/config"
    known.stage(parse(topic, {"name": "Garden Pump", "cmd_t": "garden/+/set"}))
    known.flush()
    stand_in = registry.by_name("garden pump")
    assert stand_in is not None and stand_in.refused is not None and "wildcard" in stand_in.refused
    assert not stand_in.can("turn_on")
    known.stage(parse(topic, {"name": "Garden Pump", "cmd_t": "garden/pump/set"}))
    known.flush()
    fixed = registry.by_name("garden pump")
    assert fixed is not None and fixed.refused is None and known.refusals() == []
    known.stage(Discovered(topic))  # an empty retained config: gone
    known.flush()
    assert registry.by_name("garden pump") is None


def test_a_device_named_once_names_every_config_that_shares_its_identifiers() -> None:
    """Home Assistant's device registry: a config with only the device's identifiers gets
    the name another config gave it, whichever came first."""
    parser = ha()
    humidity = {"dev_cla": "humidity", "stat_t": "bed/state", "dev": {"ids": ["bed01"]}}
    first = parser.parse("homeassistant/sensor/bedH/config", json.dumps(humidity).encode())
    assert [d.name for d in first.devices] == ["bedh"]
    named = {
        "dev_cla": "temperature",
        "stat_t": "bed/state",
        "dev": {"ids": "bed01", "name": "Bed"},
    }
    found = parser.parse("homeassistant/sensor/bedT/config", json.dumps(named).encode())
    assert [d.name for d in found.devices] == ["bed temperature"]
    assert [(a.key, [d.name for d in a.devices]) for a in found.also] == [
        ("homeassistant/sensor/bedH/config", ["bed humidity"])
    ]
    later = parser.parse("homeassistant/sensor/bedH/config", json.dumps(humidity).encode())
    assert [d.name for d in later.devices] == ["bed humidity"]
