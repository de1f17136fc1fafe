"""Fixtures for the MQTT tests: a real Mosquitto, simulated devices, a running source.

Every test gets its own broker on a free loopback port (it starts in ~20 ms),
so retained messages never leak from one test into the next. Without the
mosquitto binary the tests skip on a developer machine and fail under CI.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.subscribeoptions import SubscribeOptions

from mnemolis.config import Config
from mnemolis.config.intents import IntentSpec
from mnemolis.core.devices import TYPE_ACTIONS, Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.demo.mosquitto import Mosquitto, free_port
from mnemolis.demo.simulator import Announce, Simulator, zigbee2mqtt_device
from mnemolis.sources.base import PartAnswer, Request
from mnemolis.sources.mqtt.settings import MqttSettings, Timeouts, load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import registry_from_config
from tests.tools import require


def require_mosquitto() -> str:
    return require("mosquitto")


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


def with_actions(config: Config) -> Config:
    """The config with an intent ``act.<action>`` for every device action, so a test can
    drive an action the shipped intents do not phrase yet (understanding's part)."""
    intents = dict(config.intents)
    for action in sorted({a for actions in TYPE_ACTIONS.values() for a in actions}):
        intents.setdefault(f"act.{action}", IntentSpec(f"act.{action}", "mqtt", [], action=action))
    return dataclasses.replace(config, intents=intents)


def part_acting(config: Config, action: str, **slots: Any) -> Part:
    """A part carrying out ``action`` (the config must come from `with_actions`)."""
    return part_for(config, f"act.{action}", **slots)


@dataclass(frozen=True)
class Published:
    """One message as a subscriber with retain-as-published saw it."""

    topic: str
    payload: bytes
    qos: int
    retain: bool


class Capture:
    """An MQTT 5 client that records everything published (``#``, QoS 2, retain as
    published), so a test sees the exact topic, payload bytes, QoS and retain flag."""

    def __init__(self, broker: Address, topics: str = "#") -> None:
        self.messages: list[Published] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=f"capture-{time.monotonic_ns() % 10**9}",
            protocol=mqtt.MQTTv5,
        )
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *_a: self._ready.set()
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        options = SubscribeOptions(qos=2, retainAsPublished=True)
        self.client.subscribe(topics, options=options)
        if not self._ready.wait(5.0):
            raise TimeoutError("the capture client did not subscribe")

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.messages.append(
                Published(msg.topic, bytes(msg.payload), msg.qos, bool(msg.retain))
            )

    def since(self, mark: int, prefix: str = "") -> list[Published]:
        with self._lock:
            return [m for m in self.messages[mark:] if m.topic.startswith(prefix)]

    def mark(self) -> int:
        with self._lock:
            return len(self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@asynccontextmanager
async def publisher(broker: Address) -> AsyncIterator[Callable[..., Awaitable[None]]]:
    """An async ``publish(topic, payload, retain=False)`` on its own paho client (QoS 1)."""
    client = mqtt.Client(
        callback_api_version=CallbackAPIVersion.VERSION2,
        client_id=f"publisher-{time.monotonic_ns() % 10**9}",
    )
    await asyncio.to_thread(client.connect, broker.host, broker.port)
    client.loop_start()

    async def publish(topic: str, payload: str | bytes, retain: bool = False) -> None:
        info = client.publish(topic, payload, qos=1, retain=retain)
        await asyncio.to_thread(info.wait_for_publish, 5.0)

    try:
        yield publish
    finally:
        client.disconnect()
        client.loop_stop()


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


async def eventually(check: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Wait until ``check()`` holds; fail the test when it does not in time."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not become true in time")
        await asyncio.sleep(0.01)


def with_device(config: Config, name: str, **changes: Any) -> Config:
    """The config with one YAML device changed (allow, confirm, topics ...)."""
    devices = [dataclasses.replace(d, **changes) if d.name == name else d for d in config.devices]
    return dataclasses.replace(config, devices=devices)


def z2m_home() -> list[Device]:
    """One device of each kind, as zigbee2mqtt's bridge announces them."""
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


__all__ = [
    "Capture",
    "Home",
    "Nowhere",
    "Published",
    "broker",
    "eventually",
    "part_acting",
    "part_for",
    "publisher",
    "require_mosquitto",
    "running_home",
    "settings_for",
    "with_actions",
    "with_device",
    "without_yaml_devices",
    "z2m_home",
]
