"""Values decided by the device's type, over a house of our own.

Each row is a sentence, the intent it must reach, the exact devices (ids) and
the exact values. The house has what makes "50 percent" mean different things:
lights with and without brightness and colour temperature, covers with and
without a position, fans with percentages and with presets, climates with
modes, and the other types discovery defines (valve, siren, humidifier, water
heater, lawn mower, scene, button, select, number).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import Config
from mnemolis.core.devices import Capabilities, Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.understand import Understander

ROOMS = (
    "kitchen",
    "living room",
    "bedroom",
    "office",
    "garden",
    "garage",
    "bathroom",
    "hallway",
    "utility room",
)


def _d(id: str, name: str, kind: str, room: str | None, *features: str, **caps: Any) -> Device:
    aliases = caps.pop("aliases", [])
    device_class = caps.pop("device_class", None)
    return Device(
        name=name,
        type=kind,
        room=room,
        id=id,
        features=list(features),
        aliases=aliases,
        device_class=device_class,
        caps=Capabilities(**caps),
        origin="homeassistant",
    )


HOUSE = [
    _d(
        "light.kitchen_ceiling",
        "kitchen ceiling",
        "light",
        "kitchen",
        "brightness",
        "color",
        "color_temp",
    ),
    _d("light.desk_lamp", "desk lamp", "light", "office", "brightness"),
    _d(
        "light.reading_lamp",
        "reading lamp",
        "light",
        "living room",
        "brightness",
        "color_temp",
        min_kelvin=2200,
        max_kelvin=6500,
    ),
    _d("light.led_strip", "led strip", "light", "living room", "brightness", "color"),
    _d("light.porch", "porch light", "light", None),
    _d(
        "cover.living_room_blinds", "living room blinds", "cover", "living room", "position", "stop"
    ),
    _d("cover.bedroom_shutters", "bedroom shutters", "cover", "bedroom", "position", "tilt"),
    _d("cover.garage_door", "garage door", "cover", "garage", device_class="garage"),
    _d("valve.main", "main valve", "valve", "utility room", aliases=["water main"]),
    _d("valve.sprinkler", "sprinkler valve", "valve", "garden", "position"),
    _d(
        "fan.ceiling",
        "ceiling fan",
        "fan",
        "bedroom",
        "percentage",
        "preset",
        preset_modes=("auto", "smart", "whoosh", "eco", "breeze"),
        speed_count=10,
    ),
    _d("fan.desk", "desk fan", "fan", "office", "percentage", speed_count=3),
    _d(
        "fan.bathroom",
        "bathroom fan",
        "fan",
        "bathroom",
        "percentage",
        "preset",
        preset_modes=("low", "medium", "high"),
    ),
    _d(
        "climate.hallway",
        "hallway thermostat",
        "climate",
        "hallway",
        "target_temperature",
        aliases=["thermostat"],
        modes=("off", "heat", "cool", "auto"),
        minimum=5,
        maximum=30,
    ),
    _d(
        "climate.aircon",
        "aircon",
        "climate",
        "bedroom",
        "target_temperature",
        "fan_mode",
        modes=("auto", "off", "cool", "heat", "dry", "fan_only"),
    ),
    _d(
        "humidifier.bedroom",
        "bedroom humidifier",
        "humidifier",
        "bedroom",
        "humidity",
        "mode",
        modes=("normal", "eco", "away", "boost", "comfort", "home", "sleep", "auto", "baby"),
        minimum=30,
        maximum=80,
    ),
    _d(
        "water_heater.boiler",
        "boiler",
        "water_heater",
        "utility room",
        "target_temperature",
        "mode",
        modes=("off", "eco", "performance"),
        minimum=43,
        maximum=60,
    ),
    _d("lawn_mower.mower", "robot mower", "lawn_mower", "garden", "start", "pause", "return_home"),
    _d("siren.alarm", "alarm siren", "siren", "hallway", "tones", tones=("ping", "siren")),
    _d("scene.dinner_party", "dinner party", "scene", "living room"),
    _d("scene.movie_night", "movie night", "scene", "living room"),
    _d("button.doorbell", "doorbell", "button", "hallway"),
    _d("button.router_restart", "router restart", "button", "office", aliases=["router"]),
    _d(
        "select.washer_program",
        "washer program",
        "select",
        "utility room",
        options=("eco", "cotton", "quick wash", "wool"),
    ),
    _d("number.pump_speed", "pump speed", "number", "garden", minimum=1, maximum=5, step=1),
    _d("lock.front_door", "front door", "lock", "hallway"),
    _d("switch.kettle", "kettle", "switch", "kitchen"),
    # the readings of devices that act: "how much power is the kettle using"
    _d("sensor.kettle_power", "kettle power", "sensor", "kitchen", device_class="power"),
    _d(
        "sensor.front_door_battery",
        "front door battery",
        "sensor",
        "hallway",
        device_class="battery",
    ),
    _d("cover.awning", "awning", "cover", "garden", "position", device_class="awning"),
]

# (sentence, intent, device ids, values)
ROWS: list[tuple[str, str, list[str], dict[str, Any]]] = [
    # one "50 percent", four quantities
    (
        "set the living room blinds to 50 percent",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"position": 50},
    ),
    ("set the ceiling fan to 50 percent", "device.set_speed", ["fan.ceiling"], {"percentage": 50}),
    (
        "set the desk lamp to 50 percent",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 50},
    ),
    (
        "set the bedroom humidifier to 45 percent",
        "device.set_humidity",
        ["humidifier.bedroom"],
        {"humidity": 45},
    ),
    (
        "set the sprinkler valve to 40 percent",
        "device.set_position",
        ["valve.sprinkler"],
        {"position": 40},
    ),
    ("set the pump speed to 3", "device.set_value", ["number.pump_speed"], {"value": 3}),
    (
        "bedroom shutters to 30%",
        "device.set_position",
        ["cover.bedroom_shutters"],
        {"position": 30},
    ),
    (
        "set the garage door to 100 percent",
        "device.set_position",
        ["cover.garage_door"],
        {"position": 100},
    ),
    # positions in words, not the hallway
    (
        "open the living room blinds halfway",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"position": 50},
    ),
    (
        "open the bedroom shutters a bit",
        "device.set_position",
        ["cover.bedroom_shutters"],
        {"step": 10},
    ),
    (
        "lower the living room blinds a bit",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"step": -10},
    ),
    ("open the living room blinds", "device.open", ["cover.living_room_blinds"], {}),
    # brightness
    ("set the desk lamp to max", "device.set_brightness", ["light.desk_lamp"], {"brightness": 100}),
    (
        "set the desk lamp to minimum",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 1},
    ),
    ("dim the desk lamp to half", "device.set_brightness", ["light.desk_lamp"], {"brightness": 50}),
    (
        "make the desk lamp a bit brighter",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"step": 10},
    ),
    (
        "turn up the desk lamp by 10 percent",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"step": 10},
    ),
    (
        "dim the kitchen ceiling by 20 percent",
        "device.set_brightness",
        ["light.kitchen_ceiling"],
        {"step": -20},
    ),
    (
        "set the kitchen ceiling to 75%",
        "device.set_brightness",
        ["light.kitchen_ceiling"],
        {"brightness": 75},
    ),
    ("turn the desk lamp up by 10", "device.set_brightness", ["light.desk_lamp"], {"step": 10}),
    ("desk lamp at half", "device.set_brightness", ["light.desk_lamp"], {"brightness": 50}),
    (
        "set brightness to 40 percent in the office",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 40},
    ),
    (
        "set the thermostat at 21",
        "device.set_temperature",
        ["climate.hallway"],
        {"temperature": 21},
    ),
    # colour temperature
    ("make the reading lamp warmer", "device.set_color_temp", ["light.reading_lamp"], {}),
    (
        "set the reading lamp to warm white",
        "device.set_color_temp",
        ["light.reading_lamp"],
        {"color_temp": 2700},
    ),
    (
        "set the reading lamp to daylight",
        "device.set_color_temp",
        ["light.reading_lamp"],
        {"color_temp": 6500},
    ),
    (
        "set the kitchen ceiling to 4000 kelvin",
        "device.set_color_temp",
        ["light.kitchen_ceiling"],
        {"color_temp": 4000},
    ),
    (
        "make the reading lamp cool white",
        "device.set_color_temp",
        ["light.reading_lamp"],
        {"color_temp": 5000},
    ),
    (
        "set the led strip to warm white",
        "device.set_color",
        ["light.led_strip"],
        {"color": "warm white"},
    ),
    ("turn the led strip blue", "device.set_color", ["light.led_strip"], {"color": "blue"}),
    # fans: percent, words, presets
    ("set the desk fan to low", "device.set_speed", ["fan.desk"], {"percentage": 33}),
    ("set the desk fan to full speed", "device.set_speed", ["fan.desk"], {"percentage": 100}),
    ("set the bathroom fan to low", "device.set_speed", ["fan.bathroom"], {"preset": "low"}),
    ("set the ceiling fan to whoosh", "device.set_speed", ["fan.ceiling"], {"preset": "whoosh"}),
    (
        "put the ceiling fan on breeze mode",
        "device.set_speed",
        ["fan.ceiling"],
        {"preset": "breeze"},
    ),
    ("set the ceiling fan to half speed", "device.set_speed", ["fan.ceiling"], {"percentage": 50}),
    # a bare number up to a fan's speed count is one of its speeds
    ("set the desk fan to 2", "device.set_speed", ["fan.desk"], {"percentage": 67}),
    ("set the desk fan to speed 3", "device.set_speed", ["fan.desk"], {"percentage": 100}),
    ("set the desk fan to 2 percent", "device.set_speed", ["fan.desk"], {"percentage": 2}),
    # climate and friends
    (
        "set the hallway thermostat to twenty point five degrees",
        "device.set_temperature",
        ["climate.hallway"],
        {"temperature": 20.5},
    ),
    (
        "set the thermostat to 21.5",
        "device.set_temperature",
        ["climate.hallway"],
        {"temperature": 21.5},
    ),
    (
        "turn the thermostat up by 2 degrees",
        "device.set_temperature",
        ["climate.hallway"],
        {"step": 2},
    ),
    (
        "turn down the thermostat by 1 degree",
        "device.set_temperature",
        ["climate.hallway"],
        {"step": -1},
    ),
    ("set the thermostat to cool", "device.set_mode", ["climate.hallway"], {"mode": "cool"}),
    ("put the aircon in dry mode", "device.set_mode", ["climate.aircon"], {"mode": "dry"}),
    ("set the aircon to fan only", "device.set_mode", ["climate.aircon"], {"mode": "fan_only"}),
    ("set the thermostat to heat", "device.set_mode", ["climate.hallway"], {"mode": "heat"}),
    (
        "put the bedroom humidifier in sleep mode",
        "device.set_mode",
        ["humidifier.bedroom"],
        {"mode": "sleep"},
    ),
    ("set the boiler to eco", "device.set_mode", ["water_heater.boiler"], {"mode": "eco"}),
    (
        "set the boiler to 55 degrees",
        "device.set_temperature",
        ["water_heater.boiler"],
        {"temperature": 55},
    ),
    ("turn on the bedroom humidifier", "device.turn_on", ["humidifier.bedroom"], {}),
    # the other types
    ("activate dinner party", "device.activate", ["scene.dinner_party"], {}),
    ("dinner party scene on", "device.activate", ["scene.dinner_party"], {}),
    ("turn on the dinner party scene", "device.activate", ["scene.dinner_party"], {}),
    # a scene named like a shipped routine's phrase is the scene
    ("activate movie night", "device.activate", ["scene.movie_night"], {}),
    ("start the movie night scene", "device.activate", ["scene.movie_night"], {}),
    ("press the doorbell", "device.press", ["button.doorbell"], {}),
    ("restart the router", "device.press", ["button.router_restart"], {}),
    ("open the main valve", "device.open", ["valve.main"], {}),
    ("close the water main", "device.close", ["valve.main"], {}),
    ("turn off the main valve", "device.close", ["valve.main"], {}),
    ("turn on the water main", "device.open", ["valve.main"], {}),
    ("send the mower back to its dock", "device.stop", ["lawn_mower.mower"], {}),
    ("turn the desk fan up", "device.set_speed", ["fan.desk"], {}),
    ("put the desk fan on high", "device.set_speed", ["fan.desk"], {"percentage": 100}),
    (
        "put the desk lamp on full",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 100},
    ),
    ("put the desk lamp on", "device.turn_on", ["light.desk_lamp"], {}),
    (
        "turn the thermostat down by one degree",
        "device.set_temperature",
        ["climate.hallway"],
        {"step": -1},
    ),
    ("sound the siren", "device.turn_on", ["siren.alarm"], {}),
    ("turn off the alarm siren", "device.turn_off", ["siren.alarm"], {}),
    ("start mowing", "device.start", ["lawn_mower.mower"], {}),
    ("start the robot mower", "device.start", ["lawn_mower.mower"], {}),
    ("send the mower home", "device.stop", ["lawn_mower.mower"], {}),
    (
        "set the washer program to eco",
        "device.select_option",
        ["select.washer_program"],
        {"option": "eco"},
    ),
    (
        "set the washer program to quick wash",
        "device.select_option",
        ["select.washer_program"],
        {"option": "quick wash"},
    ),
    # the opposite of locking
    ("disengage the front door lock", "device.unlock", ["lock.front_door"], {}),
    ("release the front door lock", "device.unlock", ["lock.front_door"], {}),
    ("lock the front door", "device.lock", ["lock.front_door"], {}),
    # fractions said as words
    (
        "dim the desk lamp to a quarter",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 25},
    ),
    (
        "set the reading lamp to three quarters",
        "device.set_brightness",
        ["light.reading_lamp"],
        {"brightness": 75},
    ),
    (
        "open the living room blinds two thirds",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"position": 67},
    ),
    # a fan's own preset is its speed, whatever "put ... in" or "mode" say
    (
        "put the fan in the bedroom on whoosh mode",
        "device.set_speed",
        ["fan.ceiling"],
        {"preset": "whoosh"},
    ),
    (
        "turn the hallway thermostat down 2 degrees",
        "device.set_temperature",
        ["climate.hallway"],
        {"step": -2},
    ),
    # a state asked in the words of the device's kind
    ("is the hallway thermostat on heat", "device.state", ["climate.hallway"], {"state": "heat"}),
    ("is the aircon on cool", "device.state", ["climate.aircon"], {"state": "cool"}),
    ("is the aircon on", "device.state", ["climate.aircon"], {"state": "on"}),
    ("is the awning out", "device.state", ["cover.awning"], {"state": "open"}),
    ("is the awning retracted", "device.state", ["cover.awning"], {"state": "closed"}),
    ("is the porch light out", "device.state", ["light.porch"], {"state": "off"}),
    ("turn the living room blinds down", "device.close", ["cover.living_room_blinds"], {}),
    (
        "turn the living room blinds down by 20 percent",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"step": -20},
    ),
    ("extend the awning", "device.open", ["cover.awning"], {}),
    ("retract the awning", "device.close", ["cover.awning"], {}),
    ("did i lock the front door", "device.state", ["lock.front_door"], {"state": "locked"}),
    (
        "change the temperature in the hallway to 19",
        "device.set_temperature",
        ["climate.hallway"],
        {"temperature": 19},
    ),
    # a reading of a device that acts is its sensor of the class said
    ("how much power is the kettle using", "sensor.read", ["sensor.kettle_power"], {}),
    ("what's the battery of the front door", "sensor.read", ["sensor.front_door_battery"], {}),
]

#: The value slots rows compare: any other one the part carries is a mistake.
VALUE_SLOTS = (
    "brightness",
    "position",
    "percentage",
    "temperature",
    "humidity",
    "value",
    "step",
    "color",
    "color_temp",
    "mode",
    "preset",
    "option",
    "state",
)


@pytest.fixture(scope="module")
def registry() -> DeviceRegistry:
    registry = DeviceRegistry(HOUSE)
    for room in ROOMS:
        registry.add_room(room)
    return registry


@pytest.fixture(scope="module")
def house(config: Config, registry: DeviceRegistry) -> Understander:
    return Understander(dataclasses.replace(config, devices=[]), registry)


def _ids(registry: DeviceRegistry, value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value] if value else []
    out = []
    for v in values:
        device = registry.get(v) or registry.by_name(v)
        out.append(device.id if device is not None else f"?{v}")
    return sorted(out)


def _one(house: Understander, text: str) -> Part:
    plan = house.understand(text)
    parts = plan.parts()
    assert len(parts) == 1, [p.to_dict() for p in parts]
    return parts[0]


@pytest.mark.parametrize(("text", "intent", "ids", "values"), ROWS, ids=[r[0] for r in ROWS])
def test_the_value_is_the_device_types(
    house: Understander,
    registry: DeviceRegistry,
    text: str,
    intent: str,
    ids: list[str],
    values: dict[str, Any],
) -> None:
    part = _one(house, text)
    got_values = {k: part.slots[k] for k in VALUE_SLOTS if k in part.slots}
    assert (part.intent, _ids(registry, part.slots.get("device")), got_values) == (
        intent,
        sorted(ids),
        values,
    )


def test_the_rows_cover_every_new_intent(config: Config) -> None:
    asked = {row[1] for row in ROWS}
    new = {
        "device.set_position",
        "device.set_speed",
        "device.set_color_temp",
        "device.set_mode",
        "device.set_humidity",
        "device.activate",
        "device.press",
        "device.select_option",
        "device.set_value",
    }
    assert new <= set(config.intents)
    assert new <= asked


def test_a_time_is_still_a_time(house: Understander) -> None:
    """ "at 10" after an action with no value of its own is when to do it."""
    part = _one(house, "turn off the desk lamp at 10 pm")
    assert (part.intent, part.slots.get("device")) == ("device.turn_off", "desk lamp")
    assert part.schedule is not None and part.schedule.hour == 22
    part = _one(house, "set the thermostat to 18 at 10 pm")
    assert part.slots.get("temperature") == 18
    assert part.schedule is not None and part.schedule.hour == 22


def _quantities(config: Config, kind: str) -> set[str]:
    """The value slots the intents give a device type."""
    return {
        slot
        for spec in config.intents.values()
        if spec.source == "mqtt" and kind in spec.device_types
        for slot in spec.slots
        if slot in VALUE_SLOTS
    }


SETTABLE = [d for d in HOUSE if d.type not in ("scene", "button")]


@given(
    device=st.sampled_from(SETTABLE),
    amount=st.integers(min_value=1, max_value=99),
    unit=st.sampled_from(["percent", "%", "degrees", ""]),
    frame=st.sampled_from(["set the {name} to {n}", "{name} to {n}", "set the {name} at {n}"]),
)
def test_a_number_is_never_sent_as_a_quantity_the_device_does_not_have(
    house: Understander,
    config: Config,
    device: Device,
    amount: int,
    unit: str,
    frame: str,
) -> None:
    text = frame.format(name=device.name, n=f"{amount} {unit}".strip())
    for part in house.understand(text).parts():
        spec = config.intent(part.intent)
        if spec is None:
            continue
        said = {k for k in VALUE_SLOTS if k in part.slots and k != "step"}
        if said and device.type in spec.device_types:
            assert said <= _quantities(config, device.type), (text, part.to_dict())
        if unit in ("percent", "%"):
            assert "temperature" not in said, (text, part.to_dict())
        if unit == "degrees" and device.type in ("light", "cover", "valve", "fan"):
            assert not said & {"brightness", "position", "percentage"}, (text, part.to_dict())


# (sentence, the second part's intent, its device ids, its values): a pronoun names the
# device, and the value is then the device type's
PRONOUN_ROWS: list[tuple[str, str, list[str], dict[str, Any]]] = [
    (
        "turn on the desk fan and set it to 25 percent",
        "device.set_speed",
        ["fan.desk"],
        {"percentage": 25},
    ),
    (
        "open the living room blinds and set them to 40 percent",
        "device.set_position",
        ["cover.living_room_blinds"],
        {"position": 40},
    ),
    ("turn on the desk fan and turn it up a bit", "device.set_speed", ["fan.desk"], {"step": 10}),
    (
        "turn on the desk lamp and set it to 30 percent",
        "device.set_brightness",
        ["light.desk_lamp"],
        {"brightness": 30},
    ),
]


@pytest.mark.parametrize(
    ("text", "intent", "ids", "values"), PRONOUN_ROWS, ids=[r[0] for r in PRONOUN_ROWS]
)
def test_a_pronoun_names_the_device_and_the_value_follows_its_type(
    house: Understander,
    registry: DeviceRegistry,
    text: str,
    intent: str,
    ids: list[str],
    values: dict[str, Any],
) -> None:
    parts = house.understand(text).parts()
    assert len(parts) == 2, [p.to_dict() for p in parts]
    part = parts[1]
    got_values = {k: part.slots[k] for k in VALUE_SLOTS if k in part.slots}
    assert (part.intent, _ids(registry, part.slots.get("device")), got_values) == (
        intent,
        sorted(ids),
        values,
    )


def test_a_value_of_other_units_is_not_moved_onto_the_device(house: Understander) -> None:
    """ "22 degrees" for a fan stays a temperature: the source declines it by name."""
    part = house.understand("turn on the desk fan and set it to 22 degrees").parts()[1]
    assert part.slots.get("device") == "desk fan"
    assert "percentage" not in part.slots


@pytest.mark.parametrize(
    "text",
    [
        "what's the humidity in the bedroom",
        "what is the boiler set to",
        "what is the washer program set to",
        "what temperature is the boiler set to",
        "what mode is the aircon set to",
    ],
)
def test_asking_what_a_value_is_sets_nothing(
    house: Understander, config: Config, text: str
) -> None:
    """The set-to phrases ("set ... to", "humidity") never make a question a command."""
    for part in house.understand(text).parts():
        spec = config.intent(part.intent)
        assert spec is None or spec.action in (None, "state"), (text, part.to_dict())


@given(
    device=st.sampled_from([d for d in HOUSE if "position" in d.features]),
    frame=st.sampled_from(
        [
            "open the {name} halfway",
            "set the {name} halfway",
            "{name} halfway",
            "move the {name} half way",
        ]
    ),
)
def test_halfway_is_a_position_never_the_hallway(
    house: Understander, device: Device, frame: str
) -> None:
    text = frame.format(name=device.name)
    part = _one(house, text)
    assert part.slots.get("room") != "hallway", (text, part.to_dict())
    assert (part.intent, part.slots.get("device"), part.slots.get("position")) == (
        "device.set_position",
        device.name,
        50,
    ), (text, part.to_dict())
