"""Toggling (Home Assistant's HassToggle): each device by its own last reported state.

A toggle is sent as the turn_off or turn_on its state calls for, through the very
same path (so the payload is its schema's); a device whose state is unknown is
never flipped blindly. End to end on a real Mosquitto, and on a source with no
broker for the unknown state.
"""

from __future__ import annotations

import asyncio

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import TYPE_ACTIONS, Device
from mnemolis.sources.base import Request, Status
from mnemolis.sources.mqtt.commands import toggled
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.sources.mqtt.state import DeviceState
from mnemolis.understand import Understander, registry_from_config
from tests.support_assistant import House, World, fixture_world, statuses
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker, part_for, with_device
from tests.support_open_meteo import open_meteo

__all__ = ["broker", "fixture_test_zims", "fixture_world", "open_meteo"]

ON, OFF = '{"state": "ON"}', '{"state": "OFF"}'
LIGHTS = ("kitchen light", "living room lamp", "bedroom light", "porch light", "hallway light")

# --------------------------------------------------------------------------- understanding

SENTENCES = [
    ("toggle the kitchen light", "device.toggle", "kitchen light"),
    ("flip the porch light", "device.toggle", "porch light"),
    ("can you toggle the hallway light", "device.toggle", "hallway light"),
    ("toggle the bedroom lamp please", "device.toggle", "bedroom light"),
    ("toggle the coffee machine", "device.toggle", "coffee maker"),
    ("toggle the thermostat", "device.toggle", "thermostat"),
    # the words of turning on and off keep their own intents
    ("toggle the porch light on", "device.turn_on", "porch light"),
    ("flip the porch light off", "device.turn_off", "porch light"),
    ("switch off the kitchen light", "device.turn_off", "kitchen light"),
    ("switch the porch light on", "device.turn_on", "porch light"),
    # questions are not toggles; a lock is not a toggle type (and is not locked)
    ("should i toggle the porch light", None, None),
    ("why did the porch light toggle", None, None),  # a why-question: never acts, not known
    ("is the porch light on", "device.state", "porch light"),
    ("toggle the front door", None, None),
    ("lock the front door", "device.lock", "front door"),
]


@pytest.mark.parametrize(("text", "intent", "device"), SENTENCES)
def test_toggle_sentences(
    understander: Understander, text: str, intent: str | None, device: str | None
) -> None:
    steps = understander.understand(text).steps
    assert [s.intent for s in steps] == [intent]
    if device is not None:
        assert steps[0].slots.get("device") == device


def test_toggle_several_lights_names_each(understander: Understander) -> None:
    (step,) = understander.understand("toggle the lights").steps
    assert step.intent == "device.toggle"
    assert sorted(step.slots["device"]) == sorted(LIGHTS)


def test_the_tables_know_toggle(config: Config) -> None:
    assert config.intents["device.toggle"].action == "toggle"
    togglers = {t for t, actions in TYPE_ACTIONS.items() if "toggle" in actions}
    assert togglers == {"light", "switch", "fan", "climate", "siren", "humidifier"}
    assert set(config.intents["device.toggle"].device_types) == togglers


@pytest.mark.parametrize(
    ("dtype", "values", "available", "wanted"),
    [
        ("light", {"state": "on"}, None, "turn_off"),
        ("light", {"state": "off"}, True, "turn_on"),
        ("switch", {"state": "on"}, None, "turn_off"),
        ("climate", {"mode": "heat"}, None, "turn_off"),
        ("climate", {"mode": "off"}, None, "turn_on"),
        ("light", {"state": "on"}, False, None),  # unavailable: its last word is stale
        ("light", {"brightness": 40}, None, None),  # a reading that does not say on or off
        ("fan", {}, None, None),
    ],
)
def test_toggled_is_the_opposite_of_the_known_state(
    dtype: str, values: dict[str, object], available: bool | None, wanted: str | None
) -> None:
    device = Device(name="thing", type=dtype)
    cached = DeviceState(values=dict(values))
    if available is not None:
        cached.availability = {"t": available}
    assert toggled(device, cached) == wanted
    assert toggled(device, None) is None


def test_a_device_that_never_reported_is_not_toggled(config: Config) -> None:
    source = MqttSource(config, registry_from_config(config))
    part = part_for(config, "device.toggle", device="porch light")
    answer = asyncio.run(source.answer(part, Request()))
    assert answer.status is Status.DECLINED
    assert answer.text == "I don't know whether the porch light is on, so I did not toggle it"
    assert "commands" not in answer.data
    assert answer.provenance["reason"] == "state_unknown"


def test_a_toggle_asks_for_the_yes_its_action_needs(config: Config) -> None:
    """Confirmations are those of the action the toggle becomes."""
    home = with_device(config, "porch light", confirm=["turn_off"])
    source = MqttSource(home, registry_from_config(home))
    porch = source.registry.by_name("porch light")
    assert porch is not None
    part = part_for(home, "device.toggle", device="porch light")
    source.cache.apply(porch.id, {"state": "on"})
    answer = asyncio.run(source.answer(part, Request()))
    assert answer.status is Status.NEEDS_CONFIRMATION
    assert answer.text == "Do you want me to turn off the porch light?"
    source.cache.apply(porch.id, {"state": "off"})  # turning it on needs no yes
    answer = asyncio.run(source.answer(part, Request()))
    assert answer.status is Status.ERROR  # no broker here: the command was built, not sent
    assert answer.data["action"] == "turn_on"
    assert answer.data["commands"][0]["payload"] == ON


def test_several_devices_ask_for_the_yes_of_the_one_that_needs_it(config: Config) -> None:
    home = with_device(config, "kitchen light", confirm=["turn_off"])
    source = MqttSource(home, registry_from_config(home))
    for name, state in (("kitchen light", "on"), ("porch light", "on")):
        device = source.registry.by_name(name)
        assert device is not None
        source.cache.apply(device.id, {"state": state})
    part = part_for(home, "device.toggle", device=["kitchen light", "porch light"])
    answer = asyncio.run(source.answer(part, Request()))
    assert answer.status is Status.NEEDS_CONFIRMATION
    assert answer.text == "Do you want me to turn off the kitchen light?"


def test_a_lock_is_not_toggled(config: Config) -> None:
    source = MqttSource(config, registry_from_config(config))
    part = part_for(config, "device.toggle", device="front door")
    answer = asyncio.run(source.answer(part, Request()))
    assert answer.status is Status.OUT_OF_SCOPE
    assert answer.text == "I can't toggle the front door: the front door is a lock"


# --------------------------------------------------------------------------- end to end


def test_a_toggle_sends_the_opposite_of_the_reported_state(world: World) -> None:
    async def scenario(house: House) -> None:
        await house.report("kitchen light", state="ON")
        answer = await house.ask("toggle the kitchen light")
        assert statuses(answer) == [Status.DONE]
        assert house.commands("kitchen light") == [OFF]
        assert answer.text == "Done: the kitchen light is off."
        assert answer.parts[0].answer.data["action"] == "turn_off"
        answer = await house.ask("flip the kitchen light")  # its echo said off
        assert house.commands("kitchen light") == [OFF, ON]
        assert answer.text.startswith("Done: the kitchen light is on")

    world.run(scenario)


def test_several_devices_each_by_its_own_state(world: World) -> None:
    async def scenario(house: House) -> None:
        for light in LIGHTS:
            await house.report(light, state="ON" if light == "kitchen light" else "OFF")
        answer = await house.ask("toggle the lights")
        assert statuses(answer) == [Status.DONE]
        assert {light: house.commands(light) for light in LIGHTS} == {
            light: [OFF] if light == "kitchen light" else [ON] for light in LIGHTS
        }
        assert "the kitchen light is off" in answer.text

    world.run(scenario)


def test_an_unknown_state_publishes_nothing(world: World) -> None:
    async def scenario(house: House) -> None:
        await house.report("porch light", state="ON")
        await house.report("hallway light", state="OFF")
        await asyncio.to_thread(house.simulator.set_available, "porch light", False)
        porch = house.assistant.registry.by_name("porch light")
        assert porch is not None

        def offline() -> bool:
            state = house.mqtt.state_of(porch.id)
            return state is not None and state.available is False

        await house.until(offline)
        answer = await house.ask("toggle the porch light")
        assert statuses(answer) == [Status.DECLINED]
        assert answer.text == "I don't know whether the porch light is on, so I did not toggle it."
        answer = await house.ask("toggle the porch light and the hallway light")
        assert statuses(answer) == [Status.DECLINED, Status.DONE]
        assert house.commands("porch light") == []
        assert house.commands("hallway light") == [ON]

    world.run(scenario)


def test_a_discovered_device_gets_the_payloads_of_turn_on_and_turn_off(world: World) -> None:
    async def scenario(house: House) -> None:
        sent: dict[str, list[str]] = {}
        for ask in ("toggle", "turn off"):
            await house.report("porch light", state="ON")
            house.simulator.clear()
            await house.ask(f"{ask} the porch light")
            sent[ask] = house.commands("porch light")
        assert sent["toggle"] == sent["turn off"] != []
        for ask in ("toggle", "turn on"):
            await house.report("porch light", state="OFF")
            house.simulator.clear()
            await house.ask(f"{ask} the porch light")
            sent[ask] = house.commands("porch light")
        assert sent["toggle"] == sent["turn on"] != []

    world.run(scenario, announce="homeassistant")
