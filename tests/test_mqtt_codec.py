"""The wire format of commands and states, per device style (pure, no broker).

YAML devices with ``schema: default`` are driven as the equivalent Home
Assistant MQTT config would be (so a brightness is followed by the "on"
payload, Home Assistant's ``on_command_type: last``); ``schema: json`` is
zigbee2mqtt's JSON style.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import availability, codec
from mnemolis.sources.mqtt.truth import state_matches
from mnemolis.sources.mqtt.wire import Act, Color, Unsupported

BLUE = Color("blue", (0, 0, 255))
WARM = Color("warm white", (255, 197, 143), 370)


def dev(kind: str, schema: str = "json", **fields: Any) -> Device:
    topics = fields.pop("topics", {"state": "t/state", "command": "t/set"})
    return Device(name="thing", type=kind, schema=schema, topics=topics, **fields)


DEVICES: dict[str, Device] = {
    "json light": dev("light", features=["brightness", "color"]),
    "plain light": dev(
        "light",
        "default",
        features=["brightness", "color"],
        topics={
            "state": "t/state",
            "command": "t/set",
            "brightness_command": "t/bri/set",
            "rgb_command": "t/rgb/set",
        },
        payloads={"on": "1", "off": "0"},
    ),
    "xy light": dev(
        "light",
        features=["brightness", "color", "color_temp"],
        payloads={"brightness_scale": 254},
        extra={"color_modes": ["xy", "color_temp"]},
    ),
    "hs light": dev(
        "light",
        "default",
        features=["color"],
        topics={"command": "t/set", "hs_command": "t/hs/set"},
    ),
    "onoff light": dev("light"),
    "json switch": dev("switch"),
    "plain fan": dev("fan", "default"),
    "plain lock": dev("lock", "default"),
    "template lock": dev(
        "lock", "default", payloads={"command_template": '{"state": "{{ value }}"}'}
    ),
    "z2m lock": dev("lock", payloads={"lock": "LOCK", "unlock": "UNLOCK"}),
    "plain cover": dev("cover", "default"),
    "json cover": dev("cover", payloads={"stop": None}),
    "plain climate": dev(
        "climate",
        "default",
        topics={"temperature_command": "t/temp/set", "mode_command": "t/mode/set"},
        extra={"modes": ["off", "cool"]},
    ),
    "power climate": dev("climate", "default", topics={"power_command": "t/power"}),
    "z2m climate": dev(
        "climate",
        payloads={
            "keys": {"target_temperature": "occupied_heating_setpoint", "mode": "system_mode"}
        },
    ),
    "plain vacuum": dev("vacuum", "default"),
    "json vacuum": dev("vacuum"),
    "sensor": dev("sensor", topics={"state": "t/state"}, device_class="temperature"),
}


def act(action: str, value: Any = None) -> Act:
    """The act a row means: a number is the action's value, a Color a colour."""
    if isinstance(value, Color):
        return Act(action, color=value)
    field = {
        "set_brightness": "brightness",
        "set_temperature": "temperature",
        "set_position": "position",
        "set_percentage": "percentage",
    }.get(action)
    return Act(action, **({field: value} if field and value is not None else {}))


ENCODE = [
    ("json light", "turn_on", None, [("t/set", '{"state": "ON"}')]),
    ("json light", "turn_off", None, [("t/set", '{"state": "OFF"}')]),
    ("json light", "set_brightness", 40.0, [("t/set", '{"state": "ON", "brightness": 102}')]),
    ("json light", "set_brightness", 0.0, [("t/set", '{"state": "OFF"}')]),
    (
        "json light",
        "set_color",
        BLUE,
        [("t/set", '{"state": "ON", "color": {"r": 0, "g": 0, "b": 255}}')],
    ),
    ("plain light", "turn_on", None, [("t/set", "1")]),
    ("plain light", "turn_off", None, [("t/set", "0")]),
    ("plain light", "set_brightness", 50.0, [("t/bri/set", "128"), ("t/set", "1")]),
    ("plain light", "set_color", BLUE, [("t/rgb/set", "0,0,255"), ("t/set", "1")]),
    ("xy light", "set_brightness", 100.0, [("t/set", '{"state": "ON", "brightness": 254}')]),
    (
        "xy light",
        "set_color",
        BLUE,
        [("t/set", '{"state": "ON", "color": {"x": 0.15, "y": 0.06}}')],
    ),
    ("xy light", "set_color", WARM, [("t/set", '{"state": "ON", "color_temp": 370}')]),
    ("hs light", "set_color", BLUE, [("t/hs/set", "240.0,100.0"), ("t/set", "ON")]),
    ("json switch", "start", None, [("t/set", '{"state": "ON"}')]),
    ("json switch", "stop", None, [("t/set", '{"state": "OFF"}')]),
    ("plain fan", "turn_on", None, [("t/set", "ON")]),
    ("plain lock", "lock", None, [("t/set", "LOCK")]),
    ("plain lock", "unlock", None, [("t/set", "UNLOCK")]),
    ("template lock", "unlock", None, [("t/set", '{"state": "UNLOCK"}')]),
    ("z2m lock", "lock", None, [("t/set", '{"state": "LOCK"}')]),
    ("plain cover", "open", None, [("t/set", "OPEN")]),
    ("plain cover", "close", None, [("t/set", "CLOSE")]),
    ("plain cover", "stop", None, [("t/set", "STOP")]),
    ("json cover", "open", None, [("t/set", '{"state": "OPEN"}')]),
    ("plain climate", "set_temperature", 21.5, [("t/temp/set", "21.5")]),
    ("plain climate", "turn_on", None, [("t/mode/set", "cool")]),
    ("plain climate", "turn_off", None, [("t/mode/set", "off")]),
    ("power climate", "turn_on", None, [("t/power", "ON")]),
    ("z2m climate", "set_temperature", 21.0, [("t/set", '{"occupied_heating_setpoint": 21}')]),
    ("z2m climate", "turn_on", None, [("t/set", '{"system_mode": "heat"}')]),
    ("plain vacuum", "start", None, [("t/set", "start")]),
    ("plain vacuum", "stop", None, [("t/set", "stop")]),
    ("plain vacuum", "return_to_base", None, [("t/set", "return_to_base")]),
    ("json vacuum", "start", None, [("t/set", '{"command": "start"}')]),
]


@pytest.mark.parametrize(("name", "action", "value", "expected"), ENCODE)
def test_encode(name: str, action: str, value: Any, expected: list[tuple[str, str]]) -> None:
    commands = codec.encode(DEVICES[name], act(action, value))
    assert [(c.topic, c.text) for c in commands] == expected
    assert {(c.qos, c.retain) for c in commands} == {(1, False)}  # Mnemolis's YAML default
    for command in commands:
        if command.text.startswith("{"):
            json.loads(command.text)


@pytest.mark.parametrize(
    ("name", "action", "value", "reason"),
    [
        ("onoff light", "set_brightness", 50.0, "no_brightness"),
        ("onoff light", "set_color", BLUE, "no_color"),
        ("json cover", "stop", None, "no_stop"),
        ("power climate", "set_temperature", 20.0, "no_temperature_command"),
        ("json light", "lock", None, "cannot"),
        ("json vacuum", "open", None, "cannot"),
    ],
)
def test_encode_refuses(name: str, action: str, value: Any, reason: str) -> None:
    with pytest.raises(Unsupported) as caught:
        codec.encode(DEVICES[name], act(action, value))
    assert caught.value.reason == reason


def test_encode_without_a_command_topic() -> None:
    device = dev("switch", "json", topics={"state": "t/state"})
    with pytest.raises(Unsupported) as caught:
        codec.encode(device, Act("turn_on"))
    assert caught.value.reason == "no_command_topic"


DECODE = [
    (
        "json light",
        "state",
        b'{"state": "ON", "brightness": 127}',
        {"state": "on", "brightness": 50, "brightness_level": 127},
    ),
    ("json light", "state", b'{"state": "off"}', {"state": "off"}),
    ("plain light", "state", b"1", {"state": "on"}),
    ("plain light", "state", b"0", {"state": "off"}),
    ("plain light", "brightness_state", b"255", {"brightness": 100, "brightness_level": 255}),
    (
        "plain light",
        "rgb_state",
        b"0,0,255",
        {
            "color": {"r": 0, "g": 0, "b": 255},
            "color_mode": "rgb",
            "rgb_color": [0, 0, 255],
            "brightness": 100,
            "brightness_level": 255,
        },
    ),
    ("z2m lock", "state", b'{"state": "LOCK", "lock_state": "locked"}', {"state": "locked"}),
    ("z2m lock", "state", b'{"state": "UNLOCK"}', {"state": "unlocked"}),
    ("plain lock", "state", b"JAMMED", {"state": "jammed"}),
    ("json cover", "state", b'{"position": 30}', {"position": 30, "state": "open"}),
    (
        "json cover",
        "state",
        b'{"state": "CLOSE", "position": 0}',
        {"state": "closed", "position": 0},
    ),
    ("plain cover", "position_state", b"40", {"position": 40}),
    (
        "json vacuum",
        "state",
        b'{"state": "docked", "battery": 90}',
        {"state": "docked", "battery": 90.0},
    ),
    ("plain vacuum", "state", b'{"state": "cleaning"}', {"state": "cleaning"}),
    (
        "z2m climate",
        "state",
        b'{"system_mode": "off", "occupied_heating_setpoint": 21, "current_temperature": 19.5}',
        {"mode": "off", "state": "off", "target_temperature": 21.0, "current_temperature": 19.5},
    ),
    ("plain climate", "mode_state", b"cool", {"mode": "cool", "state": "on", "last_mode": "cool"}),
    ("plain climate", "temperature_state", b"21.5", {"target_temperature": 21.5}),
    ("sensor", "state", b'{"temperature": 22}', {"value": 22.0}),
    ("sensor", "state", b"22.5", {"value": 22.5}),
]


@pytest.mark.parametrize(("name", "role", "payload", "expected"), DECODE)
def test_decode(name: str, role: str, payload: bytes, expected: dict[str, Any]) -> None:
    assert codec.decode(DEVICES[name], role, payload).values == expected


def test_decode_with_value_template_and_device_timestamp() -> None:
    sensor = dev(
        "sensor",
        "default",
        topics={"state": "t/state"},
        payloads={"value_template": "{{ value_json.env.t }}"},
    )
    assert codec.decode(sensor, "state", b'{"env": {"t": "21.5"}}').values == {"value": 21.5}
    pir = dev("binary_sensor", payloads={"keys": {"state": "occupancy"}, "state_on": True})
    reading = codec.decode(
        pir, "state", b'{"occupancy": true, "last_seen": "2024-05-01T10:00:00Z"}'
    )
    assert reading.values == {"state": "on"}
    assert reading.at == 1714557600.0


MALFORMED = [
    ("json light", "state", b"not json"),
    ("json light", "state", b"[1, 2]"),
    ("json light", "state", b'{"foo": 1}'),
    ("json light", "state", b"\xff\xfe"),
    ("plain light", "brightness_state", b"abc"),
    ("plain light", "brightness_state", b"NaN"),
    ("plain lock", "state", b"SOMETHING"),
]


@pytest.mark.parametrize(("name", "role", "payload"), MALFORMED)
def test_decode_malformed_raises_value_error(name: str, role: str, payload: bytes) -> None:
    with pytest.raises(ValueError):
        codec.decode(DEVICES[name], role, payload)


@pytest.mark.parametrize(
    ("spec", "payload", "expected"),
    [
        (availability.Spec("a"), b"online", True),
        (availability.Spec("a"), b'{"state": "offline"}', False),
        (availability.Spec("a", "up", "down"), b"down", False),
        (
            availability.Spec("a", "up", template="{{ value_json.status }}"),
            b'{"status": "up"}',
            True,
        ),
        (availability.Spec("a"), b"maybe", None),
    ],
)
def test_decode_availability(
    spec: availability.Spec, payload: bytes, expected: bool | None
) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            availability.decode(spec, payload)
    else:
        assert availability.decode(spec, payload) is expected


EXPECT = [
    ("json light", "turn_on", None, {"state": "on"}, True),
    ("json light", "turn_on", None, {"state": "off"}, False),
    ("json light", "set_brightness", 40.0, {"state": "on", "brightness": 40}, True),
    ("json light", "set_brightness", 40.0, {"state": "on", "brightness": 80}, False),
    ("z2m lock", "unlock", None, {"state": "unlocked"}, True),
    ("z2m lock", "unlock", None, {"state": "locked"}, False),
    ("json cover", "open", None, {"state": "opening"}, True),
    ("json cover", "close", None, {"position": 0}, True),
    ("json cover", "stop", None, {"state": "stopped"}, True),
    ("json cover", "stop", None, {"state": "closing"}, False),
    ("z2m climate", "set_temperature", 21.0, {"target_temperature": 21.0}, True),
    ("z2m climate", "set_temperature", 21.0, {"target_temperature": 20.0}, False),
    ("z2m climate", "turn_off", None, {"mode": "off"}, True),
    ("json vacuum", "return_to_base", None, {"state": "returning"}, True),
    ("json vacuum", "stop", None, {"state": "cleaning"}, False),
]


@pytest.mark.parametrize(("name", "action", "value", "values", "expected"), EXPECT)
def test_expectation(
    name: str, action: str, value: Any, values: dict[str, Any], expected: bool
) -> None:
    assert codec.expectation(DEVICES[name], act(action, value))(values) is expected


MATCHES = [
    ("json light", {"state": "on"}, "on", True),
    ("json light", {"state": "on"}, "off", False),
    ("json light", {"state": "on"}, "locked", None),
    ("z2m lock", {"state": "unlocked"}, "locked", False),
    ("z2m lock", {"state": "jammed"}, "locked", None),
    ("json cover", {"state": "closed"}, "open", False),
    ("json cover", {"position": 20}, "open", True),
    ("z2m climate", {"mode": "heat"}, "on", True),
    ("json vacuum", {"state": "docked"}, "on", False),
    ("json light", {}, "on", None),
]


@pytest.mark.parametrize(("name", "values", "wanted", "expected"), MATCHES)
def test_state_matches(
    name: str, values: dict[str, Any], wanted: str, expected: bool | None
) -> None:
    assert state_matches(DEVICES[name], values, wanted) is expected
