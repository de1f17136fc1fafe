"""The timers source in a test: built beside the others, and an ear for what it says."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.core.announce import Announcement, Announcer, TimerNotice
from mnemolis.sources.base import Source
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.sources.timers.source import TimersSource
from tests.support_assistant import House, World


@dataclass
class Heard:
    """Every announcement and every timer notice, with the wall-clock second each
    arrived, in the order they came (`listen` subscribes it to both)."""

    said: list[tuple[float, Announcement | TimerNotice]] = field(default_factory=list)

    def __call__(self, announcement: Announcement) -> None:
        self.said.append((time.time(), announcement))

    def notice(self, notice: TimerNotice) -> None:
        self.said.append((time.time(), notice))

    def listen(self, announcer: Announcer) -> Heard:
        announcer.subscribe(self)
        announcer.subscribe_notices(self.notice)
        return self

    def spoken(self) -> list[Announcement]:
        return [a for _t, a in self.said if isinstance(a, Announcement)]

    def events(self) -> list[str]:
        """What each timer notice told, and "finished" for a timer that rang."""
        return [
            a.event if isinstance(a, TimerNotice) else "finished"
            for _t, a in self.said
            if a.kind == "timer"
        ]

    async def next(self, timeout_s: float = 5.0, after: int = 0) -> tuple[float, Announcement]:
        """The first spoken announcement after the first ``after`` of them."""
        deadline = time.monotonic() + timeout_s
        while True:
            spoken = [(t, a) for t, a in self.said if isinstance(a, Announcement)]
            if len(spoken) > after:
                return spoken[after]
            assert time.monotonic() < deadline, f"nothing was said in {timeout_s} s"
            await asyncio.sleep(0.005)


def with_timers(
    config: Config, folder: Path, built: list[TimersSource] | None = None
) -> Callable[[MqttSource, Announcer], list[Source]]:
    """For `running_assistant(more=...)`: a timers source keeping its file in ``folder``,
    watching devices through the house's MQTT source."""

    def build(mqtt: MqttSource, announcer: Announcer) -> list[Source]:
        timers = TimersSource(config, mqtt.registry, folder, announcer, peers={"mqtt": mqtt})
        if built is not None:
            built.append(timers)
        return [timers]

    return build


def play(world: World, scenario: Any, built: list[TimersSource] | None = None) -> None:
    """Run ``scenario(house, heard)`` in ``world`` with the timers source and an ear on
    every announcement."""

    async def with_ear(house: House) -> None:
        heard = Heard().listen(house.assistant.announcer)
        await scenario(house, heard)

    world.run(with_ear, more=with_timers(world.config, world.folder / "state", built))
