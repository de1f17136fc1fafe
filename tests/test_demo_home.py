"""The embedded default home: started and stopped cleanly, its devices reached through
the MQTT source by Home Assistant discovery, its encyclopedia answering."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.demo.home import SIMULATOR_CLIENT_ID, DemoHome
from mnemolis.sources.base import Request, Status
from mnemolis.sources.kiwix.source import KiwixSource
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config
from tests.conftest import ROOT
from tests.support_demo import demo_cache, demo_home, port_refuses, running_demo
from tests.support_mqtt import part_for, without_yaml_devices
from tests.support_serve import MqttProbe, ServeProcess

__all__ = ["demo_cache", "demo_home"]


def test_start_and_stop_leave_no_thread_and_no_port(config: Config, demo_cache: Path) -> None:
    before = {t.name for t in threading.enumerate()}
    home = running_demo(config, demo_cache)
    env = home.environment
    host, port = home.broker.host, home.broker.port
    assert not port_refuses(host, port)
    assert home.broker.broker.client_ids == [SIMULATOR_CLIENT_ID]
    home.stop()
    assert port_refuses(host, port)
    assert {t.name for t in threading.enumerate()} == before
    assert env.mqtt_url == f"mqtt://{host}:{port}"


def test_the_environment_points_every_source_at_the_home(demo_home: DemoHome) -> None:
    variables = demo_home.environment.variables()
    assert variables["MNEMOLIS_MQTT_URL"] == demo_home.broker.url
    assert Path(variables["MNEMOLIS_KIWIX"]).is_file()
    assert variables["MNEMOLIS_WEATHER_CACHE"].startswith(str(demo_home.cache))
    weather = variables["MNEMOLIS_WEATHER_URL"]
    assert weather == variables["MNEMOLIS_GEOCODING_URL"]
    host, port = weather.removeprefix("http://").split(":")
    assert port_refuses(host, int(port))  # held, never listening: fails at once
    assert all(line.startswith("export MNEMOLIS_") for line in demo_home.environment.shell())


def test_every_yaml_device_is_announced_by_discovery(demo_home: DemoHome, config: Config) -> None:
    retained = demo_home.broker.broker.retained_topics
    announced = [t for t in retained if t.startswith("homeassistant/")]
    assert len(announced) == len(config.devices)
    assert demo_home.summary()[0].startswith(f"MQTT broker {demo_home.broker.url}")


def test_a_failed_start_stops_what_started(config: Config, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache should be")
    before = {t.name for t in threading.enumerate()}
    home = DemoHome(config, blocked)
    with pytest.raises(OSError):
        home.start()
    assert {t.name for t in threading.enumerate()} == before


# ----------------------------------------------------------------- devices, by discovery only

ROUND_TRIPS = [
    ("device.turn_on", {"device": "kitchen light"}, "done: the kitchen light is on",
     "kitchen light", {"state": "ON"}),
    ("device.set_brightness", {"device": "living room lamp", "brightness": 40},
     "done: the living room lamp is on at 40 %", "living room lamp", {"state": "ON"}),
    ("device.lock", {"device": "back door"}, "done: the back door is locked",
     "back door", {"state": "LOCKED"}),
    ("device.close", {"device": "living room blinds"}, "done: the living room blinds are closed",
     "living room blinds", {"state": "closed", "position": 0}),
    ("device.set_temperature", {"device": "thermostat", "temperature": 22},
     "done: the thermostat is set to 22 °C", "thermostat", {"temperature": 22}),
    ("device.start", {"device": "robot vacuum"}, "done: the robot vacuum is cleaning",
     "robot vacuum", {"state": "cleaning"}),
]  # fmt: skip


async def _discovered_source(config: Config, home: DemoHome) -> MqttSource:
    """A source that knows no YAML device: everything comes by Home Assistant discovery."""
    bare = without_yaml_devices(config)
    settings = load_mqtt_settings(bare, home.environment.variables())
    source = MqttSource(bare, registry_from_config(bare), settings)
    await source.start()
    report = await source.wait_for_devices()
    assert report.connected and report.discovered == len(config.devices), report
    return source


@pytest.mark.parametrize(
    ("intent", "slots", "reply", "device", "state"),
    ROUND_TRIPS,
    ids=[r[0] + ":" + r[3] for r in ROUND_TRIPS],
)
def test_a_command_round_trip_through_the_mqtt_source(
    config: Config,
    demo_home: DemoHome,
    intent: str,
    slots: dict[str, Any],
    reply: str,
    device: str,
    state: dict[str, Any],
) -> None:
    async def run() -> None:
        source = await _discovered_source(config, demo_home)
        try:
            answer = await source.answer(part_for(config, intent, **slots), Request())
        finally:
            await source.close()
        assert (answer.status, answer.text.split(", and it is")[0]) == (Status.DONE, reply)

    asyncio.run(run())
    assert demo_home.simulator is not None
    now = demo_home.simulator.state(device)
    assert {k: now.get(k) for k in state} == state


def test_an_unlock_waits_for_a_yes_and_then_reaches_the_door(
    config: Config, demo_home: DemoHome
) -> None:
    async def run() -> tuple[Status, Status]:
        source = await _discovered_source(config, demo_home)
        try:
            part = part_for(config, "device.unlock", device="front door")
            asked = await source.answer(part, Request())
            done = await source.answer(part, Request(confirmed=True))
        finally:
            await source.close()
        return asked.status, done.status

    assert asyncio.run(run()) == (Status.NEEDS_CONFIRMATION, Status.DONE)
    assert demo_home.simulator is not None
    assert demo_home.simulator.state("front door")["state"] == "UNLOCKED"


def test_understood_sentences_reach_the_demo_devices(
    config: Config, understander: Understander, demo_home: DemoHome
) -> None:
    async def run() -> list[str]:
        settings = load_mqtt_settings(config, demo_home.environment.variables())
        source = MqttSource(config, registry_from_config(config), settings)
        await source.start()
        await source.wait_for_devices()
        try:
            plan = understander.understand("turn on the porch light and is the back door locked")
            return [(await source.answer(p, Request())).text for p in plan.parts()]
        finally:
            await source.close()

    assert asyncio.run(run()) == ["done: the porch light is on", "yes, the back door is locked"]


# ----------------------------------------------------------------- the daemon on the demo


def test_the_daemon_answers_on_the_demo_broker_over_mqtt5(
    demo_home: DemoHome, tmp_path: Path
) -> None:
    """`mnemolis serve` in another shell, with the demo's variables (`shell()`): its MQTT
    API is an MQTT 5 client, so the demo's broker must speak MQTT 5 (why it is not amqtt)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env.update(demo_home.environment.variables())
    env.update(MNEMOLIS_STATE=str(tmp_path / "state"), MNEMOLIS_CACHE=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "mnemolis", "--config", str(ROOT), "serve",
               "--no-http", "--no-wyoming", "--no-hermes", "--mqtt-api"]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    daemon = ServeProcess(process)
    broker = demo_home.broker
    try:
        daemon.wait_ready(["mqtt-api"])
        with MqttProbe(broker.host, broker.port, ["mnemolis/reply/kitchen"]) as probe:
            probe.publish(
                "mnemolis/ask", "turn on the kitchen light", "mnemolis/reply/kitchen", b"k-1"
            )
            got = probe.next()
    finally:
        status = daemon.stop()
    assert status == 0, daemon.output()
    assert (got.topic, got.correlation_data) == ("mnemolis/reply/kitchen", b"k-1")
    assert got.json()["answer"] == "Done: the kitchen light is on."
    assert demo_home.simulator is not None
    assert demo_home.simulator.state("kitchen light")["state"] == "ON"


# ----------------------------------------------------------------- the encyclopedia


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("who was ada lovelace", "mathematician"),
        ("tell me about the eiffel tower", "Paris"),
    ],
)
def test_the_demo_zim_answers(
    config: Config, understander: Understander, demo_home: DemoHome, query: str, words: str
) -> None:
    async def run() -> tuple[Status, str]:
        source = KiwixSource(config, environ=demo_home.environment.variables())
        await source.start()
        try:
            [part] = understander.understand(query).parts()
            answer = await source.answer(part, Request())
        finally:
            await source.close()
        return answer.status, answer.text

    status, text = asyncio.run(run())
    assert status is Status.OK
    assert words in text
