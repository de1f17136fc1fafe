"""A device named after its room ("shelly1pm-kitchen", "esp32 garage") lends the room's
word no noun of its own: "what's on in the kitchen" is every device in the kitchen, not
that one light because its name ends with "kitchen". A device called just "Kitchen"
keeps its noun (the second home's convention: "turn on the kitchen" is its lights).
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander
from tests.support_targets import home_config, only_part, part_ids


def _d(ident: str, name: str, dtype: str, room: str | None, **kw: Any) -> Device:
    return Device(name=name, type=dtype, room=room, id=ident, **kw)


DEVICES = [
    _d("shelly_kitchen", "shelly1pm-kitchen", "light", "kitchen"),
    _d("counter", "Counter Lights", "light", "kitchen"),
    _d("kettle", "Kettle", "switch", "kitchen"),
    _d("esp_garage", "esp32 garage", "light", "garage"),
    _d("garage_plug", "Garage Fridge", "switch", "garage"),
    _d("sofa", "Sofa Light", "light", "lounge"),
]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry(list(DEVICES))
    for room in ("kitchen", "garage", "lounge"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


@pytest.mark.parametrize(
    ("text", "intent", "ids"),
    [
        ("what's on in the kitchen", "device.which", ["counter", "kettle", "shelly_kitchen"]),
        ("is anything on in the kitchen", "device.state", ["counter", "kettle", "shelly_kitchen"]),
        (
            "turn off everything in the kitchen",
            "device.turn_off",
            ["counter", "kettle", "shelly_kitchen"],
        ),
        ("turn on the esp32 garage", "device.turn_on", ["esp_garage"]),
        ("switch off the shelly1pm kitchen", "device.turn_off", ["shelly_kitchen"]),
        ("turn on the lights in the garage", "device.turn_on", ["esp_garage"]),
    ],
)
def test_the_room_said_is_the_room(
    home: Understander, text: str, intent: str, ids: list[str]
) -> None:
    part = only_part(home.understand(text))
    assert part.intent == intent, part.to_dict()
    assert part_ids(home.registry, part) == ids, part.to_dict()
