"""The MQTT source against a real Mosquitto and simulated devices."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import zigbee2mqtt_device
from mnemolis.devices import Device
from mnemolis.sources.base import Request, Status, Truth
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config
from tests.support_mqtt import (
    Nowhere,
    broker,
    part_for,
    running_home,
    settings_for,
    without_yaml_devices,
)

__all__ = ["broker"]


async def eventually(check: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not become true in time")
        await asyncio.sleep(0.01)


def with_device(config: Config, name: str, **changes: Any) -> Config:
    """The config with one YAML device changed (allow, confirm, topics ...)."""
    devices = [dataclasses.replace(d, **changes) if d.name == name else d for d in config.devices]
    return dataclasses.replace(config, devices=devices)


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


def z2m_home() -> list[Device]:
    return [
        zigbee2mqtt_device("study lamp", "light", features=["brightness", "color"], room="study"),
        zigbee2mqtt_device("shed lock", "lock"),
        zigbee2mqtt_device("kettle", "switch"),
        zigbee2mqtt_device("attic window", "cover"),
        zigbee2mqtt_device("bedroom radiator", "climate"),
        zigbee2mqtt_device("bathroom fan", "fan"),
        zigbee2mqtt_device("cellar temperature", "sensor", device_class="temperature", unit="°C"),
        zigbee2mqtt_device("porch motion", "binary_sensor", device_class="motion"),
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


# -------------------------------------------------------------------------------- honest failures


def test_not_confirmed_when_the_device_does_not_echo(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker, confirm_s=0.3) as home:
            home.sim().set_echo("porch light", False)
            answer = await home.ask("device.turn_on", device="porch light")
            assert answer.status == Status.NOT_CONFIRMED
            assert answer.text == "sent, but the porch light did not confirm within 0.3 s"
            assert [c.device for c in home.sim().received()] == ["porch light"]

    asyncio.run(scenario())


def test_broker_killed_and_restarted_mid_session(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker, confirm_s=0.5) as home:
            assert (await home.ask("device.turn_on", device="porch light")).status == Status.DONE
            broker.kill()
            await eventually(lambda: not home.source.connected)
            down = await home.ask("device.turn_off", device="porch light")
            assert down.status == Status.ERROR
            assert down.text.startswith(f"I can't reach the MQTT broker at 127.0.0.1:{broker.port}")
            assert down.text.endswith("so nothing was sent to the porch light")
            broker.start()
            await home.source.link.wait_connected(5.0)
            assert await asyncio.to_thread(home.sim().wait_connected, 10.0)
            await home.source.wait_for_devices()
            answer = await home.ask("device.turn_off", device="porch light")
            assert (answer.status, answer.text) == (Status.DONE, "done: the porch light is off")
            assert home.source.link.connections == 2
            # the command that failed while the broker was down was never sent later
            assert [json.loads(c.payload) for c in home.sim().received()] == [
                {"state": "ON"},
                {"state": "OFF"},
            ]

    asyncio.run(scenario())


def test_a_publish_waits_for_the_broker_within_its_deadline(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario() -> None:
        source = MqttSource(config, registry_from_config(config), settings_for(config, broker))
        await source.start()
        assert await source.link.wait_connected(5.0)
        broker.kill()
        await eventually(lambda: not source.connected)
        loop = asyncio.get_running_loop()
        late = await source.link.publish("t/late", b"x", loop.time() + 0.2)
        assert (late.sent, late.reason) == (False, "broker_down")
        pending = asyncio.create_task(source.link.publish("t/held", b"x", loop.time() + 5.0))
        await asyncio.sleep(0.2)
        broker.start()
        held = await pending
        assert held.sent and held.acknowledged
        await source.close()

    asyncio.run(scenario())


def test_broker_down_from_the_start(config: Config) -> None:
    async def scenario() -> None:
        dead = Nowhere()
        settings = settings_for(config, dead, confirm_s=0.2)
        source = MqttSource(config, registry_from_config(config), settings)
        await source.start()  # must not raise
        report = await source.wait_for_devices(0.3)
        assert not report.connected and not report.complete
        where = f"127.0.0.1:{dead.port}"
        state = await source.answer(
            part_for(config, "device.state", device="front door"), Request()
        )
        assert state.status == Status.ERROR
        assert state.text == (
            f"I can't reach the MQTT broker at {where} (connection refused), "
            "so I don't know how the front door is"
        )
        command = await source.answer(
            part_for(config, "device.turn_on", device="porch light"), Request()
        )
        assert command.status == Status.ERROR
        assert f"I can't reach the MQTT broker at {where}" in command.text
        condition = await source.evaluate(
            part_for(config, "device.state", device="back door", state="unlocked"), Request()
        )
        assert condition.truth == Truth.UNKNOWN
        await source.close()

    asyncio.run(scenario())


def test_a_command_fails_at_once_when_the_broker_cannot_be_back_in_time(config: Config) -> None:
    async def scenario() -> None:
        settings = settings_for(config, Nowhere(), confirm_s=2.0, reconnect_min_s=30.0)
        source = MqttSource(config, registry_from_config(config), settings)
        await source.start()
        await eventually(lambda: source.link.next_attempt_at is not None)
        answer = await source.answer(
            part_for(config, "device.turn_on", device="porch light"), Request()
        )
        assert answer.status == Status.ERROR and "connection refused" in answer.text
        assert answer.ms < 500  # it did not sit out the 2 s deadline
        await source.close()

    asyncio.run(scenario())


def test_refused_credentials_are_said_clearly(config: Config) -> None:
    with Mosquitto(extra_config="allow_anonymous false") as locked:

        async def scenario() -> None:
            settings = settings_for(config, locked, confirm_s=0.2, username="me", password="wrong")
            source = MqttSource(config, registry_from_config(config), settings)
            await source.start()
            await eventually(lambda: source.link.last_error is not None)
            answer = await source.answer(
                part_for(config, "device.state", device="front door"), Request()
            )
            assert answer.status == Status.ERROR
            assert "the broker refused the connection: Not authorized" in answer.text
            await source.close()

        asyncio.run(scenario())


def test_device_going_unavailable(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            front = home.registry.by_name("front door")
            assert front is not None
            await asyncio.to_thread(home.sim().set_available, "front door", False)
            await eventually(lambda: home.source.state_of(front.id).available is False)  # type: ignore[union-attr]
            state = await home.ask("device.state", device="front door", state="locked")
            assert state.status == Status.ERROR
            assert state.text.startswith(
                "the front door is unavailable right now; its last report was locked, "
            )
            command = await home.ask("device.lock", device="front door")
            assert (command.status, command.text) == (
                Status.ERROR,
                "the front door is unavailable, so I did not send anything",
            )
            condition = await home.source.evaluate(
                part_for(config, "device.state", device="front door", state="locked"), Request()
            )
            assert condition.truth == Truth.UNKNOWN
            assert home.sim().received() == []
            await asyncio.to_thread(home.sim().set_available, "front door", True)
            await eventually(lambda: home.source.state_of(front.id).available is True)  # type: ignore[union-attr]
            assert (await home.ask("device.lock", device="front door")).status == Status.DONE

    asyncio.run(scenario())


def test_zigbee2mqtt_bridge_offline_makes_its_devices_unavailable(
    config: Config, broker: Mosquitto
) -> None:
    empty = without_yaml_devices(config)

    async def scenario() -> None:
        async with running_home(empty, broker, z2m_home(), announce="zigbee2mqtt") as home:
            kettle = home.registry.by_name("kettle")
            assert kettle is not None
            await asyncio.to_thread(
                home.sim().publish, "zigbee2mqtt/bridge/state", '{"state": "offline"}', True
            )
            await eventually(lambda: home.source.state_of(kettle.id).available is False)  # type: ignore[union-attr]
            answer = await home.ask("device.turn_on", device="kettle")
            assert answer.text == "the kettle is unavailable, so I did not send anything"

    asyncio.run(scenario())


def test_a_flood_of_state_messages(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            sensor = home.registry.by_name("outdoor temperature")
            assert sensor is not None
            before = home.source.cache.updates
            client = home.sim().client
            infos = [
                client.publish(
                    "home/outdoor_temperature", json.dumps({"temperature": i / 10}), qos=1
                )
                for i in range(1000)
            ]
            await asyncio.to_thread(infos[-1].wait_for_publish, 10.0)
            await eventually(lambda: home.source.state_of(sensor.id).values.get("value") == 99.9)  # type: ignore[union-attr]
            assert home.source.cache.updates - before == 1000
            reading = await home.ask("sensor.read", device="outdoor temperature")
            assert reading.text == "the outdoor temperature is 99.9 °C"
            assert (await home.ask("device.turn_on", device="porch light")).status == Status.DONE

    asyncio.run(scenario())


def test_malformed_configs_and_payloads_are_logged_and_ignored(
    config: Config, broker: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            porch = home.registry.by_name("porch light")
            assert porch is not None
            before = home.source.state_of(porch.id)
            sim = home.sim()
            bad = [
                ("homeassistant/switch/junk/config", b"{not json"),
                (
                    "homeassistant/switch/wild/config",
                    json.dumps({"name": "wild", "cmd_t": "x/+/set"}).encode(),
                ),
                (
                    "homeassistant/light/big/config",
                    b'{"name": "big", "cmd_t": "' + b"a" * 70_000 + b'"}',
                ),
                (
                    "homeassistant/sensor/tpl/config",
                    json.dumps(
                        {"name": "tpl", "stat_t": "x", "val_tpl": "{% if %}{% endif %}"}
                    ).encode(),
                ),
                ("zigbee2mqtt/bridge/devices", b"[{broken"),
                ("home/porch_light", b"\xff\xfe\x00"),
                ("home/porch_light", b"[1, 2, 3]"),
                ("home/porch_light", b'{"state": "SIDEWAYS"}'),
                ("home/porch_light/availability", b"perhaps"),
            ]
            for topic, payload in bad:
                await asyncio.to_thread(sim.publish, topic, payload, False)
            good = json.dumps(
                {"name": "Garden Pump", "cmd_t": "garden/pump/set", "stat_t": "garden/pump"}
            )
            await asyncio.to_thread(sim.publish, "homeassistant/switch/pump/config", good, True)
            await home.source.wait_for_devices()
            names = {d.name for d in home.registry.devices() if d.refused is None}
            assert "garden pump" in names
            assert not names & {"junk", "wild", "big", "tpl"}
            refused = {r.name: r.reason for r in home.source.refusals()}
            assert "wildcard" in refused["wild"] and "compile" in refused["tpl"]
            after = home.source.state_of(porch.id)
            assert after is not None and before is not None
            assert after.values == before.values and after.available is True
            assert (await home.ask("device.turn_on", device="porch light")).status == Status.DONE
        messages = " ".join(r.getMessage() for r in caplog.records)
        for words in (
            "not JSON",
            "wildcard",
            "over the limit",
            "does not compile",
            "ignored a message",
        ):
            assert words in messages, words

    with caplog.at_level(logging.WARNING, logger="mnemolis.sources"):
        asyncio.run(scenario())


def test_a_device_without_a_state_topic_is_not_claimed_done(
    config: Config, broker: Mosquitto
) -> None:
    blind = with_device(config, "coffee maker", topics={"command": "home/coffee_maker/set"})

    async def scenario() -> None:
        async with running_home(blind, broker) as home:
            answer = await home.ask("device.turn_on", device="coffee maker")
            assert (answer.status, answer.text) == (
                Status.NOT_CONFIRMED,
                "sent to the coffee maker; the coffee maker does not report its state, "
                "so I can't confirm it",
            )
            received = await asyncio.to_thread(home.sim().wait_for_commands, 1)
            assert [c.payload for c in received] == ['{"state": "ON"}']

    asyncio.run(scenario())


# ----------------------------------------------------------------------------------------- safety


def test_unlocking_waits_for_a_yes(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            asked = await home.ask("device.unlock", device="front door")
            assert (asked.status, asked.text) == (
                Status.NEEDS_CONFIRMATION,
                "Do you want me to unlock the front door?",
            )
            garage = await home.ask("device.open", device="garage door")
            assert (garage.status, garage.text) == (
                Status.NEEDS_CONFIRMATION,
                "Do you want me to open the garage door?",
            )
            both = await home.ask("device.unlock", device=["front door", "back door"])
            assert both.status == Status.NEEDS_CONFIRMATION
            assert both.text == "Do you want me to unlock the front door and unlock the back door?"
            assert home.sim().received() == []
            done = await home.ask("device.unlock", confirmed=True, device="front door")
            assert (done.status, done.text) == (Status.DONE, "done: the front door is unlocked")
            blinds = await home.ask("device.open", device="living room blinds")
            assert blinds.status == Status.DONE  # only garage doors ask

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("changes", "intent", "device", "status", "text"),
    [
        (
            {"allow": ["lock"]},
            "device.unlock",
            "front door",
            Status.DECLINED,
            "I'm not allowed to unlock the front door",
        ),
        (
            {"allow": ["lock"]},
            "device.lock",
            "front door",
            Status.DONE,
            "done: the front door is locked",
        ),
        (
            {"confirm": ["start"]},
            "device.start",
            "coffee maker",
            Status.NEEDS_CONFIRMATION,
            "Do you want me to start the coffee maker?",
        ),
        (
            {"confirm": []},
            "device.turn_on",
            "coffee maker",
            Status.DONE,
            "done: the coffee maker is on",
        ),
    ],
)
def test_allow_and_confirm_lists(
    config: Config,
    broker: Mosquitto,
    changes: dict[str, Any],
    intent: str,
    device: str,
    status: Status,
    text: str,
) -> None:
    changed = with_device(config, device, **changes)

    async def scenario() -> None:
        async with running_home(changed, broker) as home:
            answer = await home.ask(intent, device=device)
            assert (answer.status, answer.text) == (status, text)
            assert bool(home.sim().received()) == (status == Status.DONE)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("intent", "slots", "status", "text"),
    [
        (
            "device.lock",
            {"device": "porch light"},
            Status.OUT_OF_SCOPE,
            "I can't lock the porch light: the porch light is a light",
        ),
        (
            "device.turn_on",
            {"device": "outdoor temperature"},
            Status.OUT_OF_SCOPE,
            "the outdoor temperature is a sensor; it can only be read",
        ),
        (
            "device.set_brightness",
            {"device": "porch light", "brightness": 20},
            Status.OUT_OF_SCOPE,
            "I can't set the porch light to 20 %: the porch light can't be dimmed",
        ),
        (
            "device.set_color",
            {"device": "kitchen light", "color": "chartreuse"},
            Status.ERROR,
            "I don't know the colour chartreuse",
        ),
        (
            "device.set_temperature",
            {"device": "thermostat"},
            Status.ERROR,
            "I didn't catch the value to set the thermostat to",
        ),
    ],
)
def test_what_cannot_be_done_is_said(
    config: Config, broker: Mosquitto, intent: str, slots: dict[str, Any], status: Status, text: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask(intent, **slots)
            assert (answer.status, answer.text) == (status, text)
            assert home.sim().received() == []

    asyncio.run(scenario())


# ----------------------------------------------------------------------- questions and conditions

STATE_QUESTIONS = [
    ("device.state", {"device": "front door", "state": "locked"}, "yes, the front door is locked"),
    ("device.state", {"device": "back door", "state": "unlocked"}, "no, the back door is locked"),
    ("device.state", {"device": "porch light", "state": "on"}, "no, the porch light is off"),
    ("device.state", {"device": "garage door"}, "the garage door is closed"),
    (
        "device.state",
        {"device": "living room blinds", "state": "open"},
        "no, the living room blinds are closed",
    ),
    ("device.state", {"device": "robot vacuum"}, "the robot vacuum is docked"),
    (
        "device.state",
        {"device": "thermostat"},
        "the thermostat is set to 20 °C, and it is 19.5 °C now",
    ),
    ("sensor.read", {"device": "living room temperature"}, "the living room is 21.5 °C"),
    ("sensor.read", {"device": "outdoor temperature"}, "the outdoor temperature is 21.5 °C"),
    ("sensor.read", {"device": "hallway motion"}, "there is no motion in the hallway"),
]


@pytest.mark.parametrize(("intent", "slots", "text"), STATE_QUESTIONS)
def test_state_questions_from_the_cache(
    config: Config, broker: Mosquitto, intent: str, slots: dict[str, Any], text: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask(intent, **slots)
            assert (answer.status, answer.text) == (Status.OK, text)
            assert answer.ms < 50

    asyncio.run(scenario())


CONDITIONS = [
    ({"device": "back door", "state": "unlocked"}, Truth.FALSE),
    ({"device": "front door", "state": "locked"}, Truth.TRUE),
    ({"device": "porch light", "state": "off"}, Truth.TRUE),
    ({"device": ["porch light", "kitchen light"], "state": "off"}, Truth.TRUE),
    ({"device": "hallway motion"}, Truth.FALSE),
    ({"device": "outdoor temperature", "state": "on"}, Truth.UNKNOWN),
    ({"device": "porch light", "state": "locked"}, Truth.UNKNOWN),
    ({"device": "unicorn"}, Truth.UNKNOWN),
]


@pytest.mark.parametrize(("slots", "truth"), CONDITIONS)
def test_conditions(config: Config, broker: Mosquitto, slots: dict[str, Any], truth: Truth) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            part = part_for(config, "device.state", **slots)
            evaluation = await home.source.evaluate(part, Request())
            assert evaluation.truth == truth, evaluation.text

    asyncio.run(scenario())


def test_an_old_reading_says_its_age(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker, stale_s=600) as home:
            home.source.cache.clock = lambda: time.time() + 2 * 3600 + 5
            answer = await home.ask("sensor.read", device="living room temperature")
            assert answer.text == "the living room is 21.5 °C (as of 2 hours ago)"

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("slots", "start"),
    [
        (
            {"device": "unicorn lamp"},
            'I don\'t know a device called "unicorn lamp". I know the living room lamp',
        ),
        ({}, "Which device do you mean? I know the back door, the bedroom light, "),
        (
            {"room": "kitchen"},
            "Which device in the kitchen do you mean: the back door, the coffee maker "
            "and the kitchen light?",
        ),
    ],
)
def test_unknown_or_missing_device(
    config: Config, broker: Mosquitto, slots: dict[str, Any], start: str
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            answer = await home.ask("device.turn_on", **slots)
            assert answer.status == Status.ERROR
            assert answer.text.startswith(start), answer.text

    asyncio.run(scenario())


# ------------------------------------------------------------------------------------- end to end


def test_understood_sentence_changes_the_simulated_device(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            understander = Understander(config, home.registry)
            await asyncio.to_thread(home.sim().report, "porch light", state="ON")
            porch = home.registry.by_name("porch light")
            assert porch is not None
            await eventually(lambda: home.source.state_of(porch.id).values.get("state") == "on")  # type: ignore[union-attr]
            part = understander.understand("turn off the porch light").parts()[0]
            answer = await home.source.answer(part, Request())
            assert (answer.status, answer.text) == (Status.DONE, "done: the porch light is off")
            assert home.sim().state("porch light")["state"] == "OFF"

            question = understander.understand("is the porch light on").parts()[0]
            assert (
                await home.source.answer(question, Request())
            ).text == "no, the porch light is off"

            plan = understander.understand("if the back door is unlocked lock it")
            condition = plan.parts()[0]
            assert (await home.source.evaluate(condition, Request())).truth == Truth.FALSE

    asyncio.run(scenario())
