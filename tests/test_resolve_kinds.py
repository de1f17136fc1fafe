"""The device acted on is of the kind asked (understand/kinds.py): a type word, the
intent's verb, a question's state word or the value said picks the kind, even where
a device of another kind has a name that overlaps more words.

The home: a light called "hall ceiling" under a fan called "ceiling fan"; a door
contact "back door" next to the "back door lock"; a plug "white noise machine" and
its select "white noise machine sound"; a number "cat feeder portions"; a switch
called "dehumidifier" in a home whose only humidifier is another.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Capabilities, Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.support_targets import home_config, only_part, option_ids, part_ids


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


DEVICES = [
    _d("light_hall_ceiling", "hall ceiling", "light", "hall", features=["brightness"]),
    _d("light_hall_lamp", "hall lamp", "light", "hall", features=["brightness"]),
    _d("fan_hall", "ceiling fan", "fan", "hall", features=["percentage", "preset"]),
    _d("fan_bedroom", "ceiling fan", "fan", "bedroom", features=["percentage"]),
    _d("bs_back_door", "back door", "binary_sensor", "kitchen", device_class="door"),
    _d("lock_back", "back door lock", "lock", "kitchen"),
    _d("battery_back", "back door lock battery", "sensor", "kitchen", device_class="battery"),
    _d("plug_noise", "white noise machine", "switch", "nursery"),
    _d(
        "select_noise",
        "white noise machine sound",
        "select",
        "nursery",
        caps=Capabilities(options=("Rain", "Waves")),
    ),
    _d(
        "number_portions",
        "cat feeder portions",
        "number",
        "kitchen",
        caps=Capabilities(minimum=1, maximum=10, step=1),
    ),
    _d("switch_dehumidifier", "dehumidifier", "switch", "cellar"),
    _d("humidifier_bedroom", "bedroom humidifier", "humidifier", "bedroom"),
    _d("bs_washer", "washer running", "binary_sensor", "cellar", device_class="running"),
    _d("cover_study", "study blinds", "cover", "study", device_class="blind"),
    _d("cover_awning", "patio awning", "cover", "patio", device_class="awning"),
]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry(list(DEVICES))
    for room in ("hall", "bedroom", "kitchen", "nursery", "cellar", "study", "patio"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


# (text, intent, device ids acted on or asked about, ids offered, slots other than device)
ROWS: list[tuple[str, str, list[str], list[str], dict[str, Any]]] = [
    # a type word after a name of another kind: the fan, not the light "hall ceiling"
    ("turn off the hall ceiling fan", "device.turn_off", ["fan_hall"], [], {}),
    ("set the hall ceiling fan to 40%", "device.set_speed", ["fan_hall"], [], {"percentage": 40}),
    ("turn off the hall ceiling", "device.turn_off", ["light_hall_ceiling"], [], {}),
    ("dim the hall ceiling to 30%", "device.set_brightness", ["light_hall_ceiling"], [], {}),
    # a lock verb or a lock state means the lock named with the words said
    ("lock the back door", "device.lock", ["lock_back"], [], {}),
    ("unlock the back door", "device.unlock", ["lock_back"], [], {}),
    ("is the back door locked", "device.state", ["lock_back"], [], {"state": "locked"}),
    # ... while a contact can be open: it is asked
    ("is the back door open", "device.state", ["bs_back_door"], [], {"state": "open"}),
    # an option of a select: the select of the device named, not its plug
    (
        "change the white noise machine to waves",
        "device.select_option",
        ["select_noise"],
        [],
        {"option": "Waves"},
    ),
    ("turn on the white noise machine", "device.turn_on", ["plug_noise"], [], {}),
    # a number's name words: the number, never the lights a brightness implies
    (
        "set the cat feeder portions to four",
        "device.set_value",
        ["number_portions"],
        [],
        {"value": 4},
    ),
    # a switch called like another type's word is meant by it
    ("is the dehumidifier running", "device.state", ["switch_dehumidifier"], [], {}),
    ("turn off the dehumidifier", "device.turn_off", ["switch_dehumidifier"], [], {}),
    # cover verbs
    ("turn the study blinds down", "device.close", ["cover_study"], [], {}),
    ("extend the patio awning", "device.open", ["cover_awning"], [], {}),
    ("retract the awning", "device.close", ["cover_awning"], [], {}),
]


@pytest.mark.parametrize(("text", "intent", "ids", "options", "slots"), ROWS)
def test_kind(
    home: Understander,
    text: str,
    intent: str,
    ids: list[str],
    options: list[str],
    slots: dict[str, Any],
) -> None:
    part = only_part(home.understand(text))
    assert part.intent == intent, part.to_dict()
    assert part_ids(home.registry, part) == sorted(ids), part.to_dict()
    assert option_ids(home.registry, part) == sorted(options), part.to_dict()
    for name, value in slots.items():
        assert part.slots.get(name) == value, part.to_dict()


def test_a_wrong_kind_with_no_stand_in_acts_on_nothing_else(home: Understander) -> None:
    """ "lock the study blinds": no lock is named like them; no other device is taken."""
    part = only_part(home.understand("lock the study blinds"))
    assert "lock_back" not in part_ids(home.registry, part), part.to_dict()
