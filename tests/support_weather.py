"""Building a WeatherSource against the replay server, and running it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, PartAnswer, Request
from mnemolis.sources.weather.source import SensorReader, WeatherSource
from mnemolis.understand import Understander
from tests.support_open_meteo import weather_environ, with_weather
from tests.support_time import FrozenClock

#: The recordings start on Wednesday 11 June 2025; Berlin is UTC+2 then.
WEDNESDAY_MORNING = datetime(2025, 6, 11, 8, 0, tzinfo=UTC)  # 10:00 in Berlin
WEDNESDAY_NIGHT = datetime(2025, 6, 11, 19, 30, tzinfo=UTC)  # 21:30 in Berlin
SUNDAY_MORNING = datetime(2025, 6, 15, 8, 0, tzinfo=UTC)


def make_source(
    config: Config,
    url: str,
    cache_dir: Path,
    clock: Callable[[], datetime],
    sensor_reader: SensorReader | None = None,
    **weather: Any,
) -> WeatherSource:
    """A source whose forecast and geocoding calls go to ``url``."""
    return WeatherSource(
        with_weather(config, **weather) if weather else config,
        now=clock,
        sensor_reader=sensor_reader,
        environ=weather_environ(url, cache_dir),
    )


def weather_part(understander: Understander, text: str) -> Part:
    """The weather part understanding makes of ``text`` (the condition, if one)."""
    parts = [p for p in understander.understand(text).parts() if p.source == "weather"]
    assert parts, f"understanding routed no part of {text!r} to the weather"
    return parts[0]


def ask(source: WeatherSource, part: Part, timeout_s: float = 5.0) -> PartAnswer:
    return asyncio.run(source.answer(part, Request(timeout_s=timeout_s)))


def check(source: WeatherSource, part: Part) -> Evaluation:
    return asyncio.run(source.evaluate(part, Request()))


def frozen(instant: datetime) -> FrozenClock:
    return FrozenClock(instant)
