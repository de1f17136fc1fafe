"""zigbee2mqtt's bridge/devices -> Devices: exposes, endpoints, composite features (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support_discovery import known_devices, parse, z2m


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


def test_one_zigbee_device_announced_twice_is_kept_once() -> None:
    known, registry = known_devices()
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
