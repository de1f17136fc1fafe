"""How cheap the weather and clock sources are once a forecast is in hand.

Prints a table (median, p50, p99 in microseconds) for: parsing a recorded
Open-Meteo response, answering from the in-memory forecast (no HTTP: the
forecast is fresh), evaluating a condition, and the clock's answers. The
first answer, which fetches from a loopback replay server, is timed alone.

    .venv/bin/python bench/weather.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import load_config  # noqa: E402
from mnemolis.core.plan import Part  # noqa: E402
from mnemolis.sources.base import Request  # noqa: E402
from mnemolis.sources.clock.source import ClockSource  # noqa: E402
from mnemolis.sources.weather.forecast import parse_forecast  # noqa: E402
from mnemolis.sources.weather.source import WeatherSource  # noqa: E402
from tests.support_open_meteo import OpenMeteoReplay, recorded, weather_environ  # noqa: E402
from tests.support_time import FrozenClock  # noqa: E402

ROUNDS = 2000
NOW = datetime(2025, 6, 11, 8, 0, tzinfo=UTC)


def measure(call: Callable[[], object], rounds: int = ROUNDS) -> list[float]:
    call()  # warm
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)
    return sorted(times)


def row(name: str, times: list[float]) -> str:
    p50 = times[len(times) // 2]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    median = statistics.median(times)
    return f"{name:<44} {median:>10.1f} {p50:>10.1f} {p99:>10.1f}"


def main() -> None:
    config = load_config(ROOT)
    raw = json.loads(recorded("forecast_berlin_metric.json"))
    server = OpenMeteoReplay()
    server.start()
    loop = asyncio.new_event_loop()
    try:
        clock = FrozenClock(NOW)
        with tempfile.TemporaryDirectory() as cache:
            env = weather_environ(server.url, Path(cache))
            weather = WeatherSource(config, now=clock, environ=env)
            clock_source = ClockSource(config, now=clock)
            request = Request()
            rain = Part(
                "will it rain this weekend",
                "weather.forecast",
                "weather",
                {"metric": "rain", "day": "weekend"},
            )
            week = Part(
                "what's the weather this week", "weather.forecast", "weather", {"day": "week"}
            )
            cond = Part(
                "it rains tomorrow",
                "weather.forecast",
                "weather",
                {"metric": "rain", "day": "tomorrow"},
            )
            countdown = Part("how many days until christmas", "clock.date", "clock")
            tokyo = Part("what time is it in tokyo", "clock.time", "clock", {"location": "tokyo"})

            start = time.perf_counter()
            loop.run_until_complete(weather.answer(rain, request))
            first_ms = (time.perf_counter() - start) * 1000

            rows = [
                row(
                    "parse recorded forecast (7 days, 168 h)",
                    measure(lambda: parse_forecast(raw), 300),
                ),
                row(
                    "answer 'will it rain this weekend' (warm)",
                    measure(lambda: loop.run_until_complete(weather.answer(rain, request))),
                ),
                row(
                    "answer 'weather this week' (warm)",
                    measure(lambda: loop.run_until_complete(weather.answer(week, request))),
                ),
                row(
                    "evaluate 'it rains tomorrow' (warm)",
                    measure(lambda: loop.run_until_complete(weather.evaluate(cond, request))),
                ),
                row(
                    "clock 'how many days until christmas'",
                    measure(
                        lambda: loop.run_until_complete(clock_source.answer(countdown, request))
                    ),
                ),
                row(
                    "clock 'what time is it in tokyo'",
                    measure(lambda: loop.run_until_complete(clock_source.answer(tokyo, request))),
                ),
            ]
    finally:
        loop.close()
        server.stop()
    print(f"{'microseconds':<44} {'median':>10} {'p50':>10} {'p99':>10}")
    for line in rows:
        print(line)
    print(f"first answer incl. loopback HTTP fetch + parse + disk save: {first_ms:.1f} ms")


if __name__ == "__main__":
    main()
