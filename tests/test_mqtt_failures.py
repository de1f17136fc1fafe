"""Honest failures on a real Mosquitto: no echo, a killed broker, refused credentials,\nunavailable devices, floods and malformed payloads."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request, Status, Truth
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import registry_from_config
from tests.support_mqtt import (
    Nowhere,
    broker,
    eventually,
    part_for,
    require_mosquitto,
    running_home,
    settings_for,
    with_device,
    without_yaml_devices,
    z2m_home,
)

__all__ = ["broker"]


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
    with Mosquitto(require_mosquitto(), extra_config="allow_anonymous false") as locked:

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
