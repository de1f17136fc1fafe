"""An assistant on real sources, for end-to-end tests.

`running_assistant` starts the whole house for one test: the simulated
default home on a real Mosquitto (devices from `sources/mqtt.yaml`, or
announced by Home Assistant discovery), the MQTT source, a Kiwix source
reading a test ZIM, the weather source against the replayed Open-Meteo
server with a frozen clock, and the clock source on the same frozen clock.
Import the fixtures you need (`broker`, `open_meteo`, `test_zims`) into the
test module next to it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.announce import Announcer
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Announce, Simulator
from mnemolis.runtime.answer import Answer
from mnemolis.runtime.assistant import Assistant
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.sources.base import Source, Status
from mnemolis.sources.clock.source import ClockSource
from mnemolis.sources.kiwix.source import KiwixSource
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config
from tests.support_kiwix import KiwixZims, kiwix_config
from tests.support_mqtt import settings_for
from tests.support_open_meteo import OpenMeteoReplay
from tests.support_time import FrozenClock
from tests.support_weather import WEDNESDAY_MORNING, make_source


@dataclass
class TurnClock:
    """The conversations' clock (monotonic seconds), moved by the test."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class House:
    """A running assistant and what it talks to."""

    assistant: Assistant
    simulator: Simulator
    broker: Mosquitto
    clock: FrozenClock
    turns: TurnClock

    async def ask(self, text: str, session: str = "default") -> Answer:
        return await self.assistant.ask(text, session)

    @property
    def mqtt(self) -> MqttSource:
        source = self.assistant.source_of(MqttSource)
        assert source is not None
        return source

    def commands(self, device: str) -> list[str]:
        """The payloads ``device`` received, in order."""
        return [c.payload for c in self.simulator.received(device)]

    async def until(self, check: Callable[[], bool], timeout_s: float = 5.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not check():
            assert time.monotonic() < deadline, "the condition did not become true in time"
            await asyncio.sleep(0.005)

    async def report(self, device: str, **values: Any) -> None:
        """A device reports a new state on its own; returns once the assistant has it."""
        mqtt = self.mqtt
        found = self.assistant.registry.by_name(device)
        assert found is not None
        before = mqtt.state_of(found.id)
        seq = before.seq if before is not None else 0
        await asyncio.to_thread(self.simulator.report, device, **values)

        def arrived() -> bool:
            state = mqtt.state_of(found.id)
            return state is not None and state.seq != seq

        await self.until(arrived)


def quick(config: Config, **numbers: Any) -> AssistantSettings:
    """The configured assistant settings with some numbers changed."""
    return dataclasses.replace(AssistantSettings.from_config(config), **numbers)


_SHARED: dict[int, tuple[Config, Understander]] = {}


def shared_understander(config: Config) -> Understander:
    """One understander (on a registry of the YAML devices) for every test of a session:
    building one takes a quarter of a second. Tests of discovery or titles build their own."""
    found = _SHARED.get(id(config))
    if found is None or found[0] is not config:
        found = _SHARED[id(config)] = (config, Understander(config))
    return found[1]


@asynccontextmanager
async def running_assistant(
    config: Config,
    broker: Mosquitto,
    weather_url: str,
    zim: Path,
    cache_dir: Path,
    announce: Announce = "none",
    instant: Any = WEDNESDAY_MORNING,
    settings: AssistantSettings | None = None,
    own_understander: bool = False,
    more: Callable[[MqttSource, Announcer], list[Source]] | None = None,
    **mqtt_timeouts: float,
) -> AsyncIterator[House]:
    """The default home, simulated, and an assistant over all four real sources.

    Devices announced by discovery change the registry, so those tests (and
    ``own_understander``) get an understander of their own, with the ZIM's titles.
    ``more`` adds sources (the timers source), given the MQTT source and the
    assistant's announcer."""
    fresh = own_understander or announce != "none"
    understander = None if fresh else shared_understander(config)
    registry = registry_from_config(config) if understander is None else understander.registry
    simulator = Simulator(broker.host, broker.port, config.devices, announce=announce)
    await asyncio.to_thread(simulator.start)
    clock = FrozenClock(instant)
    mqtt = MqttSource(config, registry, settings_for(config, broker, **mqtt_timeouts))
    kiwix = KiwixSource(kiwix_config(config, books=[{"path": str(zim)}]), environ={})
    weather = make_source(config, weather_url, cache_dir, clock, mqtt.read_sensor)
    turns = TurnClock()
    announcer = Announcer()
    extra = more(mqtt, announcer) if more is not None else []
    assistant = await Assistant.start(
        config,
        sources=[mqtt, kiwix, weather, ClockSource(config, now=clock), *extra],
        registry=registry,
        settings=settings,
        one_shot=True,
        clock=turns,
        understander=understander,
        announcer=announcer,
    )
    try:
        yield House(assistant, simulator, broker, clock, turns)
    finally:
        await assistant.close()
        await asyncio.to_thread(simulator.stop)


def statuses(answer: Answer) -> list[Status]:
    return [p.status for p in answer.parts]


@dataclass
class World:
    """Everything a test's house runs on: broker, weather replay, ZIMs, a scratch folder."""

    config: Config
    broker: Mosquitto
    open_meteo: OpenMeteoReplay
    zims: KiwixZims
    folder: Path

    def run(
        self, scenario: Callable[[House], Awaitable[None]], zim: Path | None = None, **options: Any
    ) -> None:
        """Start the house (options as `running_assistant`), play ``scenario``, stop it."""

        async def main() -> None:
            async with running_assistant(
                self.config,
                self.broker,
                self.open_meteo.url,
                zim or self.zims.main,
                self.folder / "weather",
                **options,
            ) as house:
                await scenario(house)

        asyncio.run(main())


@pytest.fixture(name="world")
def fixture_world(
    config: Config,
    broker: Mosquitto,
    open_meteo: OpenMeteoReplay,
    test_zims: KiwixZims,
    tmp_path: Path,
) -> World:
    """Import with `broker`, `open_meteo` and `fixture_test_zims`, which it builds on."""
    return World(config, broker, open_meteo, test_zims, tmp_path)


__all__ = ["House", "TurnClock", "World", "fixture_world", "quick", "running_assistant", "statuses"]
