"""A time word inside a name said is the name's (issue 24): "activate cosy evening" is the
scene "Cosy Evening" now, not an activation put off until tonight with no scene; a time
said beside a name still schedules ("turn on the porch lantern this evening")."""

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
    _d("scene_cosy", "Cosy Evening", "scene", "lounge"),
    _d("scene_morning", "Good Morning", "scene", "bedroom"),
    _d("lantern", "Porch Lantern", "light", "porch"),
]


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    registry = DeviceRegistry(list(DEVICES))
    for room in ("lounge", "bedroom", "porch"):
        registry.add_room(room, [])
    return Understander(home_config(config), registry)


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("activate cosy evening", ["scene_cosy"]),
        ("turn on cosy evening", ["scene_cosy"]),
        ("set the scene to cosy evening", ["scene_cosy"]),
        ("activate good morning", ["scene_morning"]),
    ],
)
def test_a_name_with_a_time_word_is_the_name(home: Understander, text: str, ids: list[str]) -> None:
    part = only_part(home.understand(text))
    assert part.intent == "device.activate", part.to_dict()
    assert part_ids(home.registry, part) == ids, part.to_dict()
    assert part.schedule is None, part.to_dict()


def test_a_time_beside_a_name_still_schedules(home: Understander) -> None:
    part = only_part(home.understand("turn on the porch lantern this evening"))
    assert part_ids(home.registry, part) == ["lantern"], part.to_dict()
    assert part.schedule is not None
