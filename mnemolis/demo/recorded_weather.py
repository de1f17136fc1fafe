"""The demo's weather: a shipped forecast, re-dated and saved into a weather cache.

There is no internet in the demo, so the weather source answers from its
cache. This module puts the forecast shipped in ``data/`` (Open-Meteo's wire
format, described in ``weather.yaml``) into that cache: every time in it is
moved by whole days so that the week covers today, the fetch time becomes
the recorded "current" hour on the latest such day at least an hour ago,
and the record is marked ``origin: demo``, so every answer from it says it
comes from the demo's recorded forecast and how old it is.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

from mnemolis.config import Config, ConfigError
from mnemolis.sources.weather.cache import WeatherCache
from mnemolis.sources.weather.settings import ENV_CACHE, WeatherSettings
from mnemolis.sources.weather.source import forecast_key, utc_now


@dataclass(frozen=True)
class RecordedWeather:
    """What ``weather.yaml`` says about the shipped forecast."""

    place: str
    latitude: float
    longitude: float
    tolerance_degrees: float
    files: dict[str, str]
    min_age: timedelta
    origin: str


@dataclass
class SeededForecast:
    """The demo forecast as saved, or why it was not (the answer will say none is saved)."""

    place: str
    path: Path | None = None
    fetched_at: datetime | None = None
    days_moved: int = 0
    problem: str | None = None


def recorded_weather() -> RecordedWeather:
    raw = yaml.safe_load(resources.files("mnemolis.demo").joinpath("weather.yaml").read_text())
    place = raw["place"]
    return RecordedWeather(
        place=str(place["name"]),
        latitude=float(place["latitude"]),
        longitude=float(place["longitude"]),
        tolerance_degrees=float(raw["tolerance_degrees"]),
        files={str(k): str(v) for k, v in raw["files"].items()},
        min_age=timedelta(hours=float(raw["min_age_hours"])),
        origin=str(raw["origin"]),
    )


def load_recording(units: str) -> dict[str, Any]:
    name = recorded_weather().files[units]
    text = resources.files("mnemolis.demo").joinpath("data", name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _shift(stamp: str, days: int) -> str:
    """An Open-Meteo local time ("2025-06-11T10:00" or "2025-06-11") moved by days."""
    if "T" in stamp:
        return (datetime.fromisoformat(stamp) + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")
    return (datetime.fromisoformat(stamp) + timedelta(days=days)).strftime("%Y-%m-%d")


def redate(response: dict[str, Any], days: int) -> dict[str, Any]:
    """The response with every time moved by ``days`` (wall-clock times kept), and the
    UTC offset the place has on the new "current" day."""
    out = copy.deepcopy(response)
    for block in ("hourly", "daily"):
        if isinstance(out.get(block), dict) and isinstance(out[block].get("time"), list):
            out[block]["time"] = [_shift(str(t), days) for t in out[block]["time"]]
    current = out.get("current")
    if isinstance(current, dict) and isinstance(current.get("time"), str):
        current["time"] = _shift(current["time"], days)
        zone = ZoneInfo(str(out.get("timezone", "UTC")))
        local = datetime.fromisoformat(current["time"]).replace(tzinfo=zone)
        offset = local.utcoffset() or timedelta(0)
        out["utc_offset_seconds"] = int(offset.total_seconds())
        out["timezone_abbreviation"] = local.tzname() or out.get("timezone_abbreviation", "")
    return out


def days_to_move(response: dict[str, Any], now: datetime, min_age: timedelta) -> int:
    """Whole days that bring the recorded "current" hour to the latest day on which it
    lies at least ``min_age`` before ``now``."""
    zone = ZoneInfo(str(response.get("timezone", "UTC")))
    recorded = datetime.fromisoformat(str(response["current"]["time"]))
    latest = now.astimezone(zone).replace(tzinfo=None) - min_age
    days = (latest.date() - recorded.date()).days
    if recorded + timedelta(days=days) > latest:
        days -= 1
    return days


def seed_demo_forecast(
    config: Config, cache_dir: Path, now: datetime | None = None
) -> SeededForecast:
    """Save the demo forecast for the configured home into ``cache_dir``.

    Only when the home is the recording's place: a forecast for Berlin is not
    said to be the weather of anywhere else.
    """
    recording = recorded_weather()
    seeded = SeededForecast(recording.place)
    try:
        settings = WeatherSettings.from_config(config, {ENV_CACHE: str(cache_dir)})
    except ConfigError as exc:
        seeded.problem = f"the weather settings are broken: {exc}"
        return seeded
    place = settings.place
    if place is None or (
        abs(place.latitude - recording.latitude) > recording.tolerance_degrees
        or abs(place.longitude - recording.longitude) > recording.tolerance_degrees
    ):
        home = place.name if place is not None else settings.place_name
        seeded.problem = (
            f"the demo's recorded forecast is for {recording.place}, "
            f"and the configured home is {home}"
        )
        return seeded
    response = load_recording(settings.units)
    now = now or utc_now()
    days = days_to_move(response, now, recording.min_age)
    moved = redate(response, days)
    zone = ZoneInfo(str(moved["timezone"]))
    fetched_at = datetime.fromisoformat(moved["current"]["time"]).replace(tzinfo=zone)
    key = forecast_key(place, settings.units)
    cache = WeatherCache(cache_dir)
    if not cache.save_forecast(key, moved, fetched_at.astimezone(UTC), recording.origin):
        seeded.problem = f"the weather cache {cache_dir} cannot be written"
        return seeded
    seeded.path = cache_dir
    seeded.fetched_at = fetched_at.astimezone(UTC)
    seeded.days_moved = days
    return seeded
