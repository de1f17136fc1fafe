"""Home Assistant discovery and zigbee2mqtt bridge/devices -> Devices (pure, no broker)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mnemolis.sources.mqtt.discovery.common import check_topic
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.discovery.zigbee2mqtt import Zigbee2MqttParser

ROOMS = ("kitchen", "study", "porch", "living room")
SENSORS = ("temperature", "humidity", "pressure")
BINARIES = {"occupancy": "motion", "contact": "door"}


def ha() -> HomeAssistantParser:
    return HomeAssistantParser("homeassistant", 256, lambda: ROOMS)


def z2m() -> Zigbee2MqttParser:
    return Zigbee2MqttParser("zigbee2mqtt", 256, lambda: ROOMS, SENSORS, BINARIES)


def parse(topic: str, config: Any) -> Any:
    payload = config if isinstance(config, bytes) else json.dumps(config).encode()
    return ha().parse(topic, payload)


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


# ------------------------------------------------------------------------------------ zigbee2mqtt


def binary(name: str, prop: str, on: Any = "ON", off: Any = "OFF") -> dict[str, Any]:
    return {"type": "binary", "name": name, "property": prop, "value_on": on, "value_off": off}


def numeric(name: str, **more: Any) -> dict[str, Any]:
    return {"type": "numeric", "name": name, "property": name, **more}


def entry(friendly: str, ieee: str, exposes: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "ieee_address": ieee,
        "type": "Router",
        "friendly_name": friendly,
        "supported": True,
        "disabled": False,
        "definition": {"model": "M", "vendor": "V", "exposes": exposes},
        **more,
    }


BRIDGE = [
    {
        "ieee_address": "0x00",
        "type": "Coordinator",
        "friendly_name": "Coordinator",
        "definition": None,
    },
    entry(
        "kitchen/ceiling light",
        "0x01",
        [
            {
                "type": "light",
                "features": [
                    binary("state", "state"),
                    numeric("brightness", value_max=254),
                    {"type": "composite", "name": "color_xy", "property": "color", "features": []},
                    numeric("color_temp"),
                ],
            },
            numeric("linkquality"),
        ],
    ),
    entry("plug_tv", "0x02", [{"type": "switch", "features": [binary("state", "state")]}]),
    entry(
        "shed lock",
        "0x03",
        [
            {
                "type": "lock",
                "features": [
                    binary("state", "state", "LOCK", "UNLOCK"),
                    {"type": "enum", "name": "lock_state", "property": "lock_state", "values": []},
                ],
            }
        ],
    ),
    entry(
        "study blind",
        "0x04",
        [
            {
                "type": "cover",
                "features": [
                    {
                        "type": "enum",
                        "name": "state",
                        "property": "state",
                        "values": ["OPEN", "CLOSE"],
                    },
                    numeric("position"),
                ],
            }
        ],
    ),
    entry(
        "hall trv",
        "0x05",
        [
            {
                "type": "climate",
                "features": [
                    numeric("current_heating_setpoint"),
                    numeric("local_temperature"),
                    {
                        "type": "enum",
                        "name": "system_mode",
                        "property": "system_mode",
                        "values": ["off", "heat"],
                    },
                ],
            }
        ],
    ),
    entry(
        "porch climate",
        "0x06",
        [
            numeric("temperature", unit="°C"),
            numeric("humidity", unit="%"),
            numeric("battery"),
            numeric("linkquality"),
        ],
    ),
    entry("porch pir", "0x07", [binary("occupancy", "occupancy", True, False), numeric("battery")]),
    entry("back door contact", "0x08", [binary("contact", "contact", False, True)]),
    entry(
        "double switch",
        "0x09",
        [
            {"type": "switch", "endpoint": "l1", "features": [binary("state", "state_l1")]},
            {"type": "switch", "endpoint": "l2", "features": [binary("state", "state_l2")]},
        ],
    ),
    {**entry("unsupported thing", "0x10", []), "definition": None},
    entry(
        "disabled lamp",
        "0x11",
        [{"type": "light", "features": [binary("state", "state")]}],
        disabled=True,
    ),
    entry("bad+name", "0x12", [{"type": "switch", "features": [binary("state", "state")]}]),
]


def test_zigbee2mqtt_bridge_devices() -> None:
    found = z2m().parse(json.dumps(BRIDGE).encode())
    assert any("bad+name" in p and "wildcard" in p for p in found.problems)
    by_name = {d.name: d for d in found.devices}
    assert set(by_name) == {
        "kitchen ceiling light",
        "plug tv",
        "shed lock",
        "study blind",
        "hall trv",
        "porch climate temperature",
        "porch climate humidity",
        "porch pir",
        "back door contact",
        "double switch l1",
        "double switch l2",
    }
    light = by_name["kitchen ceiling light"]
    assert light.room == "kitchen" and light.type == "light" and light.schema == "json"
    assert light.topics["state"] == "zigbee2mqtt/kitchen/ceiling light"
    assert light.topics["command"] == "zigbee2mqtt/kitchen/ceiling light/set"
    assert light.topics["availability"] == "zigbee2mqtt/kitchen/ceiling light/availability"
    assert light.features == ["brightness", "color", "color_temp"]
    assert light.payloads["brightness_scale"] == 254
    assert light.extra["color_modes"] == ["xy", "color_temp"]
    lock = by_name["shed lock"]
    assert lock.payloads["lock"] == "LOCK" and lock.payloads["keys"]["lock_state"] == "lock_state"
    blind = by_name["study blind"]
    assert blind.payloads["stop"] is None and blind.payloads["keys"]["position"] == "position"
    trv = by_name["hall trv"]
    assert trv.payloads["keys"]["target_temperature"] == "current_heating_setpoint"
    assert trv.payloads["keys"]["mode"] == "system_mode" and trv.extra["modes"] == ["off", "heat"]
    temperature = by_name["porch climate temperature"]
    assert temperature.type == "sensor" and temperature.unit == "°C" and temperature.room == "porch"
    assert "command" not in temperature.topics
    pir = by_name["porch pir"]
    assert pir.type == "binary_sensor" and pir.device_class == "motion"
    contact = by_name["back door contact"]
    assert contact.payloads["state_on"] is False and contact.device_class == "door"
    assert by_name["double switch l2"].payloads["keys"]["state"] == "state_l2"
    assert len({d.id for d in found.devices}) == len(found.devices)


@pytest.mark.parametrize(
    ("payload", "problem"),
    [(b"{", "not JSON"), (b'{"a": 1}', "JSON list"), (b"[1]", "not an object")],
)
def test_zigbee2mqtt_malformed_bridge(payload: bytes, problem: str) -> None:
    found = z2m().parse(payload)
    assert found.devices == []
    assert any(problem in p for p in found.problems)


def test_zigbee2mqtt_device_limit() -> None:
    many = [
        entry(
            f"plug {i}", f"0x{i:04x}", [{"type": "switch", "features": [binary("state", "state")]}]
        )
        for i in range(30)
    ]
    found = z2m().parse(json.dumps(many).encode(), limit=10)
    assert len(found.devices) == 10
    assert any("more than 10" in p for p in found.problems)


# ------------------------------------------------------------------ Home Assistant's reading rules

from mnemolis.devices import DeviceRegistry  # noqa: E402
from mnemolis.sources.mqtt.discovery.abbreviations import ABBREVIATIONS, expand  # noqa: E402
from mnemolis.sources.mqtt.discovery.common import Discovered  # noqa: E402
from mnemolis.sources.mqtt.known import KnownDevices, routes_for  # noqa: E402


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


def _known() -> tuple[KnownDevices, DeviceRegistry]:
    registry = DeviceRegistry()
    return KnownDevices(registry, [], 100), registry


def test_a_unique_id_belongs_to_the_first_config() -> None:
    known, registry = _known()
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
    known, registry = _known()
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


def test_one_zigbee_device_announced_twice_is_kept_once() -> None:
    known, registry = _known()
    ha_light = parse(
        "homeassistant/light/0x01/light/config",
        {
            "schema": "json",
            "name": None,
            "cmd_t": "zigbee2mqtt/lamp/set",
            "stat_t": "zigbee2mqtt/lamp",
            "dev": {"name": "lamp"},
        },
    )
    bridge = z2m().parse(
        json.dumps(
            [entry("lamp", "0x01", [{"type": "light", "features": [binary("state", "state")]}])]
        ).encode()
    )
    known.stage(ha_light)
    known.stage(bridge)
    known.flush()
    assert [(d.name, d.origin) for d in registry.devices()] == [("lamp", "homeassistant")]


def test_zigbee2mqtt_exposes_fans_covers_climates_and_light_ranges() -> None:
    bridge = [
        entry(
            "ceiling fan",
            "0x20",
            [
                {
                    "type": "fan",
                    "features": [
                        binary("state", "fan_state"),
                        {
                            "type": "enum",
                            "name": "mode",
                            "property": "fan_mode",
                            "values": ["off", "low", "medium", "high", "on", "auto", "smart"],
                        },
                    ],
                }
            ],
        ),
        entry(
            "roller",
            "0x21",
            [
                {
                    "type": "cover",
                    "features": [
                        {
                            "type": "enum",
                            "name": "state",
                            "property": "state",
                            "values": ["OPEN", "CLOSE", "STOP"],
                        },
                        numeric("position"),
                        numeric("tilt"),
                    ],
                }
            ],
        ),
        entry(
            "radiator",
            "0x22",
            [
                {
                    "type": "climate",
                    "features": [
                        numeric("occupied_heating_setpoint", value_min=5, value_max=30),
                        numeric("local_temperature"),
                        {
                            "type": "enum",
                            "name": "system_mode",
                            "property": "system_mode",
                            "values": ["off", "heat"],
                        },
                        {
                            "type": "enum",
                            "name": "preset",
                            "property": "preset",
                            "values": ["eco", "comfort"],
                        },
                        {
                            "type": "enum",
                            "name": "running_state",
                            "property": "running_state",
                            "values": ["idle", "heat"],
                        },
                    ],
                }
            ],
        ),
        entry(
            "white bulb",
            "0x23",
            [
                {
                    "type": "light",
                    "features": [
                        binary("state", "state"),
                        numeric("brightness", value_max=254),
                        numeric("color_temp", value_min=153, value_max=500),
                    ],
                },
                {
                    "type": "enum",
                    "name": "effect",
                    "property": "effect",
                    "values": ["blink", "okay"],
                },
            ],
        ),
    ]
    by_name = {d.name: d for d in z2m().parse(json.dumps(bridge).encode()).devices}
    fan = by_name["ceiling fan"]
    assert fan.caps.preset_modes == ("low", "medium", "high", "auto", "smart")
    assert fan.payloads["keys"] == {"state": "fan_state", "fan_mode": "fan_mode"}
    roller = by_name["roller"]
    assert roller.features == ["position", "tilt", "stop"]
    radiator = by_name["radiator"]
    assert radiator.caps.preset_modes == ("eco", "comfort") and radiator.caps.modes == (
        "off",
        "heat",
    )
    assert (radiator.caps.minimum, radiator.caps.maximum) == (5.0, 30.0)
    bulb = by_name["white bulb"]
    assert (bulb.caps.min_kelvin, bulb.caps.max_kelvin) == (2000, 6535)
    assert bulb.caps.effects == ("blink", "okay") and "effect" in bulb.features
