"""`sources/weather.yaml` and the environment, checked once into typed settings.

A wrong value is a `ConfigError` naming the file and line; the weather source
turns it into an error answer rather than failing to start.
"""

from __future__ import annotations

import os
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from mnemolis.config import At, Config, ConfigError
from mnemolis.sources.weather.open_meteo import UNIT_PARAMS, Place
from mnemolis.sources.weather.words import weather_words

ENV_BASE_URL = "MNEMOLIS_WEATHER_URL"
ENV_GEOCODING_URL = "MNEMOLIS_GEOCODING_URL"
ENV_CACHE = "MNEMOLIS_WEATHER_CACHE"
DEFAULT_CACHE = Path("~/.cache/mnemolis/weather")
MAX_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Thresholds:
    """When a condition counts as true, in metric units (``<metric>_<key>`` in YAML)."""

    rain_probability: float
    rain_precipitation_mm: float
    snow_snowfall_cm: float
    wind_speed_kmh: float
    wind_gusts_kmh: float
    cold_below_c: float
    hot_above_c: float
    sun_sunshine_hours: float
    cloud_cover_percent: float
    humidity_relative_percent: float


@dataclass(frozen=True)
class WeatherSettings:
    base_url: str
    geocoding_url: str
    place: Place | None  # with the configured time zone; None: look ``place_name`` up
    place_name: str
    units: str  # metric | imperial
    timezone: str | None
    timeout_s: float
    forecast_days: int
    refresh_s: float
    max_cache_age_s: float
    cache_dir: Path
    local_sensors: dict[str, str]
    thresholds: Thresholds

    @classmethod
    def from_config(
        cls, config: Config, environ: Mapping[str, str] | None = None
    ) -> WeatherSettings:
        env = os.environ if environ is None else environ
        path = config.root / "sources" / "weather.yaml"
        at = At(path)
        raw = config.sources.get("weather")
        if raw is None:
            raise ConfigError(path, None, "missing: the weather source needs sources/weather.yaml")
        provider = raw.get("provider", "open-meteo")
        if provider != "open-meteo":
            raise (at / "provider").error(f"unknown provider {provider!r} (expected open-meteo)")
        units = raw.get("units", "metric")
        if units not in UNIT_PARAMS:
            raise (at / "units").error(f"units must be metric or imperial, not {units!r}")
        timezone = raw.get("timezone")
        if timezone is not None:
            _check_timezone(timezone, at / "timezone")
        place, place_name = _place(raw.get("place"), at / "place")
        if place is not None and timezone is not None:
            place = replace(place, timezone=timezone)
        cache = env.get(ENV_CACHE) or raw.get("cache_dir") or str(DEFAULT_CACHE)
        return cls(
            base_url=_url(env.get(ENV_BASE_URL) or raw.get("base_url"), at / "base_url"),
            geocoding_url=_url(
                env.get(ENV_GEOCODING_URL) or raw.get("geocoding_url"), at / "geocoding_url"
            ),
            place=place,
            place_name=place_name,
            units=str(units),
            timezone=timezone,
            timeout_s=_number(raw.get("timeout_s", 4.0), at / "timeout_s", 0.1, MAX_TIMEOUT_S),
            forecast_days=int(_number(raw.get("forecast_days", 7), at / "forecast_days", 1, 16)),
            refresh_s=60 * _number(raw.get("refresh_minutes", 15), at / "refresh_minutes", 0, 1440),
            max_cache_age_s=3600
            * _number(raw.get("max_cache_age_hours", 48), at / "max_cache_age_hours", 0, 24 * 30),
            cache_dir=Path(str(cache)).expanduser(),
            local_sensors=_sensors(raw.get("local_sensors"), at / "local_sensors"),
            thresholds=_thresholds(raw.get("thresholds"), at / "thresholds"),
        )


def _check_timezone(name: Any, at: At) -> None:
    if name == "auto":
        return
    try:
        zoneinfo.ZoneInfo(str(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise at.error(f"unknown time zone {name!r}") from exc


def _url(value: Any, at: At) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        key = at.keys[-1] if at.keys else "url"
        raise at.error(f"{key} must be an http:// or https:// URL, not {value!r}")
    return value


def _number(value: Any, at: At, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        key = at.keys[-1] if at.keys else "value"
        raise at.error(f"{key} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _place(value: Any, at: At) -> tuple[Place | None, str]:
    if isinstance(value, str) and value.strip():
        return None, value.strip()
    if not isinstance(value, dict):
        raise at.error("place must be a name or {name, latitude, longitude}")
    name = value.get("name")
    lat, lon = value.get("latitude"), value.get("longitude")
    if lat is None and lon is None:
        if not isinstance(name, str) or not name.strip():
            raise at.error("place needs a name, or latitude and longitude")
        return None, name.strip()
    latitude = _number(lat, at / "latitude", -90, 90)
    longitude = _number(lon, at / "longitude", -180, 180)
    label = name.strip() if isinstance(name, str) and name.strip() else f"{latitude}, {longitude}"
    return Place(label, latitude, longitude), label


def _sensors(value: Any, at: At) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise at.error("local_sensors must map a metric to a sensor name")
    known = set(weather_words().metric_names)
    for metric in value:
        if metric not in known:
            raise (at / metric).error(f"unknown metric {metric!r} (one of {', '.join(known)})")
    return dict(value)


def _thresholds(value: Any, at: At) -> Thresholds:
    merged = {m: dict(limits) for m, limits in weather_words().default_thresholds.items()}
    if value is not None and not isinstance(value, dict):
        raise at.error("thresholds must be a mapping")
    for metric, limits in (value or {}).items():
        if metric not in merged or not isinstance(limits, dict):
            raise (at / metric).error(
                f"unknown threshold {metric!r} (one of {', '.join(merged)}), or not a mapping"
            )
        for key, number in limits.items():
            if key not in merged[metric]:
                known = ", ".join(merged[metric])
                raise (at / metric / key).error(f"{metric}: unknown key {key!r} (one of {known})")
            merged[metric][key] = _number(number, at / metric / key, -100, 10_000)
    flat = {f"{metric}_{key}": v for metric, limits in merged.items() for key, v in limits.items()}
    missing = [f.name for f in fields(Thresholds) if f.name not in flat]
    if missing:  # the shipped defaults and the dataclass disagree: a bug, said plainly
        raise at.error(f"thresholds without a default: {', '.join(missing)}")
    return Thresholds(**{f.name: flat[f.name] for f in fields(Thresholds)})


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    WeatherSettings.from_config(config, environ={})
