"""Home Assistant discovery and zigbee2mqtt bridge/devices -> Devices (pure, no broker)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.sources.mqtt.announced import check_topic
from tests.support_discovery import ha, parse

# ------------------------------------------------------------------------ one table per component

HA_CASES = [
    pytest.param(
        "homeassistant/light/study/desk_lamp/config",
        {
            "~": "study/desk_lamp",
            "name": "Desk Lamp",
            "uniq_id": "desk_lamp_01",
            "stat_t": "~/state",
            "cmd_t": "~/set",
            "bri_stat_t": "~/brightness",
            "bri_cmd_t": "~/brightness/set",
            "rgb_stat_t": "~/rgb",
            "rgb_cmd_t": "~/rgb/set",
            "pl_on": "1",
            "pl_off": "0",
            "dev": {"ids": ["lamp01"], "sa": "Study"},
        },
        {
            "name": "desk lamp",
            "type": "light",
            "room": "study",
            "id": "ha_desk_lamp_01",
            "schema": "default",
            "features": ["brightness", "color"],
            "topics": {
                "state": "study/desk_lamp/state",
                "command": "study/desk_lamp/set",
                "brightness_state": "study/desk_lamp/brightness",
                "brightness_command": "study/desk_lamp/brightness/set",
                "rgb_state": "study/desk_lamp/rgb",
                "rgb_command": "study/desk_lamp/rgb/set",
            },
            "config": {"payload_on": "1", "payload_off": "0", "schema": "default"},
        },
        id="light-default-node-id-tilde",
    ),
    pytest.param(
        "homeassistant/light/attic_bulb/config",
        {
            "schema": "json",
            "name": "Attic Bulb",
            "stat_t": "attic/bulb",
            "cmd_t": "attic/bulb/set",
            "sup_clrm": ["xy", "color_temp"],
            "bri_scl": 100,
        },
        {
            "name": "attic bulb",
            "type": "light",
            "schema": "json",
            "id": "ha_light_attic_bulb",
            "features": ["brightness", "color", "color_temp"],
            "config": {"brightness_scale": 100, "schema": "json"},
            "extra": {"color_modes": ["xy", "color_temp"]},
        },
        id="light-json",
    ),
    pytest.param(
        "homeassistant/switch/kettle/config",
        {
            "name": "Kettle",
            "cmd_t": "kitchen/kettle/set",
            "stat_t": "kitchen/kettle",
            "pl_on": "on",
            "pl_off": "off",
            "dev": {"name": "Kitchen Kettle"},
        },
        {
            "name": "kitchen kettle",
            "type": "switch",
            "room": "kitchen",
            "config": {
                "payload_on": "on",
                "payload_off": "off",
                "state_on": "on",
                "state_off": "off",
            },
        },
        id="switch-device-name-prefix-room-from-name",
    ),
    pytest.param(
        "homeassistant/lock/shed/config",
        {
            "name": "Shed Lock",
            "stat_t": "shed/lock",
            "cmd_t": "shed/lock/set",
            "val_tpl": "{{ value_json.state }}",
            "cmd_tpl": '{"state": "{{ value }}"}',
            "pl_lock": "LOCK",
            "stat_locked": "LOCKED",
            "stat_jam": "JAMMED",
        },
        {
            "name": "shed lock",
            "type": "lock",
            "config": {
                "payload_lock": "LOCK",
                "state_locked": "LOCKED",
                "state_jammed": "JAMMED",
                "value_template": "{{ value_json.state }}",
                "command_template": '{"state": "{{ value }}"}',
            },
        },
        id="lock-templates",
    ),
    pytest.param(
        "homeassistant/cover/garage/config",
        {
            "name": "Garage",
            "dev_cla": "garage",
            "cmd_t": "garage/door/set",
            "stat_t": "garage/door",
            "pos_t": "garage/door/position",
            "set_pos_t": "garage/door/position/set",
            "set_pos_tpl": "{{ position }}",
            "pl_stop": None,
            "stat_clsd": "shut",
        },
        {
            "name": "garage",
            "type": "cover",
            "device_class": "garage",
            "topics": {
                "command": "garage/door/set",
                "state": "garage/door",
                "position": "garage/door/position",
                "set_position": "garage/door/position/set",
            },
            "config": {
                "payload_stop": None,
                "state_closed": "shut",
                "set_position_template": "{{ position }}",
            },
            "features": ["position"],
        },
        id="cover-garage-position-template",
    ),
    pytest.param(
        "homeassistant/climate/hall_trv/config",
        {
            "name": "Hall Radiator",
            "temp_cmd_t": "hall/trv/target/set",
            "temp_stat_t": "hall/trv/target",
            "curr_temp_t": "hall/trv/temperature",
            "mode_cmd_t": "hall/trv/mode/set",
            "mode_stat_t": "hall/trv/mode",
            "modes": ["off", "heat"],
            "temp_unit": "C",
        },
        {
            "name": "hall radiator",
            "type": "climate",
            "unit": "°C",
            "topics": {
                "temperature_command": "hall/trv/target/set",
                "temperature_state": "hall/trv/target",
                "current_temperature": "hall/trv/temperature",
                "mode_command": "hall/trv/mode/set",
                "mode_state": "hall/trv/mode",
            },
            "extra": {"modes": ["off", "heat"]},
        },
        id="climate",
    ),
    pytest.param(
        "homeassistant/fan/bathroom_fan/config",
        {"name": "Bathroom Fan", "cmd_t": "bath/fan/set", "stat_t": "bath/fan", "pct_cmd_t": "x/p"},
        {
            "name": "bathroom fan",
            "type": "fan",
            "topics": {"command": "bath/fan/set", "state": "bath/fan"},
        },
        id="fan",
    ),
    pytest.param(
        "homeassistant/vacuum/robo/config",
        {
            "schema": "state",
            "name": "Robo",
            "stat_t": "robo/state",
            "cmd_t": "robo/command",
            "pl_strt": "go",
            "pl_ret": "dock",
            "sup_feat": ["start", "stop", "return_home"],
        },
        {
            "name": "robo",
            "type": "vacuum",
            "config": {"payload_start": "go", "payload_return_to_base": "dock"},
            "features": ["start", "stop", "return_home"],
        },
        id="vacuum-state-schema",
    ),
    pytest.param(
        "homeassistant/sensor/cellar_env/temperature/config",
        {
            "name": "Cellar Temperature",
            "stat_t": "cellar/env",
            "val_tpl": "{{ value_json.temperature | float }}",
            "unit_of_meas": "°C",
            "dev_cla": "temperature",
        },
        {
            "name": "cellar temperature",
            "type": "sensor",
            "unit": "°C",
            "device_class": "temperature",
            "config": {"value_template": "{{ value_json.temperature | float }}"},
            "extra": {"state_roles": ["state"]},
        },
        id="sensor-value-template",
    ),
    pytest.param(
        "homeassistant/binary_sensor/porch_motion/config",
        {
            "name": "Porch Motion",
            "stat_t": "porch/motion",
            "pl_on": "detected",
            "pl_off": "clear",
            "dev_cla": "motion",
            "avty": [{"t": "porch/status", "pl_avail": "up", "pl_not_avail": "down"}],
            "avty_mode": "any",
        },
        {
            "name": "porch motion",
            "type": "binary_sensor",
            "room": "porch",
            "payloads": {"state_on": "detected", "state_off": "clear"},
            "topics": {"state": "porch/motion", "availability": "porch/status"},
            "extra": {
                "availability": [
                    {
                        "topic": "porch/status",
                        "available": "up",
                        "not_available": "down",
                        "template": None,
                    }
                ],
                "availability_mode": "any",
            },
        },
        id="binary-sensor-availability-list",
    ),
]


@pytest.mark.parametrize(("topic", "config", "expected"), HA_CASES)
def test_homeassistant_component(
    topic: str, config: dict[str, Any], expected: dict[str, Any]
) -> None:
    found = parse(topic, config)
    assert found.problems == []
    assert len(found.devices) == 1
    device = found.devices[0]
    assert device.origin == "homeassistant"
    for field, value in expected.items():
        actual = getattr(device, field)
        if isinstance(value, dict):
            for key, item in value.items():
                assert actual.get(key) == item, (field, key)
        else:
            assert actual == value, field


def test_device_based_discovery_shares_options_and_skips_removed_components() -> None:
    config = {
        "dev": {"ids": "multi01", "name": "Study Sensor", "sa": "Study"},
        "o": {"name": "firmware"},
        "stat_t": "study/sensor",
        "cmps": {
            "temp": {
                "p": "sensor",
                "name": "Temperature",
                "dev_cla": "temperature",
                "unit_of_meas": "°C",
                "val_tpl": "{{ value_json.temperature }}",
                "uniq_id": "multi01_t",
            },
            "hum": {
                "p": "sensor",
                "name": "Humidity",
                "dev_cla": "humidity",
                "unit_of_meas": "%",
                "val_tpl": "{{ value_json['humidity'] }}",
                "uniq_id": "multi01_h",
            },
            "reboot": {"p": "button", "cmd_t": "study/sensor/reboot"},
            "old": {"p": "sensor"},
        },
    }
    found = parse("homeassistant/device/multi01/config", config)
    assert found.problems == []
    by_name = {d.name: d for d in found.devices}
    assert set(by_name) == {
        "study sensor temperature",
        "study sensor humidity",
        "study sensor reboot",
    }
    assert by_name["study sensor reboot"].type == "button"
    humidity = by_name["study sensor humidity"]
    assert humidity.topics["state"] == "study/sensor"
    assert humidity.room == "study"
    assert humidity.config["value_template"] == "{{ value_json['humidity'] }}"
    assert humidity.id == "ha_multi01_h"


def test_empty_payload_removes_and_has_no_problem() -> None:
    found = ha().parse("homeassistant/light/attic_bulb/config", b"")
    assert found.devices == [] and found.problems == []


def test_unnamed_entity_takes_the_device_name_and_unknown_components_are_ignored() -> None:
    named = parse(
        "homeassistant/switch/x1/config",
        {"name": None, "cmd_t": "x1/set", "dev": {"name": "Porch Heater"}},
    )
    assert [d.name for d in named.devices] == ["porch heater"]
    assert named.devices[0].room == "porch"
    update = parse("homeassistant/update/x2/config", {"name": "Firmware", "stat_t": "x2/v"})
    assert update.devices == [] and update.problems == []


MALFORMED = [
    pytest.param("homeassistant/switch/a/config", b'{"name":', "not JSON", id="truncated"),
    pytest.param("homeassistant/switch/a/config", b"\xff\xfe", "not JSON", id="not-utf8"),
    pytest.param("homeassistant/switch/a/config", [1, 2], "JSON object", id="a-list"),
    pytest.param(
        "homeassistant/switch/a/config", {"name": "a", "cmd_t": "a/+/set"}, "wildcard", id="plus"
    ),
    pytest.param(
        "homeassistant/switch/a/config", {"name": "a", "cmd_t": "a/#"}, "wildcard", id="hash"
    ),
    pytest.param(
        "homeassistant/switch/a/config", {"name": "a", "cmd_t": "a" * 300}, "longer than", id="long"
    ),
    pytest.param(
        "homeassistant/switch/a/config",
        {"name": "a", "cmd_t": "$SYS/x"},
        "reserved",
        id="sys-topic",
    ),
    pytest.param(
        "homeassistant/switch/a/config", {"name": "a", "cmd_t": "a\u0001b"}, "control", id="control"
    ),
    pytest.param(
        "homeassistant/sensor/a/config",
        {"name": "a", "stat_t": "a", "val_tpl": "{{ states('sensor.outside') }}"},
        "needs Home Assistant's own states",
        id="jinja-needs-state-machine",
    ),
    pytest.param(
        "homeassistant/light/a/config",
        {"schema": "template", "name": "a", "cmd_t": "a/set"},
        "needs a command_on_template",
        id="template-light-without-templates",
    ),
    pytest.param(
        "homeassistant/light/a/config",
        {"schema": "xyz", "name": "a", "cmd_t": "a/set"},
        "not one of default, json, template",
        id="unknown-light-schema",
    ),
    pytest.param(
        "homeassistant/switch/a/config", {"name": 5, "cmd_t": "a"}, "name must be text", id="name"
    ),
    pytest.param(
        "homeassistant/switch/a/config", {"name": "a"}, "needs a command_topic", id="no-topics"
    ),
    pytest.param(
        "homeassistant/sensor/a/config", {"name": "a"}, "needs a state_topic", id="sensor"
    ),
    pytest.param(
        "homeassistant/switch/a/config",
        {"name": "a", "cmd_t": "a", "avty": "a/status"},
        "availability must be a list",
        id="availability",
    ),
    pytest.param(
        "homeassistant/switch/a/config",
        {"name": "a", "cmd_t": "a", "pl_on": {"x": 1}},
        "plain value",
        id="payload-object",
    ),
    pytest.param(
        "homeassistant/device/d/config", {"dev": {"name": "d"}}, "components", id="no-cmps"
    ),
    pytest.param("homeassistant/light/a.b/config", {"name": "a"}, "not a discovery", id="bad-id"),
]


@pytest.mark.parametrize(("topic", "config", "problem"), MALFORMED)
def test_malformed_config_gives_a_problem_not_a_device(
    topic: str, config: Any, problem: str
) -> None:
    found = parse(topic, config)
    assert found.devices == []
    assert any(problem in p for p in found.problems), found.problems
    if found.refused:  # what `mnemolis devices` lists
        assert problem in found.refused[0].reason and found.refused[0].key == topic


@pytest.mark.parametrize(
    ("topic", "ok"),
    [("home/light", True), ("a" * 256, True), ("a" * 257, False), ("", False), ("a/+", False)],
)
def test_check_topic_bounds(topic: str, ok: bool) -> None:
    if ok:
        assert check_topic(topic, 256) == topic
    else:
        with pytest.raises(ValueError):
            check_topic(topic, 256)
