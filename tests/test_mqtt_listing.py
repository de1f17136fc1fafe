"""Refused configs said, `mnemolis devices`, the doctor's count, and what happens over time
(``off_delay``, ``expire_after``, wildcard state topics), on a real Mosquitto."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.core.devices import TYPE_ACTIONS
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Level, Request, Status, Truth
from mnemolis.sources.mqtt.listing import collect, format_listing
from tests.conftest import ROOT
from tests.support_mqtt import (
    broker,
    part_for,
    publisher,
    running_home,
    settings_for,
    without_yaml_devices,
)

__all__ = ["broker"]

PUMP = "homeassistant/switch/pump/config"
BAD_PUMP = {"name": "Garden Pump", "cmd_t": "garden/+/set", "stat_t": "garden/pump"}


def test_a_refused_device_is_answered_with_its_reason(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            await asyncio.to_thread(home.sim().publish, PUMP, json.dumps(BAD_PUMP), True)
            await home.source.wait_for_devices()
            reason = "switch pump: topic 'garden/+/set' has a wildcard"
            answer = await home.ask("device.turn_on", device="garden pump")
            assert answer.status == Status.ERROR
            assert answer.text == (
                'I know a device called "garden pump", but its configuration was refused: '
                "topic 'garden/+/set' has a wildcard"
            ), reason
            question = await home.ask("device.state", device="garden pump")
            assert "its configuration was refused" in question.text
            condition = await home.source.evaluate(
                part_for(config, "device.state", device="garden pump", state="on"), Request()
            )
            assert condition.truth == Truth.UNKNOWN
            findings = await home.source.diagnose()
            assert [f.level for f in findings] == [Level.OK, Level.WARNING]
            assert findings[1].text.startswith("1 announced configs refused (garden pump: topic")
            assert home.sim().received() == []

    asyncio.run(scenario())


def test_mnemolis_devices_lists_devices_and_refusals(config: Config, broker: Mosquitto) -> None:
    async def scenario() -> dict[str, Any]:
        async with running_home(config, broker) as home:
            await asyncio.to_thread(home.sim().publish, PUMP, json.dumps(BAD_PUMP), True)
            await asyncio.to_thread(
                home.sim().publish,
                "homeassistant/sensor/x/bad/config",
                '{"name": "Broken", "stat_t": "x", "val_tpl": "{{ states(\'a\') }}"}',
                True,
            )
            return await collect(config, 3.0, settings_for(config, broker))

    listing = asyncio.run(scenario())
    by_name = {d["name"]: d for d in listing["devices"]}
    assert listing["connected"] and listing["complete"]
    porch = by_name["porch light"]
    assert (porch["type"], porch["area"], porch["origin"]) == ("light", "porch", "yaml")
    assert porch["actions"] == list(TYPE_ACTIONS["light"])  # it has every feature of a light
    assert porch["state"] == "the porch light is off" and porch["age_s"] is not None
    refused = {r["name"]: r["reason"] for r in listing["refused"]}
    assert refused == {
        "garden pump": "topic 'garden/+/set' has a wildcard",
        "broken": "value_template \"{{ states('a') }}\": the template uses states(), which "
        "needs Home Assistant's own states",
    }
    lines = format_listing(listing)
    assert lines[0].split()[:3] == ["name", "type", "area"]
    assert any(
        line.startswith("porch light") and "the porch light is off" in line for line in lines
    )
    assert f"{len(listing['devices'])} devices; 2 configs refused" in lines
    assert "refused: garden pump (switch) from homeassistant, " + PUMP + ": topic" in "\n".join(
        lines
    )


def test_the_devices_command_runs(config: Config, broker: Mosquitto) -> None:
    env = dict(os.environ, MNEMOLIS_MQTT_URL=broker.url)
    command = str(Path(sys.executable).parent / "mnemolis")
    done = subprocess.run(
        [command, "--config", str(ROOT), "devices", "--json", "--wait", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert {d["name"] for d in listing["devices"]} >= {"porch light", "front door"}
    assert listing["refused"] == []


def test_off_delay_expire_after_and_wildcard_topics(config: Config, broker: Mosquitto) -> None:
    empty = without_yaml_devices(config)
    configs = {
        "homeassistant/binary_sensor/door_bell/config": {
            "name": "Door Bell",
            "stat_t": "rf/bell",
            "off_dly": 1,
            "pl_on": "ring",
        },
        "homeassistant/sensor/balcony/config": {
            "name": "Balcony Temperature",
            "stat_t": "rf/balcony",
            "exp_aft": 1,
            "dev_cla": "temperature",
            "unit_of_meas": "°C",
        },
        "homeassistant/sensor/omg/config": {
            "name": "Fridge Temperature",
            "stat_t": "home/OpenMQTTGateway/BTtoMQTT/+",
            "val_tpl": "{{ value_json.tempc }}",
            "dev_cla": "temperature",
            "unit_of_meas": "°C",
        },
    }

    async def scenario() -> None:
        async with running_home(empty, broker, []) as home, publisher(broker) as publish:
            for topic, body in configs.items():
                await publish(topic, json.dumps(body), retain=True)
            await home.source.wait_for_devices()
            bell = home.registry.by_name("door bell")
            assert bell is not None
            states = [
                (
                    "home/OpenMQTTGateway/BTtoMQTT/A4C138AABBCC",
                    '{"tempc": 4.5}',
                    "fridge temperature",
                ),
                ("rf/balcony", "12.5", "balcony temperature"),
                ("rf/bell", "ring", "door bell"),
            ]
            for topic, payload, name in states:
                device = home.registry.by_name(name)
                assert device is not None
                # a subscription may follow its config by a moment, and these are not
                # retained: say it again until it is heard
                for _ in range(50):
                    await publish(topic, payload)
                    await asyncio.sleep(0.1)
                    if home.source.state_of(device.id) is not None:
                        break
            assert (home.source.state_of(bell.id) or _empty()).values.get("state") == "on"
            fridge = await home.ask("sensor.read", device="fridge temperature")
            assert fridge.text == "the fridge temperature is 4.5 °C"
            balcony = await home.ask("sensor.read", device="balcony temperature")
            assert balcony.text == "the balcony temperature is 12.5 °C"
            await asyncio.sleep(1.3)
            assert (home.source.state_of(bell.id) or _empty()).values["state"] == "off"
            expired = await home.ask("sensor.read", device="balcony temperature")
            assert expired.status == Status.ERROR
            assert expired.text.startswith("the balcony temperature has not reported for 1 second")

    asyncio.run(scenario())


def _empty() -> Any:
    from mnemolis.sources.mqtt.state import DeviceState

    return DeviceState()
