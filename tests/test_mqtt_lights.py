"""Lights in Home Assistant's three MQTT schemas, every colour mode: exact publishes and readings.

Each expected payload is worked out by hand from Home Assistant's own rules
(``light/__init__.py`` service step, ``schema_basic.py``, ``schema_json.py``,
``schema_template.py``): a brightness of 50 % is 128 of 255, red is
``0.701,0.299`` in Home Assistant's wide-gamut xy, 2,700 K is 370 mireds.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.sources.mqtt.wire import Act, Color, Unsupported
from tests.support_discovery import announced, read, sent

RED = Color("red", (255, 0, 0))
BLUE = Color("blue", (0, 0, 255))
WARM = Color("warm white", (255, 197, 143), 370)

BASIC: dict[str, dict[str, Any]] = {
    "rgb": {
        "name": "Desk",
        "cmd_t": "d/set",
        "stat_t": "d/state",
        "bri_cmd_t": "d/bri/set",
        "bri_stat_t": "d/bri",
        "rgb_cmd_t": "d/rgb/set",
        "rgb_stat_t": "d/rgb",
    },
    "first": {"name": "A", "cmd_t": "a/set", "bri_cmd_t": "a/bri", "on_cmd_type": "first"},
    "brightness": {
        "name": "B",
        "cmd_t": "b/set",
        "bri_cmd_t": "b/bri",
        "on_cmd_type": "brightness",
    },
    "scale100": {"name": "C", "cmd_t": "c/set", "bri_cmd_t": "c/bri", "bri_scl": 100},
    "rgb only": {"name": "R", "cmd_t": "r/set", "rgb_cmd_t": "r/rgb"},
    "hs": {"name": "H", "cmd_t": "h/set", "hs_cmd_t": "h/hs"},
    "xy": {"name": "X", "cmd_t": "x/set", "xy_cmd_t": "x/xy", "pl_on": "1"},
    "ct": {"name": "T", "cmd_t": "t/set", "clr_temp_cmd_t": "t/ct", "bri_cmd_t": "t/bri"},
    "ct kelvin": {"name": "K", "cmd_t": "k/set", "clr_temp_cmd_t": "k/ct", "clr_temp_k": True},
    "rgbw": {
        "name": "W",
        "cmd_t": "w/set",
        "rgbw_cmd_t": "w/rgbw",
        "rgbw_cmd_tpl": "{{ red }}-{{ green }}-{{ blue }}-{{ white }}",
    },
    "tasmota hex": {
        "name": "Hex",
        "cmd_t": "hex/set",
        "rgb_cmd_t": "hex/color",
        "rgb_cmd_tpl": "{{ '%02X%02X%02X' | format(red, green, blue) }}",
    },
    "effects": {"name": "E", "cmd_t": "e/set", "fx_cmd_t": "e/fx", "fx_list": ["rainbow", "fire"]},
    "retained": {"name": "Q", "cmd_t": "q/set", "qos": 1, "ret": True},
    "onoff": {"name": "O", "cmd_t": "o/set", "stat_t": "o/state"},
    "tasmota state": {
        "name": "Tas",
        "cmd_t": "tas/cmnd/POWER",
        "stat_t": "tas/tele/STATE",
        "stat_val_tpl": "{{ value_json.POWER }}",
        "bri_cmd_t": "tas/cmnd/Dimmer",
        "bri_stat_t": "tas/tele/STATE",
        "bri_val_tpl": "{{ value_json.Dimmer }}",
        "bri_scl": 100,
    },
}

BASIC_COMMANDS = [
    ("rgb", Act("turn_on"), {}, [("d/set", "ON")]),
    ("rgb", Act("turn_off"), {}, [("d/set", "OFF")]),
    ("rgb", Act("set_brightness", brightness=50), {}, [("d/bri/set", "128"), ("d/set", "ON")]),
    ("rgb", Act("set_brightness", brightness=0), {}, [("d/set", "OFF")]),
    ("rgb", Act("set_color", color=RED), {}, [("d/rgb/set", "255,0,0"), ("d/set", "ON")]),
    ("first", Act("set_brightness", brightness=50), {}, [("a/set", "ON"), ("a/bri", "128")]),
    ("brightness", Act("turn_on"), {}, [("b/bri", "255")]),
    ("brightness", Act("turn_on"), {"brightness_level": 100, "state": "on"}, [("b/bri", "100")]),
    ("brightness", Act("set_brightness", brightness=20), {}, [("b/bri", "51")]),
    ("scale100", Act("set_brightness", brightness=50), {}, [("c/bri", "50"), ("c/set", "ON")]),
    ("scale100", Act("set_brightness", brightness=1), {}, [("c/bri", "1"), ("c/set", "ON")]),
    (
        "rgb only",
        Act("set_brightness", brightness=50),
        {"rgb_color": [255, 0, 0]},
        [("r/rgb", "128,0,0"), ("r/set", "ON")],
    ),
    (
        "rgb only",
        Act("set_color", color=BLUE),
        {"brightness_level": 128, "state": "on"},
        [("r/rgb", "0,0,128"), ("r/set", "ON")],
    ),
    ("hs", Act("set_color", color=RED), {}, [("h/hs", "0.0,100.0"), ("h/set", "ON")]),
    ("hs", Act("set_color", color=BLUE), {}, [("h/hs", "240.0,100.0"), ("h/set", "ON")]),
    ("xy", Act("set_color", color=RED), {}, [("x/xy", "0.701,0.299"), ("x/set", "1")]),
    ("xy", Act("set_color", color=BLUE), {}, [("x/xy", "0.136,0.04"), ("x/set", "1")]),
    ("ct", Act("set_color", color=WARM), {}, [("t/ct", "370"), ("t/set", "ON")]),
    ("ct", Act("set_color_temp", kelvin=4000), {}, [("t/ct", "250"), ("t/set", "ON")]),
    ("ct", Act("set_color_temp", kelvin=1000), {}, [("t/ct", "500"), ("t/set", "ON")]),  # to 2000 K
    ("ct kelvin", Act("set_color_temp", kelvin=4000), {}, [("k/ct", "4000"), ("k/set", "ON")]),
    ("rgbw", Act("set_color", color=RED), {}, [("w/rgbw", "255-0-0-0"), ("w/set", "ON")]),
    ("tasmota hex", Act("set_color", color=RED), {}, [("hex/color", "FF0000"), ("hex/set", "ON")]),
    ("effects", Act("set_effect", effect="Fire"), {}, [("e/fx", "fire"), ("e/set", "ON")]),
    (
        "tasmota state",
        Act("set_brightness", brightness=40),
        {},
        [
            ("tas/cmnd/Dimmer", "40"),
            ("tas/cmnd/POWER", "ON"),
        ],
    ),
]


@pytest.mark.parametrize(("light", "act", "state", "expected"), BASIC_COMMANDS)
def test_default_schema_commands(
    light: str, act: Act, state: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    device = announced("light", BASIC[light])
    assert sent(device, act, state) == [(t, p, 0, False) for t, p in expected]


def test_qos_and_retain_come_from_the_config() -> None:
    assert sent(announced("light", BASIC["retained"]), Act("turn_on")) == [("q/set", "ON", 1, True)]


@pytest.mark.parametrize(
    ("light", "act", "reason"),
    [
        ("onoff", Act("set_brightness", brightness=30), "no_brightness"),
        ("onoff", Act("set_color", color=RED), "no_color"),
        ("onoff", Act("set_color_temp", kelvin=3000), "no_color_temp"),
        ("effects", Act("set_effect", effect="disco"), "unknown_effect"),
        ("rgb", Act("set_effect", effect="fire"), "no_effect"),
    ],
)
def test_what_a_light_cannot_do(light: str, act: Act, reason: str) -> None:
    with pytest.raises(Unsupported) as caught:
        sent(announced("light", BASIC[light]), act)
    assert caught.value.reason == reason


@pytest.mark.parametrize(
    ("light", "modes", "features"),
    [
        ("rgb", ("rgb",), ["brightness", "color"]),
        ("onoff", ("onoff",), []),
        ("scale100", ("brightness",), ["brightness"]),
        ("ct", ("color_temp",), ["brightness", "color_temp"]),
        ("hs", ("hs",), ["brightness", "color"]),
        ("rgbw", ("rgbw",), ["brightness", "color"]),
        ("effects", ("onoff",), ["effect"]),
    ],
)
def test_default_schema_colour_modes(
    light: str, modes: tuple[str, ...], features: list[str]
) -> None:
    device = announced("light", BASIC[light])
    assert device.caps.color_modes == modes
    assert device.features == features


BASIC_READINGS = [
    ("rgb", "state", "ON", {"state": "on"}),
    ("rgb", "state", "OFF", {"state": "off"}),
    ("rgb", "state", "None", {"state": None}),
    ("rgb", "brightness_state", "128", {"brightness": 50, "brightness_level": 128}),
    (
        "rgb",
        "rgb_state",
        "255,128,0",
        {"color_mode": "rgb", "rgb_color": [255, 128, 0], "color": {"r": 255, "g": 128, "b": 0}},
    ),
    (
        "rgb only",
        "rgb_state",
        "128,0,0",
        {
            "color_mode": "rgb",
            "rgb_color": [255, 0, 0],
            "color": {"r": 255, "g": 0, "b": 0},
            "brightness": 50,
            "brightness_level": 128,
        },
    ),
    ("tasmota state", "state", '{"POWER":"ON","Dimmer":45}', {"state": "on"}),
    (
        "tasmota state",
        "brightness_state",
        '{"POWER":"ON","Dimmer":45}',
        {"brightness": 45, "brightness_level": 115},
    ),
]


@pytest.mark.parametrize(("light", "role", "payload", "values"), BASIC_READINGS)
def test_default_schema_readings(
    light: str, role: str, payload: str, values: dict[str, Any]
) -> None:
    assert read(announced("light", BASIC[light]), role, payload) == values


@pytest.mark.parametrize(("role", "payload"), [("state", "SIDEWAYS"), ("brightness_state", "0")])
def test_default_schema_readings_that_say_nothing(role: str, payload: str) -> None:
    with pytest.raises(ValueError):
        read(announced("light", BASIC["rgb"]), role, payload)


# --------------------------------------------------------------------------- JSON

JSON: dict[str, dict[str, Any]] = {
    "z2m": {
        "schema": "json",
        "name": None,
        "cmd_t": "zigbee2mqtt/bulb/set",
        "stat_t": "zigbee2mqtt/bulb",
        "brightness": True,
        "brightness_scale": 254,
        "supported_color_modes": ["xy", "color_temp"],
        "max_mireds": 454,
        "min_mireds": 250,
        "effect": True,
        "effect_list": ["blink", "breathe", "colorloop"],
        "device": {"name": "bulb"},
    },
    "rgb": {
        "schema": "json",
        "name": "S",
        "cmd_t": "s/set",
        "brightness": True,
        "supported_color_modes": ["rgb"],
    },
    "rgb no brightness flag": {
        "schema": "json",
        "name": "N",
        "cmd_t": "n/set",
        "supported_color_modes": ["rgb"],
    },
    "hs": {"schema": "json", "name": "H", "cmd_t": "h/set", "supported_color_modes": ["hs"]},
    "rgbw": {
        "schema": "json",
        "name": "W",
        "cmd_t": "w/set",
        "brightness": True,
        "supported_color_modes": ["rgbw"],
    },
    # Home Assistant 2025.3 removed the flags rgb/xy/hs/color_temp/color_mode: a
    # discovered light that still sends them dims (brightness: true) or only switches.
    "removed rgb flag": {
        "schema": "json",
        "name": "L",
        "cmd_t": "l/set",
        "brightness": True,
        "rgb": True,
        "color_mode": True,
    },
    "removed xy flag": {"schema": "json", "name": "X", "cmd_t": "x/set", "xy": True},
    "kelvin": {
        "schema": "json",
        "name": "K",
        "cmd_t": "k/set",
        "color_temp_kelvin": True,
        "supported_color_modes": ["color_temp"],
    },
    "onoff": {"schema": "json", "name": "O", "cmd_t": "o/set", "supported_color_modes": ["onoff"]},
}

JSON_COMMANDS = [
    ("z2m", Act("turn_on"), '{"state":"ON"}'),
    ("z2m", Act("turn_off"), '{"state":"OFF"}'),
    ("z2m", Act("set_brightness", brightness=50), '{"state":"ON","brightness":127}'),
    ("z2m", Act("set_brightness", brightness=100), '{"state":"ON","brightness":254}'),
    ("z2m", Act("set_color", color=RED), '{"state":"ON","color":{"x":0.701,"y":0.299}}'),
    ("z2m", Act("set_color_temp", kelvin=2700), '{"state":"ON","color_temp":370}'),
    ("z2m", Act("set_color", color=WARM), '{"state":"ON","color_temp":370}'),
    ("z2m", Act("set_color_temp", kelvin=6500), '{"state":"ON","color_temp":250}'),  # to 4000 K
    ("z2m", Act("set_effect", effect="colorloop"), '{"state":"ON","effect":"colorloop"}'),
    ("rgb", Act("set_color", color=RED), '{"state":"ON","color":{"r":255,"g":0,"b":0}}'),
    (
        "rgb",
        Act("turn_on", brightness=50, color=RED),
        '{"state":"ON","color":{"r":255,"g":0,"b":0},"brightness":128}',
    ),
    (
        "rgb no brightness flag",
        Act("turn_on", brightness=50, color=RED),
        '{"state":"ON","color":{"r":128,"g":0,"b":0}}',
    ),
    ("hs", Act("set_color", color=BLUE), '{"state":"ON","color":{"h":240.0,"s":100.0}}'),
    ("rgbw", Act("set_color", color=RED), '{"state":"ON","color":{"r":255,"g":0,"b":0,"w":0}}'),
    ("removed rgb flag", Act("set_brightness", brightness=50), '{"state":"ON","brightness":128}'),
    ("removed xy flag", Act("turn_on"), '{"state":"ON"}'),
    ("kelvin", Act("set_color_temp", kelvin=4000), '{"state":"ON","color_temp":4000}'),
]


@pytest.mark.parametrize(("light", "act", "payload"), JSON_COMMANDS)
def test_json_schema_commands(light: str, act: Act, payload: str) -> None:
    device = announced("light", JSON[light])
    assert [(t, p) for t, p, _q, _r in sent(device, act)] == [
        (device.config["command_topic"], payload)
    ]


def test_json_schema_capabilities() -> None:
    bulb = announced("light", JSON["z2m"])
    assert bulb.name == "bulb"
    assert bulb.caps.color_modes == ("xy", "color_temp")
    assert (bulb.caps.min_kelvin, bulb.caps.max_kelvin) == (2202, 4000)
    assert bulb.caps.effects == ("blink", "breathe", "colorloop")
    assert bulb.features == ["brightness", "color", "color_temp", "effect"]
    assert announced("light", JSON["removed rgb flag"]).caps.color_modes == ("brightness",)
    assert announced("light", JSON["removed xy flag"]).caps.color_modes == ("onoff",)
    with pytest.raises(Unsupported):
        sent(announced("light", JSON["removed rgb flag"]), Act("set_color", color=RED))
    with pytest.raises(Unsupported):
        sent(announced("light", JSON["onoff"]), Act("set_brightness", brightness=10))


JSON_READINGS = [
    (
        '{"state":"ON","brightness":254,"color_mode":"color_temp","color_temp":370}',
        {
            "state": "on",
            "brightness": 100,
            "brightness_level": 255,
            "color_mode": "color_temp",
            "kelvin": 2702,
            "color_temp": 370,
        },
    ),
    ('{"state":"OFF"}', {"state": "off"}),
    (
        '{"state":"ON","color_mode":"xy","color":{"x":0.7,"y":0.3},"effect":"blink"}',
        {"state": "on", "color_mode": "xy", "color": {"x": 0.7, "y": 0.3}, "effect": "blink"},
    ),
    ('{"state":null}', {"state": None}),
]


@pytest.mark.parametrize(("payload", "values"), JSON_READINGS)
def test_json_schema_readings(payload: str, values: dict[str, Any]) -> None:
    assert read(announced("light", JSON["z2m"]), "state", payload) == values


# --------------------------------------------------------------------------- template

SHELLY = {
    "schema": "template",
    "name": "Shelly Bulb",
    "command_topic": "shellies/bulb/color/0/set",
    "state_topic": "shellies/bulb/color/0/status",
    "command_on_template": '{"turn": "on"{% if brightness is defined %}, "gain": {{ brightness'
    " | float | multiply(0.3922) | round(0) }}{% endif %}{% if red is defined and green is"
    ' defined and blue is defined %}, "red": {{ red }}, "green": {{ green }}, "blue": {{ blue'
    " }}{% endif %}}",
    "command_off_template": '{"turn":"off"}',
    "state_template": "{% if value_json.ison %}on{% else %}off{% endif %}",
    "brightness_template": "{{ value_json.gain | float | multiply(2.55) | round(0) }}",
    "red_template": "{{ value_json.red }}",
    "green_template": "{{ value_json.green }}",
    "blue_template": "{{ value_json.blue }}",
}


@pytest.mark.parametrize(
    ("act", "payload"),
    [
        (Act("turn_on"), '{"turn": "on"}'),
        (Act("turn_off"), '{"turn":"off"}'),
        (Act("set_brightness", brightness=50), '{"turn": "on", "gain": 50}'),
        (Act("set_color", color=RED), '{"turn": "on", "red": 255, "green": 0, "blue": 0}'),
    ],
)
def test_template_schema_commands(act: Act, payload: str) -> None:
    assert sent(announced("light", SHELLY), act) == [
        ("shellies/bulb/color/0/set", payload, 0, False)
    ]


def test_template_schema_reading() -> None:
    device = announced("light", SHELLY)
    assert device.caps.color_modes == ("hs",)
    payload = '{"ison": true, "gain": 50, "red": 255, "green": 0, "blue": 0}'
    assert read(device, "state", payload) == {
        "state": "on",
        "brightness": 50,
        "brightness_level": 127,  # 50 * 2.55 is 127.4999... in floating point, as in HA
        "color": {"r": 255, "g": 0, "b": 0},
    }
    assert read(device, "state", '{"ison": false, "gain": 0}')["state"] == "off"
