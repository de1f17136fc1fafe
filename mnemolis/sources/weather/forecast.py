"""An Open-Meteo forecast response as typed data.

Current conditions, each day and any window of hours ("tonight") reduce to
the same `Conditions`, so every question reads one shape. Values stay in the
units the service sent (the configured ones); `to_metric` converts them for
thresholds, which are written in metric units.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from mnemolis.sources.weather.open_meteo import CURRENT_FIELDS, DAILY_FIELDS, HOURLY_FIELDS

MAX_DAYS = 16
MAX_HOURS = MAX_DAYS * 24

# factors (or functions) from a wire unit to the metric unit thresholds use
_TO_CELSIUS: dict[str, Callable[[float], float]] = {
    "°C": lambda v: v,
    "C": lambda v: v,
    "°F": lambda v: (v - 32.0) * 5.0 / 9.0,
    "F": lambda v: (v - 32.0) * 5.0 / 9.0,
    "K": lambda v: v - 273.15,
}
_FROM_CELSIUS: dict[str, Callable[[float], float]] = {
    "°C": lambda v: v,
    "°F": lambda v: v * 9.0 / 5.0 + 32.0,
}
_FACTORS: dict[str, dict[str, float]] = {
    "wind": {"km/h": 1.0, "kmh": 1.0, "mp/h": 1.609344, "mph": 1.609344, "m/s": 3.6, "kn": 1.852},
    "precipitation": {"mm": 1.0, "inch": 25.4, "in": 25.4},
    "snowfall": {"cm": 1.0, "mm": 0.1, "inch": 2.54, "in": 2.54},
}


class ForecastFormatError(ValueError):
    """The response is JSON but not a forecast we can read."""


def to_metric(kind: str, value: float, unit: str) -> float:
    """A value in °C, km/h, mm or cm; an unknown unit is taken as already metric."""
    if kind == "temperature":
        return _TO_CELSIUS.get(unit, _TO_CELSIUS["°C"])(value)
    return value * _FACTORS[kind].get(unit, 1.0)


def celsius_to(unit: str, value: float) -> float:
    return _FROM_CELSIUS.get(unit, _FROM_CELSIUS["°C"])(value)


@dataclass(frozen=True)
class Units:
    """The units a forecast's values are in, as Open-Meteo names them."""

    temperature: str = "°C"
    precipitation: str = "mm"
    snowfall: str = "cm"
    wind: str = "km/h"


@dataclass(frozen=True)
class Conditions:
    """The weather of one moment, hour, day or window; None where unknown."""

    weather_code: int | None = None
    codes: frozenset[int] = frozenset()  # every code seen in the period
    temperature: float | None = None  # a moment or an hour
    apparent_temperature: float | None = None
    temperature_max: float | None = None
    temperature_min: float | None = None
    precipitation: float | None = None  # sum over the period
    precipitation_probability: float | None = None  # the highest in the period
    snowfall: float | None = None
    wind_speed: float | None = None  # the highest in the period
    wind_gusts: float | None = None
    sunshine_s: float | None = None
    cloud_cover: float | None = None  # mean
    humidity: float | None = None  # mean
    is_day: bool | None = None


@dataclass(frozen=True)
class Hour:
    time: datetime  # naive, local time of the place
    conditions: Conditions


@dataclass
class Forecast:
    """Everything one response said, for one place."""

    latitude: float
    longitude: float
    timezone: str
    utc_offset_s: int
    units: Units
    current: Conditions | None = None
    current_time: datetime | None = None
    days: dict[date, Conditions] = field(default_factory=dict)
    hours: list[Hour] = field(default_factory=list)

    def local_time(self, now: datetime) -> datetime:
        """``now`` as the place's wall clock (naive), from the offset the service sent."""
        aware = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
        return (aware.astimezone(UTC) + timedelta(seconds=self.utc_offset_s)).replace(tzinfo=None)

    def covers(self, day: date) -> bool:
        return day in self.days

    def day(self, day: date) -> Conditions | None:
        return self.days.get(day)

    def window(self, start: datetime, end: datetime) -> Conditions | None:
        """Hours in ``[start, end)`` summed up; None when the forecast has none of them."""
        inside = [h.conditions for h in self.hours if start <= h.time < end]
        return aggregate(inside) if inside else None

    def hour(self, moment: datetime) -> Conditions | None:
        """The hour that holds ``moment`` (local, naive)."""
        start = moment.replace(minute=0, second=0, microsecond=0)
        for h in self.hours:
            if h.time == start:
                return h.conditions
        return None


def _max(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _min(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def _sum(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def aggregate(hours: list[Conditions]) -> Conditions:
    """Hours into one period: extremes, sums, means and the most severe code."""
    codes = frozenset(c.weather_code for c in hours if c.weather_code is not None)
    return Conditions(
        weather_code=max(codes) if codes else None,
        codes=codes,
        temperature_max=_max(c.temperature for c in hours),
        temperature_min=_min(c.temperature for c in hours),
        precipitation=_sum(c.precipitation for c in hours),
        precipitation_probability=_max(c.precipitation_probability for c in hours),
        snowfall=_sum(c.snowfall for c in hours),
        wind_speed=_max(c.wind_speed for c in hours),
        wind_gusts=_max(c.wind_gusts for c in hours),
        cloud_cover=_mean(c.cloud_cover for c in hours),
        humidity=_mean(c.humidity for c in hours),
    )


# --------------------------------------------------------------------------- parsing


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ForecastFormatError(f"{where} is not a number: {value!r}")
    return float(value)


def _code(value: Any, where: str) -> int | None:
    number = _number(value, where)
    return None if number is None else int(number)


def _columns(
    block: Any, name: str, limit: int, wanted: Iterable[str]
) -> tuple[list[str], dict[str, list[Any]]]:
    """``time`` and the ``wanted`` columns of an hourly or daily block, equal in length.

    A tolerant reader: a column Mnemolis did not ask for (``sunrise`` as text, a
    variable a newer service adds) is ignored, never a reason to refuse the forecast."""
    if not isinstance(block, dict):
        raise ForecastFormatError(f"{name} is not an object")
    times = block.get("time")
    if not isinstance(times, list) or not all(isinstance(t, str) for t in times):
        raise ForecastFormatError(f"{name}.time is not a list of times")
    if len(times) > limit:
        raise ForecastFormatError(f"{name} has {len(times)} rows, more than {limit}")
    columns: dict[str, list[Any]] = {}
    for key in wanted:
        if key not in block:
            continue
        values = block[key]
        if not isinstance(values, list) or len(values) != len(times):
            raise ForecastFormatError(f"{name}.{key} does not match {name}.time")
        columns[key] = values
    return times, columns


def _time(text: str, where: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise ForecastFormatError(f"{where} is not an ISO time: {text!r}") from exc


def _units(raw: dict[str, Any]) -> Units:
    merged: dict[str, Any] = {}
    for block in ("daily_units", "hourly_units", "current_units"):
        value = raw.get(block)
        if isinstance(value, dict):
            merged = {**value, **merged}

    def unit(*keys: str, default: str) -> str:
        for key in keys:
            if isinstance(merged.get(key), str):
                return str(merged[key])
        return default

    return Units(
        temperature=unit("temperature_2m_max", "temperature_2m", default="°C"),
        precipitation=unit("precipitation_sum", "precipitation", default="mm"),
        snowfall=unit("snowfall_sum", "snowfall", default="cm"),
        wind=unit("wind_speed_10m_max", "wind_speed_10m", default="km/h"),
    )


def _row(columns: dict[str, list[Any]], i: int, where: str) -> dict[str, float | None]:
    return {key: _number(values[i], f"{where}.{key}") for key, values in columns.items()}


def _conditions(row: dict[str, float | None], fields: dict[str, str], **extra: Any) -> Conditions:
    """One row of a block as `Conditions`, by the block's field table."""
    values: dict[str, Any] = {name: row.get(variable) for name, variable in fields.items()}
    code = values.get("weather_code")
    values["weather_code"] = None if code is None else int(code)
    if values.get("is_day") is not None:
        values["is_day"] = bool(values["is_day"])
    return Conditions(**values, **extra)


def _current(raw: Any) -> tuple[Conditions | None, datetime | None]:
    if raw is None:
        return None, None
    if not isinstance(raw, dict):
        raise ForecastFormatError("current is not an object")
    row = {
        key: _number(raw[key], f"current.{key}") for key in CURRENT_FIELDS.values() if key in raw
    }
    time = _time(str(raw["time"]), "current.time") if "time" in raw else None
    current = _conditions(row, CURRENT_FIELDS)
    if current.weather_code is not None:
        current = replace(current, codes=frozenset({current.weather_code}))
    return current, time


def _hours(raw: Any) -> list[Hour]:
    if raw is None:
        return []
    times, columns = _columns(raw, "hourly", MAX_HOURS, HOURLY_FIELDS.values())
    return [
        Hour(_time(t, "hourly.time"), _conditions(_row(columns, i, "hourly"), HOURLY_FIELDS))
        for i, t in enumerate(times)
    ]


def _days(raw: Any, hours: list[Hour]) -> dict[date, Conditions]:
    """Daily values, with cloud, humidity and every code taken from that day's hours."""
    if raw is None:
        return {}
    times, columns = _columns(raw, "daily", MAX_DAYS, DAILY_FIELDS.values())
    by_day: dict[date, list[Conditions]] = {}
    for h in hours:
        by_day.setdefault(h.time.date(), []).append(h.conditions)
    days: dict[date, Conditions] = {}
    for i, t in enumerate(times):
        day = _time(t, "daily.time").date()
        from_hours = aggregate(by_day.get(day, []))
        daily = _conditions(
            _row(columns, i, "daily"),
            DAILY_FIELDS,
            cloud_cover=from_hours.cloud_cover,
            humidity=from_hours.humidity,
        )
        codes = from_hours.codes | (
            {daily.weather_code} if daily.weather_code is not None else set()
        )
        days[day] = replace(daily, codes=frozenset(codes))
    return days


def parse_forecast(raw: Any) -> Forecast:
    """A forecast from the decoded JSON; `ForecastFormatError` says what is wrong."""
    if not isinstance(raw, dict):
        raise ForecastFormatError("the forecast is not an object")
    lat, lon = raw.get("latitude"), raw.get("longitude")
    latitude, longitude = _number(lat, "latitude"), _number(lon, "longitude")
    if latitude is None or longitude is None:
        raise ForecastFormatError("latitude or longitude is missing")
    offset = raw.get("utc_offset_seconds", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or abs(offset) > 18 * 3600:
        raise ForecastFormatError(f"utc_offset_seconds is not a valid offset: {offset!r}")
    if not any(key in raw for key in ("current", "hourly", "daily")):
        raise ForecastFormatError("the forecast has no current, hourly or daily values")
    current, current_time = _current(raw.get("current"))
    hours = _hours(raw.get("hourly"))
    return Forecast(
        latitude=latitude,
        longitude=longitude,
        timezone=str(raw.get("timezone") or "GMT"),
        utc_offset_s=offset,
        units=_units(raw),
        current=current,
        current_time=current_time,
        days=_days(raw.get("daily"), hours),
        hours=hours,
    )


def units_for(system: str) -> Units:
    """The units Open-Meteo uses for ``metric`` or ``imperial``."""
    if system == "imperial":
        return Units(temperature="°F", precipitation="inch", snowfall="inch", wind="mp/h")
    return Units()
