"""The demo's weather: the shipped forecast re-dated into the demo cache, and the
weather source answering from it, dated and named, with the service down."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.demo.recorded_weather import (
    days_to_move,
    load_recording,
    redate,
    seed_demo_forecast,
)
from mnemolis.sources.base import Request, Status, Truth
from mnemolis.sources.weather.cache import WeatherCache
from mnemolis.sources.weather.settings import WeatherSettings
from mnemolis.sources.weather.source import WeatherSource, forecast_key
from mnemolis.understand import Understander
from tests.support_demo import demo_cache, running_demo
from tests.support_open_meteo import OpenMeteoReplay, open_meteo, weather_environ, with_weather
from tests.support_time import FrozenClock
from tests.support_weather import weather_part

__all__ = ["demo_cache", "open_meteo"]

#: A Wednesday afternoon in winter: Berlin is UTC+1, 16:30 there.
WINTER_AFTERNOON = datetime(2026, 1, 14, 15, 30, tzinfo=UTC)
DEMO = "As of 6 hours ago, in the demo's recorded forecast (not live weather), "


# ----------------------------------------------------------------- re-dating


@pytest.mark.parametrize(
    ("now", "first_day"),
    [
        # the recorded "current" hour is 10:00 in Berlin; it must lie an hour back
        (datetime(2026, 1, 14, 15, 30, tzinfo=UTC), date(2026, 1, 14)),  # 16:30 in Berlin
        (datetime(2026, 1, 14, 9, 30, tzinfo=UTC), date(2026, 1, 13)),  # 10:30: not an hour yet
        (datetime(2026, 1, 14, 10, 0, tzinfo=UTC), date(2026, 1, 14)),  # 11:00: an hour exactly
        (datetime(2026, 7, 1, 8, 59, tzinfo=UTC), date(2026, 6, 30)),  # summer: UTC+2
        (datetime(2026, 7, 1, 9, 0, tzinfo=UTC), date(2026, 7, 1)),
        (datetime(2025, 6, 11, 9, 0, tzinfo=UTC), date(2025, 6, 11)),  # the recording's own day
        (datetime(2030, 12, 31, 23, 30, tzinfo=UTC), date(2030, 12, 31)),  # 00:30 on 1 January
    ],
)
def test_the_forecast_moves_to_the_latest_day_an_hour_old(now: datetime, first_day: date) -> None:
    response = load_recording("metric")
    days = days_to_move(response, now, timedelta(hours=1))
    moved = redate(response, days)
    assert moved["daily"]["time"][0] == first_day.isoformat()
    fetched = datetime.fromisoformat(moved["current"]["time"])
    assert fetched.date() == first_day and fetched.hour == 10  # wall-clock hours are kept


@pytest.mark.parametrize(
    ("now", "offset", "abbreviation"),
    [(WINTER_AFTERNOON, 3600, "CET"), (datetime(2026, 7, 1, 12, tzinfo=UTC), 7200, "CEST")],
)
def test_the_utc_offset_is_the_one_of_the_new_day(
    now: datetime, offset: int, abbreviation: str
) -> None:
    response = load_recording("metric")
    moved = redate(response, days_to_move(response, now, timedelta(hours=1)))
    assert (moved["utc_offset_seconds"], moved["timezone_abbreviation"]) == (offset, abbreviation)
    hours = moved["hourly"]["time"]
    assert len(hours) == len(response["hourly"]["time"]) == 168
    assert hours[0].endswith("T00:00") and hours[-1].endswith("T23:00")
    assert moved["hourly"]["temperature_2m"] == response["hourly"]["temperature_2m"]


def test_the_seeded_cache_is_marked_as_the_demo_and_dated(config: Config, tmp_path: Path) -> None:
    seeded = seed_demo_forecast(config, tmp_path, WINTER_AFTERNOON)
    assert seeded.problem is None
    assert seeded.fetched_at == datetime(2026, 1, 14, 9, 0, tzinfo=UTC)  # 10:00 in Berlin
    settings = WeatherSettings.from_config(config, {"MNEMOLIS_WEATHER_CACHE": str(tmp_path)})
    assert settings.place is not None
    saved = WeatherCache(tmp_path).load_forecast(forecast_key(settings.place, settings.units))
    assert saved is not None
    assert (saved.origin, saved.fetched_at) == ("demo", seeded.fetched_at)


def test_a_home_elsewhere_gets_no_demo_forecast(config: Config, tmp_path: Path) -> None:
    paris = with_weather(config, place={"name": "Paris", "latitude": 48.85, "longitude": 2.35})
    seeded = seed_demo_forecast(paris, tmp_path, WINTER_AFTERNOON)
    assert seeded.fetched_at is None
    assert seeded.problem == (
        "the demo's recorded forecast is for Berlin, and the configured home is Paris"
    )
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------- answers, service down


ANSWERS = [
    ("what's the weather tomorrow", "tomorrow: moderate rain, 12°C to 17°C, 80% chance of rain."),
    ("will it rain on saturday", "yes, 70% chance of rain on Saturday, about 3.2 mm."),
    ("what's the weather today", "today: partly cloudy, 14°C to 22°C, 10% chance of rain."),
    ("how cold will it be tonight", "tonight: a low of 12°C."),
]


@pytest.mark.parametrize(("query", "rest"), ANSWERS)
def test_weather_answers_from_the_dated_demo_cache(
    config: Config, understander: Understander, demo_cache: Path, query: str, rest: str
) -> None:
    clock = FrozenClock(WINTER_AFTERNOON)
    home = running_demo(config, demo_cache, now=clock)
    try:
        source = WeatherSource(config, now=clock, environ=home.environment.variables())
        answer = asyncio.run(source.answer(weather_part(understander, query), Request()))
    finally:
        home.stop()
    assert answer.status is Status.OK
    assert answer.text == DEMO + rest
    assert answer.data["stale"] is True and answer.data["origin"] == "demo"
    assert answer.data["age_s"] == 6.5 * 3600
    assert answer.provenance == {
        "from": "cache",
        "origin": "demo",
        "fetched_at": "2026-01-14T09:00:00+00:00",
    }


def test_a_condition_is_checked_against_the_demo_forecast(
    config: Config, understander: Understander, demo_cache: Path
) -> None:
    clock = FrozenClock(WINTER_AFTERNOON)
    home = running_demo(config, demo_cache, now=clock)
    try:
        source = WeatherSource(config, now=clock, environ=home.environment.variables())
        part = weather_part(understander, "if it rains tomorrow close the blinds")
        evaluation = asyncio.run(source.evaluate(part, Request()))
    finally:
        home.stop()
    assert evaluation.truth is Truth.TRUE
    assert evaluation.text.startswith(DEMO + "tomorrow: 80% chance of rain")


def test_another_place_fails_at_once_and_says_why(
    config: Config, understander: Understander, demo_cache: Path
) -> None:
    home = running_demo(config, demo_cache)
    try:
        source = WeatherSource(config, environ=home.environment.variables())
        part = weather_part(understander, "what's the weather in paris")
        answer = asyncio.run(source.answer(part, Request(timeout_s=30)))
    finally:
        home.stop()
    assert answer.status is Status.ERROR
    assert answer.text.endswith("the place search cannot be reached.")


def test_imperial_units_get_the_imperial_recording(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    imperial = with_weather(config, units="imperial")
    clock = FrozenClock(WINTER_AFTERNOON)
    home = running_demo(imperial, tmp_path, now=clock)
    try:
        source = WeatherSource(imperial, now=clock, environ=home.environment.variables())
        answer = asyncio.run(
            source.answer(weather_part(understander, "what's the weather tomorrow"), Request())
        )
    finally:
        home.stop()
    assert answer.text.startswith(DEMO + "tomorrow: moderate rain, 54°F to 63°F")


# ----------------------------------------------------------------- the service wins when it is up


def test_a_live_forecast_is_preferred_to_the_demo_one(
    config: Config, understander: Understander, tmp_path: Path, open_meteo: OpenMeteoReplay
) -> None:
    """The demo's saved forecast is never fresh enough to skip the service, however
    young: once the service answers, the answer is live and says nothing of the demo."""
    clock = FrozenClock(datetime(2025, 6, 11, 8, 10, tzinfo=UTC))  # the replay's own week
    seeded = seed_demo_forecast(config, tmp_path, clock())
    assert seeded.fetched_at is not None
    clock.instant = seeded.fetched_at + timedelta(minutes=5)  # younger than refresh_minutes
    source = WeatherSource(config, now=clock, environ=weather_environ(open_meteo.url, tmp_path))
    answer = asyncio.run(
        source.answer(weather_part(understander, "what's the weather tomorrow"), Request())
    )
    assert answer.provenance["from"] == "open-meteo"
    assert answer.text.startswith("Tomorrow: partly cloudy")
    assert answer.data["stale"] is False and "origin" not in answer.data
    assert len(open_meteo.requests("/v1/forecast")) == 1
