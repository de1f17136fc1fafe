"""Every other Home Assistant MQTT platform a request can reach: exact publishes and readings.

The configs are real ones (zigbee2mqtt's Home Assistant extension tests,
Home Assistant's MQTT documentation examples); every expected payload is
worked out by hand from Home Assistant's rules: a fan percentage is
``ceil(percent * speeds / 100)`` within ``speed_range``, a cover position
``round(percent * range / 100)`` within ``position_closed..open``, a
climate temperature goes out as a float, a whole number value as an int.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.sources.mqtt import codec
from mnemolis.sources.mqtt.wire import Act, Unsupported
from tests.support_discovery import announced, read, sent
from tests.support_platforms import CONFIGS

COMMANDS = [
    ("bedroom fan", Act("turn_on"), [("bedroom_fan/on/set", "true")]),
    ("bedroom fan", Act("turn_off"), [("bedroom_fan/on/set", "false")]),
    ("bedroom fan", Act("set_percentage", percentage=50), [("bedroom_fan/speed/percentage", "5")]),
    ("bedroom fan", Act("set_percentage", percentage=33), [("bedroom_fan/speed/percentage", "4")]),
    (
        "bedroom fan",
        Act("turn_on", percentage=100),
        [
            ("bedroom_fan/on/set", "true"),
            ("bedroom_fan/speed/percentage", "10"),
        ],
    ),
    ("bedroom fan", Act("set_preset", preset="Eco"), [("bedroom_fan/preset/preset_mode", "eco")]),
    ("bedroom fan", Act("oscillate", oscillating=True), [("bedroom_fan/oscillation/set", "true")]),
    (
        "bedroom fan",
        Act("oscillate", oscillating=False),
        [("bedroom_fan/oscillation/set", "false")],
    ),
    (
        "bedroom fan",
        Act("set_direction", direction="reverse"),
        [("bedroom_fan/direction/set", "reverse")],
    ),
    ("z2m fan", Act("turn_on"), [("zigbee2mqtt/fan/set/fan_state", "ON")]),
    ("z2m fan", Act("set_percentage", percentage=50), [("zigbee2mqtt/fan/set/fan_mode", "medium")]),
    ("z2m fan", Act("set_percentage", percentage=100), [("zigbee2mqtt/fan/set/fan_mode", "on")]),
    ("z2m fan", Act("set_preset", preset="smart"), [("zigbee2mqtt/fan/set/fan_mode", "smart")]),
    ("smart vent", Act("open"), [("zigbee2mqtt/smart vent/set", "OPEN")]),
    ("smart vent", Act("close"), [("zigbee2mqtt/smart vent/set", "CLOSE")]),
    ("smart vent", Act("stop"), [("zigbee2mqtt/smart vent/set", "STOP")]),
    (
        "smart vent",
        Act("set_position", position=50),
        [("zigbee2mqtt/smart vent/set", '{ "position": 50 }')],
    ),
    ("shutter 255", Act("set_position", position=50), [("sh/pos/set", "128")]),
    ("shutter 255", Act("set_tilt", tilt=50), [("sh/tilt/set", "90")]),
    ("position only", Act("open"), [("aw/pos/set", "100")]),
    ("position only", Act("close"), [("aw/pos/set", "0")]),
    ("valve", Act("open"), [("tap/set", "OPEN")]),
    ("valve", Act("close"), [("tap/set", "CLOSE")]),
    ("position valve", Act("open"), [("rv/set", '{"position": 100}')]),
    ("position valve", Act("set_position", position=40), [("rv/set", '{"position": 40}')]),
    ("position valve", Act("stop"), [("rv/set", '{"position": STOP}')]),
    ("lock", Act("lock"), [("shed/set", '{ "action": "LOCK", "code":"None" }')]),
    ("lock", Act("unlock"), [("shed/set", '{ "action": "UNLOCK", "code":"None" }')]),
    ("lock", Act("open"), [("shed/set", '{ "action": "OPEN", "code":"None" }')]),
    (
        "trv",
        Act("set_temperature", temperature=21),
        [
            ("zigbee2mqtt/TS0601_thermostat/set/current_heating_setpoint", "21.0"),
        ],
    ),
    (
        "trv",
        Act("set_temperature", temperature=21.5),
        [
            ("zigbee2mqtt/TS0601_thermostat/set/current_heating_setpoint", "21.5"),
        ],
    ),
    (
        "trv",
        Act("set_mode", mode="Auto"),
        [("zigbee2mqtt/TS0601_thermostat/set/system_mode", "auto")],
    ),
    ("trv", Act("turn_off"), [("zigbee2mqtt/TS0601_thermostat/set/system_mode", "off")]),
    ("trv", Act("turn_on"), [("zigbee2mqtt/TS0601_thermostat/set/system_mode", "heat")]),
    ("trv", Act("set_preset", preset="eco"), [("zigbee2mqtt/TS0601_thermostat/set/preset", "eco")]),
    (
        "bosch",
        Act("set_mode", mode="heat"),
        [("zigbee2mqtt/bosch_radiator/set", '{"operating_mode": "manual"}')],
    ),
    ("bosch", Act("turn_off"), [("zigbee2mqtt/bosch_radiator/set", '{"operating_mode": "pause"}')]),
    (
        "rm230z",
        Act("set_temperature", target_low=18, target_high=24),
        [
            ("zigbee2mqtt/bosch_rm230z/set/occupied_heating_setpoint", "18.0"),
            ("zigbee2mqtt/bosch_rm230z/set/occupied_cooling_setpoint", "24.0"),
        ],
    ),
    ("power climate", Act("turn_on"), [("ac/power/set", "1")]),
    ("power climate", Act("turn_off"), [("ac/power/set", "0")]),
    ("power climate", Act("set_fan_mode", fan_mode="High"), [("ac/fan/set", "high")]),
    ("power climate", Act("set_swing_mode", swing_mode="on"), [("ac/swing/set", "on")]),
    ("power climate", Act("set_humidity", humidity=45), [("ac/humidity/set", "45")]),
    ("power climate", Act("set_mode", mode="cool"), [("ac/mode/set", "cool")]),
    ("humidifier", Act("turn_on"), [("test-humidifier/on/set", "true")]),
    ("humidifier", Act("set_humidity", humidity=45), [("test-humidifier/humidity/set", "45")]),
    ("humidifier", Act("set_mode", mode="eco"), [("test-humidifier/preset/preset_mode", "eco")]),
    (
        "boiler",
        Act("set_temperature", temperature=50),
        [("basement_boiler/temperature/set", "50.0")],
    ),
    ("boiler", Act("set_mode", mode="eco"), [("basement_boiler/mode/set", "eco")]),
    ("boiler", Act("turn_off"), [("basement_boiler/power/set", "OFF")]),
    ("vacuum", Act("start"), [("vacuum/command", "start")]),
    ("vacuum", Act("pause"), [("vacuum/command", "pause")]),
    ("vacuum", Act("stop"), [("vacuum/command", "stop")]),
    ("vacuum", Act("return_to_base"), [("vacuum/command", "return_to_base")]),
    ("vacuum", Act("locate"), [("vacuum/command", "locate")]),
    ("vacuum", Act("clean_spot"), [("vacuum/command", "clean_spot")]),
    ("vacuum", Act("set_fan_speed", fan_speed="Max"), [("vacuum/set_fan_speed", "max")]),
    ("mower", Act("start"), [("mower/start", "start_mowing")]),
    ("mower", Act("pause"), [("mower/pause", "pause")]),
    ("mower", Act("return_to_base"), [("mower/dock", '{"action": "dock"}')]),
    ("siren", Act("turn_on"), [("siren/set", '{"state":"ON"}')]),
    ("siren", Act("turn_on", tone="Ping"), [("siren/set", '{"state":"ON","tone":"ping"}')]),
    ("siren", Act("turn_off"), [("siren/set", '{"state":"OFF"}')]),
    ("siren template", Act("turn_on"), [("bell/set", "ON")]),
    ("alarm", Act("arm_away"), [("alarm/set", "ARM_AWAY")]),
    ("alarm", Act("arm_home"), [("alarm/set", "ARM_HOME")]),
    ("alarm", Act("arm_night"), [("alarm/set", "ARM_NIGHT")]),
    ("alarm", Act("disarm"), [("alarm/set", "DISARM")]),
    ("code alarm", Act("arm_away"), [("safe/set", "ARM_AWAY")]),
    ("scene", Act("activate"), [("zigbee2mqtt/bulb_color_2/set", '{ "scene_recall": 1 }')]),
    ("restart", Act("press"), [("zigbee2mqtt/bridge/request/restart", "")]),
    ("button", Act("press"), [("bell/press", "PRESS")]),
    (
        "log level",
        Act("select_option", option="Info"),
        [
            (
                "zigbee2mqtt/bridge/request/options",
                '{"options": {"advanced": {"log_level": "info" } } }',
            ),
        ],
    ),
    (
        "demand",
        Act("set_value", value=40),
        [("zigbee2mqtt/bosch_radiator/set/pi_heating_demand", "40")],
    ),
    (
        "demand",
        Act("set_value", value=40.5),
        [("zigbee2mqtt/bosch_radiator/set/pi_heating_demand", "40.5")],
    ),
    ("switch", Act("turn_on"), [("plug/set", "1")]),
    ("switch", Act("turn_off"), [("plug/set", "0")]),
    ("left", Act("turn_on"), [("zigbee2mqtt/wall_switch_double/left/set", "ON")]),
]


@pytest.mark.parametrize(("device", "act", "expected"), COMMANDS)
def test_commands(device: str, act: Act, expected: list[tuple[str, str]]) -> None:
    component, config = CONFIGS[device]
    qos, retain = int(config.get("qos", 0)), bool(config.get("retain", False))
    assert sent(announced(component, config), act) == [(t, p, qos, retain) for t, p in expected]


REFUSED = [
    ("code lock", Act("unlock"), "needs_code"),
    ("code alarm", Act("disarm"), "needs_code"),
    ("shutter 255", Act("stop"), "no_stop"),
    ("valve", Act("set_position", position=50), "no_position"),
    ("bedroom fan", Act("set_preset", preset="turbo"), "unknown_preset"),
    ("trv", Act("set_temperature", temperature=40), "out_of_range"),
    ("trv", Act("set_mode", mode="cool"), "unknown_mode"),
    ("rm230z", Act("set_temperature", temperature=21), "needs_range"),
    ("humidifier", Act("set_humidity", humidity=90), "out_of_range"),
    ("vacuum", Act("set_fan_speed", fan_speed="turbo"), "unknown_fan_speed"),
    ("basic vacuum", Act("pause"), "no_pause"),
    ("basic vacuum", Act("locate"), "no_locate"),
    ("log level", Act("select_option", option="verbose"), "unknown_option"),
    ("demand", Act("set_value", value=150), "out_of_range"),
    ("siren", Act("turn_on", tone="gong"), "unknown_tone"),
    ("lock", Act("set_position", position=1), "cannot"),
]


@pytest.mark.parametrize(("device", "act", "reason"), REFUSED)
def test_what_a_device_cannot_do(device: str, act: Act, reason: str) -> None:
    component, config = CONFIGS[device]
    with pytest.raises(Unsupported) as caught:
        sent(announced(component, config), act)
    assert caught.value.reason == reason


READINGS = [
    ("bedroom fan", "state", "true", {"state": "on"}),
    ("bedroom fan", "percentage_state", "5", {"percentage": 50}),
    ("bedroom fan", "percentage_state", "None", {"percentage": None}),
    ("bedroom fan", "preset_mode_state", "whoosh", {"preset": "whoosh"}),
    ("bedroom fan", "oscillation_state", "true", {"oscillating": True}),
    ("bedroom fan", "direction_state", "forward", {"direction": "forward"}),
    ("z2m fan", "state", '{"fan_state": "ON", "fan_mode": "high"}', {"state": "on"}),
    ("z2m fan", "percentage_state", '{"fan_state": "ON", "fan_mode": "high"}', {"percentage": 75}),
    ("z2m fan", "percentage_state", '{"fan_mode": "smart"}', {"percentage": None}),
    ("z2m fan", "preset_mode_state", '{"fan_mode": "smart"}', {"preset": "smart"}),
    ("smart vent", "state", '{"state": "OPEN", "position": 30}', {"state": "open"}),
    # Home Assistant settles a stopped cover as open or closed (here: not at its closed position)
    ("smart vent", "state", '{"state": "STOP", "position": 30}', {"state": "open"}),
    ("smart vent", "position", '{"state": "OPEN", "position": 30}', {"position": 30}),
    ("shutter 255", "position", "64", {"position": 25, "state": "open"}),  # no state topic
    ("shutter 255", "tilt_status", "90", {"tilt": 50}),
    ("position only", "position", "0", {"position": 0, "state": "closed"}),
    ("valve", "state", "opening", {"state": "opening"}),
    (
        "position valve",
        "state",
        '{"state": "opening", "position": 40}',
        {"state": "opening", "position": 40},
    ),
    ("position valve", "state", "0", {"position": 0, "state": "closed"}),
    ("lock", "state", "LOCKED", {"state": "locked"}),
    ("lock", "state", "MOTOR_JAMMED", {"state": "jammed"}),
    ("lock", "state", "UNLOCKED", {"state": "unlocked"}),
    ("trv", "action", '{"running_state": "heat"}', {"action": "heating"}),
    ("trv", "current_temperature", '{"local_temperature": 19.5}', {"current_temperature": 19.5}),
    ("trv", "temperature_state", '{"current_heating_setpoint": 21}', {"target_temperature": 21.0}),
    (
        "trv",
        "mode_state",
        '{"system_mode": "heat"}',
        {"mode": "heat", "state": "on", "last_mode": "heat"},
    ),
    ("trv", "preset_mode_state", '{"preset": "eco"}', {"preset": "eco"}),
    (
        "bosch",
        "mode_state",
        '{"operating_mode": "schedule"}',
        {"mode": "auto", "state": "on", "last_mode": "auto"},
    ),
    ("bosch", "mode_state", '{"operating_mode": "pause"}', {"mode": "off", "state": "off"}),
    ("rm230z", "current_humidity", '{"humidity": 48.5}', {"current_humidity": 48.5}),
    ("humidifier", "state", "false", {"state": "off"}),
    ("humidifier", "target_humidity_state", "45", {"target_humidity": 45}),
    ("humidifier", "action", "humidifying", {"action": "humidifying"}),
    ("humidifier", "mode_state", "eco", {"mode": "eco"}),
    ("boiler", "mode_state", "eco", {"mode": "eco", "state": "on"}),
    ("boiler", "temperature_state", "55", {"target_temperature": 55.0}),
    (
        "vacuum",
        "state",
        '{"battery_level": 61, "state": "docked", "fan_speed": "max"}',
        {"state": "docked", "battery": 61.0, "fan_speed": "max"},
    ),
    ("mower", "activity_state", "mowing", {"state": "mowing"}),
    ("siren", "state", "ON", {"state": "on"}),
    ("siren", "state", '{"state": "ON", "tone": "ping"}', {"tone": "ping", "state": "on"}),
    ("alarm", "state", "armed_away", {"state": "armed_away"}),
    ("log level", "state", '{"log_level": "INFO"}', {"option": "info"}),
    ("demand", "state", '{"pi_heating_demand": 40}', {"value": 40}),
    ("switch", "state", "on", {"state": "on"}),
    ("left", "state", '{"state_left": "ON", "state_right": "OFF"}', {"state": "on"}),
    ("temperature", "state", '{"temperature": 21.5, "humidity": 40}', {"value": 21.5}),
    ("occupancy", "state", '{"occupancy": true}', {"state": "on"}),
    ("occupancy", "state", '{"occupancy": false}', {"state": "off"}),
    ("tracker", "state", "away", {"state": "not_home"}),
    ("tracker", "state", "office", {"state": "office"}),
]


@pytest.mark.parametrize(("device", "role", "payload", "values"), READINGS)
def test_readings(device: str, role: str, payload: str, values: dict[str, Any]) -> None:
    component, config = CONFIGS[device]
    assert read(announced(component, config), role, payload) == values


@pytest.mark.parametrize(
    ("device", "role", "payload"),
    [
        ("smart vent", "state", '{"state": "SIDEWAYS"}'),
        ("bedroom fan", "preset_mode_state", "turbo"),
        ("trv", "mode_state", '{"system_mode": "dry"}'),
        ("alarm", "state", "confused"),
        ("log level", "state", '{"log_level": "verbose"}'),
        ("demand", "state", '{"pi_heating_demand": 400}'),
        ("occupancy", "state", '{"occupancy": "maybe"}'),
        ("vacuum", "state", "not json"),
        ("code lock", "state", "LOCK"),  # the docs' "{{ value.x }}" reads nothing from text
    ],
)
def test_readings_that_are_refused(device: str, role: str, payload: str) -> None:
    component, config = CONFIGS[device]
    with pytest.raises(ValueError):
        read(announced(component, config), role, payload)


@pytest.mark.parametrize(
    ("device", "features", "caps"),
    [
        (
            "bedroom fan",
            ["percentage", "preset", "oscillate", "direction"],
            {"preset_modes": ("auto", "smart", "whoosh", "eco", "breeze"), "speed_count": 10},
        ),
        ("z2m fan", ["percentage", "preset"], {"preset_modes": ("smart",), "speed_count": 4}),
        ("shutter 255", ["position", "tilt"], {}),
        (
            "trv",
            ["target_temperature", "preset"],
            {"modes": ("heat", "auto", "off"), "minimum": 5.0, "maximum": 35.0, "step": 0.5},
        ),
        (
            "vacuum",
            ["start", "pause", "stop", "return_home", "locate", "clean_spot", "fan_speed"],
            {"fan_speeds": ("min", "medium", "high", "max")},
        ),
        ("log level", [], {"options": ("error", "warning", "info", "debug")}),
        ("demand", [], {"minimum": 0.0, "maximum": 100.0, "step": 1.0}),
    ],
)
def test_capabilities(device: str, features: list[str], caps: dict[str, Any]) -> None:
    component, config = CONFIGS[device]
    found = announced(component, config)
    assert found.features == features
    for key, value in caps.items():
        assert getattr(found.caps, key) == value, key


def test_names_follow_home_assistant() -> None:
    assert announced(*CONFIGS["z2m fan"]).name == "fan"
    assert announced(*CONFIGS["left"]).name == "wall switch double left"
    assert announced(*CONFIGS["temperature"]).name == "weather sensor temperature"
    assert announced(*CONFIGS["occupancy"]).name == "hall pir occupancy"
    assert announced(*CONFIGS["restart"]).name == "zigbee2mqtt bridge restart"


def test_a_stopped_cover_settles_by_its_position_or_its_last_state() -> None:
    """Home Assistant's cover: ``stopped`` is closed at the closed position (or, without a
    position topic, after closed/closing), and open otherwise."""
    vent = announced("cover", CONFIGS["smart vent"][1])
    stop = b'{"state": "STOP", "position": 0}'
    assert codec.decode(vent, "state", stop, {"position": 0}).values == {"state": "closed"}
    assert codec.decode(vent, "state", stop, {"position": 20}).values == {"state": "open"}
    gate = announced("cover", {"name": "Gate", "cmd_t": "gate/set", "stat_t": "gate/state"})
    assert codec.decode(gate, "state", b"stopped", {"state": "closing"}).values == {
        "state": "closed"
    }
    assert codec.decode(gate, "state", b"stopped", {"state": "opening"}).values == {"state": "open"}
