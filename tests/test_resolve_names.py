"""Entity resolution over a home of clashing names: the intent and the exact device ids.

Names are matched as spoken (case, underscores, hyphens, digits, "the"); a
name two devices share is narrowed by area, else asked about; a type word
means devices of that type, never a device merely named like it; fuzzy
matching never swaps one known name for another, never hears a name in a
word of its own meaning, and asks when two names are too close to call.
"""

from __future__ import annotations

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry, name_key
from mnemolis.understand import Understander
from tests.support_targets import (
    clashing_understander,
    only_part,
    option_ids,
    part_ids,
)


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    return clashing_understander(config)


LAMPS = [
    "light_bedside_left",
    "light_bedside_right",
    "light_desk",
    "light_lamp_1",
    "light_lamp_2",
    "light_living_lamp",
]

# (text, intent, device ids acted on or asked about, ids offered in a "which one")
ROWS: list[tuple[str, str, list[str], list[str]]] = [
    # names as spoken
    ("turn on the bulb enddevice", "device.turn_on", ["light_bulb_enddevice"], []),
    ("turn on the bulb_enddevice", "device.turn_on", ["light_bulb_enddevice"], []),
    ("Turn On The Bulb_EndDevice", "device.turn_on", ["light_bulb_enddevice"], []),
    ("turn on the bulb", "device.turn_on", ["light_bulb"], []),
    ("turn on lamp two", "device.turn_on", ["light_lamp_2"], []),
    ("turn on lamp 2", "device.turn_on", ["light_lamp_2"], []),
    ("switch off lamp one", "device.turn_off", ["light_lamp_1"], []),
    # a number is said exactly: "lamp 3" is neither lamp heard wrong, so which lamp?
    ("switch off lamp 3", "device.turn_off", [], LAMPS),
    ("switch off lamp three", "device.turn_off", [], LAMPS),
    ("turn on the desk lamp", "device.turn_on", ["light_desk"], []),
    ("turn on the hall way spot", "device.turn_on", ["light_hall_spot"], []),
    ("turn on the hall-way spot", "device.turn_on", ["light_hall_spot"], []),
    # two devices called "ceiling light"
    ("turn on the kitchen ceiling light", "device.turn_on", ["light_kitchen_ceiling"], []),
    ("turn on the ceiling light in the bedroom", "device.turn_on", ["light_bedroom_ceiling"], []),
    (
        "turn on the ceiling light",
        "device.turn_on",
        [],
        ["light_bedroom_ceiling", "light_kitchen_ceiling"],
    ),
    # a type word means that type: not the binary sensor called "light"
    (
        "kitchen lights on",
        "device.turn_on",
        ["light_kitchen_ceiling", "light_kitchen_counter"],
        [],
    ),
    (
        "turn on the lights in the office",
        "device.turn_on",
        ["light_desk", "light_lamp_1", "light_lamp_2"],
        [],
    ),
    # a type word with an area means all of that type there
    (
        "turn on the office light",
        "device.turn_on",
        ["light_desk", "light_lamp_1", "light_lamp_2"],
        [],
    ),
    ("is the office light on", "device.state", ["bs_office_light"], []),
    ("kitchen fans on", "device.turn_on", ["fan_kitchen"], []),
    ("turn on the fan in the living room", "device.turn_on", ["fan_living"], []),
    # "the blinds" are the blinds, not the garage door
    ("close the blinds", "device.close", ["cover_living_blinds", "cover_office_blinds"], []),
    ("close the blind", "device.close", [], ["cover_living_blinds", "cover_office_blinds"]),
    ("switch off the right bedside lamp", "device.turn_off", ["light_bedside_right"], []),
    (
        "turn on the bedside lamps",
        "device.turn_on",
        ["light_bedside_left", "light_bedside_right"],
        [],
    ),
    ("turn on the bulb end", "device.turn_on", [], ["light_bulb", "light_bulb_enddevice"]),
    # an area alone is its lights (the motion sensor called "garden" is not among them)
    ("turn on the garden", "device.turn_on", ["light_garden_a", "light_garden_b"], []),
    ("close the office blinds", "device.close", ["cover_office_blinds"], []),
    # fuzzy: a name heard slightly wrong, and never another known name
    ("turn on the kitchen extracter", "device.turn_on", ["fan_kitchen"], []),
    ("turn on the bulb enddevise", "device.turn_on", ["light_bulb_enddevice"], []),
    ("turn on the garden light c", "device.turn_on", [], ["light_garden_a", "light_garden_b"]),
    # a device named exactly wins wherever it is
    ("turn on the living room lamp", "device.turn_on", ["light_living_lamp"], []),
    ("unlock the back door", "device.unlock", ["lock_back"], []),
]


@pytest.mark.parametrize(("text", "intent", "ids", "options"), ROWS)
def test_resolution(
    home: Understander, text: str, intent: str, ids: list[str], options: list[str]
) -> None:
    part = only_part(home.understand(text))
    assert part.intent == intent, part.to_dict()
    assert part_ids(home.registry, part) == sorted(ids), part.to_dict()
    assert option_ids(home.registry, part) == sorted(options), part.to_dict()


def test_a_close_call_is_asked_by_name(home: Understander) -> None:
    plan = home.understand("turn on the ceiling light")
    assert plan.clarify is not None
    assert "kitchen ceiling light" in plan.clarify and "bedroom ceiling light" in plan.clarify


@pytest.mark.parametrize(
    "text",
    ["open the blinds halfway", "close the office blinds halfway", "make it hot in here"],
)
def test_words_of_their_own_are_no_area(home: Understander, text: str) -> None:
    """ "halfway" is not the "hallway", "hot" no device: fuzzy never hears a name in them."""
    for part in home.understand(text).parts():
        assert part.slots.get("room") != "hallway", part.to_dict()
        assert "light_hall_spot" not in part_ids(home.registry, part), part.to_dict()
        assert "bs_hall_motion" not in part_ids(home.registry, part), part.to_dict()


def test_labels_lead_back_to_one_device() -> None:
    """What understanding puts in a slot is unique: a shared name gets its area, a
    name shared in one area gets the id."""
    registry = DeviceRegistry(
        [
            Device("ceiling light", "light", "kitchen", id="a"),
            Device("ceiling light", "light", "bedroom", id="b"),
            Device("spot", "light", "hall", id="c"),
            Device("spot", "light", "hall", id="d"),
            Device("porch light", "light", None, id="e"),
        ]
    )
    labels = {d.id: registry.label(d) for d in registry.devices()}
    assert labels == {
        "a": "kitchen ceiling light",
        "b": "bedroom ceiling light",
        "c": "c",
        "d": "d",
        "e": "porch light",
    }
    for device in registry.devices():
        label = labels[device.id]
        found = registry.get(label) or registry.by_name(label)
        assert found is not None and found.id == device.id
    assert {d.id for d in registry.named("the Ceiling_Light")} == {"a", "b"}


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("The Bulb_EndDevice", "bulb enddevice"),
        ("hall-way  spot", "hall way spot"),
        ("the", "the"),
        ("Theatre light", "theatre light"),
    ],
)
def test_name_key(said: str, key: str) -> None:
    assert name_key(said) == key
