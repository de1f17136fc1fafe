"""Issue 17's value and lock defects, end to end on the demo home (a real broker, the
simulated devices, discovery): the sentence is understood, then carried out or declined.

- "disengage the front door lock" answered "the front door is locked": the unlock
  vocabulary (disengage, release, unlatch, open ... lock) means unlock, which waits
  for a yes like every unlock;
- "set the garage door to 100 percent" answered "I can't set the garage door to None":
  it is a position now, and a door that cannot take one says so by name.
"""

from __future__ import annotations

import asyncio

import pytest

from mnemolis.config import Config
from mnemolis.demo.home import DemoHome
from mnemolis.sources.base import PartAnswer, Request, Status
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config
from tests.support_demo import demo_cache, demo_home

__all__ = ["demo_cache", "demo_home"]


async def _answers(
    config: Config, understander: Understander, demo_home: DemoHome, text: str, confirmed: bool
) -> list[PartAnswer]:
    settings = load_mqtt_settings(config, demo_home.environment.variables())
    source = MqttSource(config, registry_from_config(config), settings)
    await source.start()
    await source.wait_for_devices()
    try:
        plan = understander.understand(text)
        return [await source.answer(p, Request(confirmed=confirmed)) for p in plan.parts()]
    finally:
        await source.close()


@pytest.mark.parametrize(
    "text",
    [
        "disengage the front door lock",
        "release the front door lock",
        "open the front door lock",
        "unlatch the front door",
    ],
)
def test_disengaging_a_lock_unlocks_it_after_a_yes(
    config: Config, understander: Understander, demo_home: DemoHome, text: str
) -> None:
    plan = understander.understand(text)
    assert [(p.intent, p.slots.get("device")) for p in plan.parts()] == [
        ("device.unlock", "front door")
    ]
    asked = asyncio.run(_answers(config, understander, demo_home, text, confirmed=False))
    assert [a.status for a in asked] == [Status.NEEDS_CONFIRMATION], asked[0].text
    assert "unlock the front door" in asked[0].text
    done = asyncio.run(_answers(config, understander, demo_home, text, confirmed=True))
    assert [a.status for a in done] == [Status.DONE], done[0].text
    assert demo_home.simulator is not None
    assert demo_home.simulator.state("front door")["state"] == "UNLOCKED"
    asyncio.run(_answers(config, understander, demo_home, "lock the front door", True))
    assert demo_home.simulator.state("front door")["state"] == "LOCKED"


def test_a_percentage_for_the_garage_door_is_its_position_or_a_decline_by_name(
    config: Config, understander: Understander, demo_home: DemoHome
) -> None:
    text = "set the garage door to 100 percent"
    plan = understander.understand(text)
    assert [(p.intent, p.slots.get("device"), p.slots.get("position")) for p in plan.parts()] == [
        ("device.set_position", "garage door", 100)
    ]
    (answer,) = asyncio.run(_answers(config, understander, demo_home, text, confirmed=True))
    assert "None" not in answer.text, answer.text
    assert "garage door" in answer.text
    if answer.status != Status.DONE:
        assert answer.status in (Status.OUT_OF_SCOPE, Status.DECLINED, Status.ERROR)
        assert "position" in answer.text, answer.text
