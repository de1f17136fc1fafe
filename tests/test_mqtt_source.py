"""The MQTT source against a real Mosquitto and simulated devices: every YAML command,\ndiscovered devices of every component."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Status
from mnemolis.understand import Understander
from tests.support_mqtt import (
    broker,
    eventually,
    running_home,
    with_device,
    without_yaml_devices,
    z2m_home,
)

__all__ = ["broker"]


# ----------------------------------------------------------------- every command of the YAML home

YAML_COMMANDS = [
    (
        "device.set_brightness",
        {"device": "kitchen light", "text": "dim the kitchen light"},
        "home/kitchen_light/set",
        {"state": "ON", "brightness": 191},
        "done: the kitchen light is on at 75 %",
    ),
    (
        "device.set_temperature",
        {"device": "thermostat", "text": "make the living room warmer"},
        "home/thermostat/set",
        {"temperature": 21},
        "done: the thermostat is set to 21 °C, and it is 19.5 °C now",
    ),
    (
        "device.turn_on",
        {"device": "porch light"},
        "home/porch_light/set",
        {"state": "ON"},
        "done: the porch light is on",
    ),
    (
        "device.turn_off",
        {"device": "kitchen light"},
        "home/kitchen_light/set",
        {"state": "OFF"},
        "done: the kitchen light is off",
    ),
    (
        "device.set_brightness",
        {"device": "kitchen light", "brightness": 40},
        "home/kitchen_light/set",
        {"state": "ON", "brightness": 102},
        "done: the kitchen light is on at 40 %",
    ),
    (
        "device.set_color",
        {"device": "kitchen light", "color": "blue"},
        "home/kitchen_light/set",
        {"state": "ON", "color": {"r": 0, "g": 0, "b": 255}},
        "done: the kitchen light is blue",
    ),
    (
        "device.lock",
        {"device": "back door"},
        "home/back_door/set",
        {"state": "LOCK"},
        "done: the back door is locked",
    ),
    (
        "device.open",
        {"device": "living room blinds"},
        "home/living_room_blinds/set",
        {"state": "OPEN"},
        "done: the living room blinds are open",
    ),
    (
        "device.close",
        {"device": "garage door"},
        "home/garage_door/set",
        {"state": "CLOSE"},
        "done: the garage door is closed",
    ),
    (
        "device.stop",
        {"device": "living room blinds"},
        "home/living_room_blinds/set",
        {"state": "STOP"},
        "done: the living room blinds are stopped",
    ),
    (
        "device.set_temperature",
        {"device": "thermostat", "temperature": 22},
        "home/thermostat/set",
        {"temperature": 22},
        "done: the thermostat is set to 22 °C, and it is 19.5 °C now",
    ),
    (
        "device.turn_off",
        {"device": "thermostat"},
        "home/thermostat/set",
        {"mode": "off"},
        "done: the thermostat is off, and it is 19.5 °C now",
    ),
    (
        "device.start",
        {"device": "robot vacuum"},
        "home/robot_vacuum/set",
        {"command": "start"},
        "done: the robot vacuum is cleaning",
    ),
    (
        "device.stop",
        {"device": "robot vacuum", "text": "send the vacuum home"},
        "home/robot_vacuum/set",
        {"command": "return_to_base"},
        "done: the robot vacuum is returning to its dock",
    ),
    (
        "device.stop",
        {"device": "robot vacuum", "text": "return the vacuum to its charging station"},
        "home/robot_vacuum/set",
        {"command": "return_to_base"},
        "done: the robot vacuum is returning to its dock",
    ),
    (
        "device.stop",
        {"device": "robot vacuum", "text": "stop the robot vacuum"},
        "home/robot_vacuum/set",
        {"command": "stop"},
        "done: the robot vacuum is idle",
    ),
    (
        "device.start",
        {"device": "coffee maker"},
        "home/coffee_maker/set",
        {"state": "ON"},
        "done: the coffee maker is on",
    ),
]


@pytest.mark.parametrize(("intent", "slots", "topic", "payload", "text"), YAML_COMMANDS)
def test_every_command_reaches_the_device_and_is_confirmed(
    config: Config,
    broker: Mosquitto,
    intent: str,
    slots: dict[str, Any],
    topic: str,
    payload: dict[str, Any],
    text: str,
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask(intent, **slots)
            assert answer.status == Status.DONE, answer.text
            assert answer.text == text
            received = home.sim().received()
            assert [(c.topic, json.loads(c.payload)) for c in received] == [(topic, payload)]
            assert answer.data["commands"] == [
                {"topic": topic, "payload": received[0].payload, "qos": 1, "retain": False}
            ]
            assert answer.provenance["confirmed_by"] == "state echo"

    asyncio.run(scenario())


def test_several_devices_in_one_part(config: Config, broker: Mosquitto) -> None:
    lights = ["bedroom light", "hallway light", "kitchen light", "porch light"]

    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask("device.turn_on", device=lights)
            assert answer.status == Status.DONE
            assert answer.text == (
                "done: the bedroom light, the hallway light, the kitchen light "
                "and the porch light are on"
            )
            assert sorted(c.device for c in home.sim().received()) == lights

    asyncio.run(scenario())


# ----------------------------------------------------------------------------- discovered devices


def ha_home() -> list[Device]:
    """Devices that only discovery knows about, in every style a real home has."""
    return [
        Device(
            name="study lamp",
            type="light",
            room="study",
            features=["brightness", "color"],
            schema="json",
            topics={
                "state": "sim/study_lamp",
                "command": "sim/study_lamp/set",
                "availability": "sim/study_lamp/status",
            },
        ),
        Device(
            name="shed lock",
            type="lock",
            schema="default",
            topics={"state": "sim/shed_lock", "command": "sim/shed_lock/set"},
        ),
        Device(
            name="kettle",
            type="switch",
            room="kitchen",
            schema="json",
            topics={"state": "sim/kettle", "command": "sim/kettle/set"},
        ),
        Device(
            name="attic window",
            type="cover",
            schema="default",
            topics={
                "state": "sim/attic",
                "command": "sim/attic/set",
                "position_state": "sim/attic/position",
            },
        ),
        Device(
            name="bedroom radiator",
            type="climate",
            room="bedroom",
            schema="json",
            topics={"state": "sim/radiator", "command": "sim/radiator/set"},
        ),
        Device(
            name="bathroom fan",
            type="fan",
            schema="default",
            topics={"state": "sim/fan", "command": "sim/fan/set"},
        ),
        Device(
            name="robo",
            type="vacuum",
            schema="default",
            topics={"state": "sim/robo", "command": "sim/robo/set"},
        ),
        Device(
            name="cellar temperature",
            type="sensor",
            schema="json",
            device_class="temperature",
            unit="°C",
            topics={"state": "sim/cellar"},
        ),
        Device(
            name="porch motion",
            type="binary_sensor",
            schema="default",
            device_class="motion",
            topics={"state": "sim/porch_motion"},
        ),
    ]


DISCOVERED_TYPES = {
    "study lamp": "light",
    "shed lock": "lock",
    "kettle": "switch",
    "attic window": "cover",
    "bedroom radiator": "climate",
    "bathroom fan": "fan",
    "robo": "vacuum",
    "cellar temperature": "sensor",
    "porch motion": "binary_sensor",
}


@pytest.mark.parametrize(
    ("announce", "devices"), [("homeassistant", ha_home), ("zigbee2mqtt", z2m_home)]
)
def test_discovery_of_every_component_is_understood_at_once(
    config: Config, broker: Mosquitto, announce: Any, devices: Callable[[], list[Device]]
) -> None:
    empty = without_yaml_devices(config)

    async def scenario() -> None:
        async with running_home(empty, broker, devices(), announce=announce) as home:
            understander = Understander(empty, home.registry)
            expected = {d.name: DISCOVERED_TYPES[d.name] for d in devices()}
            found = {d.name: d.type for d in home.registry.devices()}
            assert found == expected
            assert {d.origin for d in home.registry.devices()} == {announce}
            plan = understander.understand("turn on the study lamp")
            assert plan.parts()[0].slots["device"] == "study lamp"
            radiator = home.registry.by_name("bedroom radiator")
            assert radiator is not None and radiator.room == "bedroom"
            reading = await home.ask("sensor.read", device="cellar temperature")
            assert reading.text == "the cellar temperature is 21.5 °C"

    asyncio.run(scenario())


DISCOVERED_COMMANDS = [
    (
        "homeassistant",
        "device.set_brightness",
        {"device": "study lamp", "brightness": 50},
        "sim/study_lamp/set",
        '{"state":"ON","brightness":128}',  # Home Assistant's compact json_dumps
        "done: the study lamp is on at 50 %",
    ),
    (
        "homeassistant",
        "device.unlock",
        {"device": "shed lock"},
        "sim/shed_lock/set",
        "UNLOCK",
        "done: the shed lock is unlocked",
    ),
    (
        "homeassistant",
        "device.turn_on",
        {"device": "kettle"},
        "sim/kettle/set",
        '{"state": "ON"}',
        "done: the kettle is on",
    ),
    (
        "homeassistant",
        "device.open",
        {"device": "attic window"},
        "sim/attic/set",
        "OPEN",
        "done: the attic window is open",
    ),
    (
        "homeassistant",
        "device.set_temperature",
        {"device": "bedroom radiator", "temperature": 18},
        "sim/radiator/set",
        '{"temperature": 18.0}',  # the template sees Home Assistant's float
        "done: the bedroom radiator is set to 18 °C, and it is 19.5 °C now",
    ),
    (
        "homeassistant",
        "device.turn_off",
        {"device": "bedroom radiator"},
        "sim/radiator/set",
        '{"mode": "off"}',
        "done: the bedroom radiator is off, and it is 19.5 °C now",
    ),
    (
        "homeassistant",
        "device.turn_on",
        {"device": "bathroom fan"},
        "sim/fan/set",
        "ON",
        "done: the bathroom fan is on",
    ),
    (
        "homeassistant",
        "device.start",
        {"device": "robo"},
        "sim/robo/set",
        "start",
        "done: the robo is cleaning",
    ),
    (
        "zigbee2mqtt",
        "device.set_color",
        {"device": "study lamp", "color": "red"},
        "zigbee2mqtt/study lamp/set",
        '{"state": "ON", "color": {"x": 0.6401, "y": 0.33}}',
        "done: the study lamp is red",
    ),
    (
        "zigbee2mqtt",
        "device.unlock",
        {"device": "shed lock"},
        "zigbee2mqtt/shed lock/set",
        '{"state": "UNLOCK"}',
        "done: the shed lock is unlocked",
    ),
    (
        "zigbee2mqtt",
        "device.close",
        {"device": "attic window"},
        "zigbee2mqtt/attic window/set",
        '{"state": "CLOSE"}',
        "done: the attic window is closed",
    ),
    (
        "zigbee2mqtt",
        "device.set_temperature",
        {"device": "bedroom radiator", "temperature": 21},
        "zigbee2mqtt/bedroom radiator/set",
        '{"occupied_heating_setpoint": 21}',
        "done: the bedroom radiator is set to 21 °C, and it is 19.5 °C now",
    ),
    (
        "zigbee2mqtt",
        "device.turn_on",
        {"device": "bathroom fan"},
        "zigbee2mqtt/bathroom fan/set",
        '{"fan_state": "ON"}',
        "done: the bathroom fan is on",
    ),
]


@pytest.mark.parametrize(
    ("announce", "intent", "slots", "topic", "payload", "text"), DISCOVERED_COMMANDS
)
def test_commands_to_discovered_devices(
    config: Config,
    broker: Mosquitto,
    announce: Any,
    intent: str,
    slots: dict[str, Any],
    topic: str,
    payload: str,
    text: str,
) -> None:
    empty = without_yaml_devices(config)
    devices = ha_home() if announce == "homeassistant" else z2m_home()

    async def scenario() -> None:
        async with running_home(empty, broker, devices, announce=announce) as home:
            answer = await home.ask(intent, confirmed=True, **slots)
            assert [(c.topic, c.payload) for c in home.sim().received()] == [(topic, payload)]
            assert (answer.status, answer.text) == (Status.DONE, text)

    asyncio.run(scenario())


def test_the_demo_home_announced_by_discovery_merges_with_its_yaml(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker, announce="homeassistant") as home:
            assert home.source.known.discovered_count() == len(config.devices)
            names = sorted(d.name for d in home.registry.devices())
            assert names == sorted(d.name for d in config.devices)  # the YAML wins, no twins
            assert {d.origin for d in home.registry.devices()} == {"yaml"}
            assert (await home.ask("device.turn_on", device="porch light")).status == Status.DONE

    asyncio.run(scenario())


def test_removed_config_removes_the_device(config: Config, broker: Mosquitto) -> None:
    empty = without_yaml_devices(config)

    async def scenario() -> None:
        async with running_home(empty, broker, ha_home(), announce="homeassistant") as home:
            assert home.registry.by_name("kettle") is not None
            await asyncio.to_thread(home.sim().remove, "kettle")
            await eventually(lambda: home.registry.by_name("kettle") is None)
            answer = await home.ask("device.turn_on", device="kettle")
            assert answer.status == Status.ERROR
            assert answer.text.startswith('I don\'t know a device called "kettle". I know ')

    asyncio.run(scenario())


def test_yaml_device_without_topics_takes_them_from_discovery(
    config: Config, broker: Mosquitto
) -> None:
    bare = with_device(config, "porch light", topics={})
    announced = [
        Device(
            name="porch light",
            type="light",
            schema="json",
            topics={"state": "z/porch", "command": "z/porch/set"},
        )
    ]

    async def scenario() -> None:
        async with running_home(bare, broker, announced, announce="homeassistant") as home:
            device = home.registry.by_name("outside light")  # a YAML alias
            assert device is not None and device.topics["command"] == "z/porch/set"
            assert device.room == "porch" and device.origin == "homeassistant"
            assert len([d for d in home.registry.devices() if d.name == "porch light"]) == 1
            answer = await home.ask("device.turn_on", device="porch light")
            assert answer.status == Status.DONE

    asyncio.run(scenario())
