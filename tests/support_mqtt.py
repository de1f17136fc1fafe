"""Fixtures for the MQTT tests: a real Mosquitto, simulated devices, a running source.

Every test gets its own broker on a free loopback port (it starts in ~20 ms),
so retained messages never leak from one test into the next. Without the
mosquitto binary the tests skip on a developer machine and fail under CI.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto, find_mosquitto, free_port
from mnemolis.demo.simulator import Announce, Simulator
from mnemolis.devices import Device, DeviceRegistry
from mnemolis.plan import Part
from mnemolis.sources.base import PartAnswer, Request
from mnemolis.sources.mqtt.settings import MqttSettings, Timeouts, load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import registry_from_config
from tests.conftest import IN_CI


def require_mosquitto() -> str:
    binary = find_mosquitto()
    if binary is None:
        if IN_CI:
            pytest.fail("mosquitto is not installed, and CI must run the MQTT tests")
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    return binary


@pytest.fixture
def broker() -> Iterator[Mosquitto]:
    """A fresh Mosquitto on a free loopback port, stopped after the test."""
    mosquitto = Mosquitto(require_mosquitto())
    mosquitto.start()
    try:
        yield mosquitto
    finally:
        mosquitto.cleanup()


class Address(Protocol):
    host: str
    port: int


@dataclass
class Nowhere:
    """A loopback port where no broker listens."""

    host: str = "127.0.0.1"
    port: int = field(default_factory=free_port)


def settings_for(
    config: Config,
    broker: Address,
    confirm_s: float = 1.0,
    answer_s: float = 3.0,
    stale_s: float = 900.0,
    **broker_fields: Any,
) -> MqttSettings:
    """The config's settings, pointed at the test broker, with short deadlines."""
    base = load_mqtt_settings(config, env={})
    return dataclasses.replace(
        base,
        broker=dataclasses.replace(
            base.broker,
            **{
                "host": broker.host,
                "port": broker.port,
                "reconnect_min_s": 0.1,
                "reconnect_max_s": 0.5,
                **broker_fields,
            },
        ),
        timeouts=Timeouts(confirm_s=confirm_s, answer_s=answer_s, stale_s=stale_s),
        discovery=dataclasses.replace(base.discovery, wait_s=3.0),
    )


def without_yaml_devices(config: Config) -> Config:
    """The config with no YAML devices: discovery tests start from an empty house."""
    return dataclasses.replace(config, devices=[])


def part_for(config: Config, intent: str, **slots: Any) -> Part:
    spec = config.intents[intent]
    return Part(text=slots.pop("text", intent), intent=intent, source=spec.source, slots=slots)


@dataclass
class Home:
    """A broker, simulated devices and a started MQTT source on one registry."""

    config: Config
    broker: Mosquitto
    registry: DeviceRegistry
    simulator: Simulator | None
    source: MqttSource

    async def ask(self, intent: str, confirmed: bool = False, **slots: Any) -> PartAnswer:
        part = part_for(self.config, intent, **slots)
        return await self.source.answer(part, Request(confirmed=confirmed))

    def sim(self) -> Simulator:
        assert self.simulator is not None
        return self.simulator


@asynccontextmanager
async def running_home(
    config: Config,
    broker: Mosquitto,
    devices: Iterable[Device] | None = None,
    announce: Announce = "none",
    settings: MqttSettings | None = None,
    **setting_fields: Any,
) -> AsyncIterator[Home]:
    """Simulated ``devices`` (default: the YAML home) and a source that has seen them."""
    registry = registry_from_config(config)
    simulated = list(config.devices if devices is None else devices)
    simulator = None
    if simulated:
        simulator = Simulator(broker.host, broker.port, simulated, announce=announce)
        await asyncio.to_thread(simulator.start)
    source = MqttSource(
        config, registry, settings or settings_for(config, broker, **setting_fields)
    )
    await source.start()
    report = await source.wait_for_devices()
    assert report.connected, broker.log()
    try:
        yield Home(config, broker, registry, simulator, source)
    finally:
        await source.close()
        if simulator is not None:
            await asyncio.to_thread(simulator.stop)


__all__ = [
    "Home",
    "Nowhere",
    "broker",
    "part_for",
    "require_mosquitto",
    "running_home",
    "settings_for",
    "without_yaml_devices",
]
