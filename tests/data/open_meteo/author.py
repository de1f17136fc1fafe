"""Write the recorded Open-Meteo responses described in recordings.yaml.

The files it writes are what the replay server serves; they follow the
service's wire format (key order, units strings, compact JSON). Run it after
editing recordings.yaml and commit both.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
HOURS = 24
PEAK_HOUR, LOW_HOUR = 15, 5
EVENING_HOUR = 18
HOURLY_NAMES = (
    "temperature_2m",
    "relative_humidity_2m",
    "precipitation_probability",
    "precipitation",
    "snowfall",
    "weather_code",
    "cloud_cover",
    "wind_speed_10m",
    "wind_gusts_10m",
)

METRIC_UNITS = {"temperature": "°C", "precipitation": "mm", "snowfall": "cm", "wind": "km/h"}
IMPERIAL_UNITS = {"temperature": "°F", "precipitation": "inch", "snowfall": "inch", "wind": "mp/h"}


def convert(kind: str, value: float, units: str) -> float:
    """Metric spec values into the response's units, rounded as the service rounds."""
    if units == "metric":
        return round(value, 2 if kind in ("precipitation", "snowfall") else 1)
    if kind == "temperature":
        return round(value * 9 / 5 + 32, 1)
    if kind == "precipitation":
        return round(value / 25.4, 3)
    if kind == "snowfall":
        return round(value / 2.54, 3)
    return round(value / 1.609344, 1)


def daytime_share(hour: int) -> float:
    """0 at the coolest hour, 1 at the warmest, falling through the night."""
    if LOW_HOUR <= hour <= PEAK_HOUR:
        return (hour - LOW_HOUR) / (PEAK_HOUR - LOW_HOUR)
    if hour > PEAK_HOUR:
        return 1 - (hour - PEAK_HOUR) / 14
    return (LOW_HOUR - hour) / 14


def wet_hours(day: dict[str, Any]) -> range:
    if "wet" in day:
        return range(day["wet"][0], day["wet"][1])
    return range(12, 15)  # a dry day's trace of rain falls around noon


def hourly_rows(day: dict[str, Any]) -> list[dict[str, float]]:
    wet = wet_hours(day)
    rows = []
    for hour in range(HOURS):
        share = daytime_share(hour)
        raining = hour in wet
        code = day["code"] if raining and "wet" in day else day.get("dry_code", day["code"])
        evening = day.get("evening")
        if evening and hour >= EVENING_HOUR:
            code = evening["code"]
        rows.append(
            {
                "temperature": day["low"] + (day["high"] - day["low"]) * share,
                "humidity": day["humidity"],
                "probability": day["prob"] if raining else round(day["prob"] * 0.5),
                "precipitation": day.get("rain", 0.0) / len(wet) if raining else 0.0,
                "snowfall": day.get("snow", 0.0) / len(wet) if raining else 0.0,
                "code": code,
                "cloud": day["cloud"],
                "wind": day["wind"] * (0.6 + 0.4 * share),
                "gusts": day["gusts"] * (0.6 + 0.4 * share),
            }
        )
    return rows


def forecast(spec: dict[str, Any], start: date) -> dict[str, Any]:
    units = spec["request"]["units"]
    names = METRIC_UNITS if units == "metric" else IMPERIAL_UNITS
    resp = spec["response"]
    cur = spec["current"]

    def c(kind: str, value: float) -> float:
        return convert(kind, value, units)

    days = spec["days"]
    times: list[str] = []
    hourly: dict[str, list[float]] = {name: [] for name in HOURLY_NAMES}
    for i, day in enumerate(days):
        d = start + timedelta(days=i)
        for hour, row in enumerate(hourly_rows(day)):
            times.append(f"{d.isoformat()}T{hour:02d}:00")
            hourly["temperature_2m"].append(c("temperature", row["temperature"]))
            hourly["relative_humidity_2m"].append(row["humidity"])
            hourly["precipitation_probability"].append(row["probability"])
            hourly["precipitation"].append(c("precipitation", row["precipitation"]))
            hourly["snowfall"].append(c("snowfall", row["snowfall"]))
            hourly["weather_code"].append(row["code"])
            hourly["cloud_cover"].append(row["cloud"])
            hourly["wind_speed_10m"].append(c("wind", row["wind"]))
            hourly["wind_gusts_10m"].append(c("wind", row["gusts"]))
    return {
        "latitude": resp["latitude"],
        "longitude": resp["longitude"],
        "generationtime_ms": 0.0841617584228516,
        "utc_offset_seconds": resp["utc_offset_seconds"],
        "timezone": resp["timezone"],
        "timezone_abbreviation": resp["timezone_abbreviation"],
        "elevation": resp["elevation"],
        "current_units": {
            "time": "iso8601",
            "interval": "seconds",
            "temperature_2m": names["temperature"],
            "relative_humidity_2m": "%",
            "apparent_temperature": names["temperature"],
            "is_day": "",
            "precipitation": names["precipitation"],
            "snowfall": names["snowfall"],
            "weather_code": "wmo code",
            "cloud_cover": "%",
            "wind_speed_10m": names["wind"],
            "wind_gusts_10m": names["wind"],
        },
        "current": {
            "time": cur["time"],
            "interval": 900,
            "temperature_2m": c("temperature", cur["temperature"]),
            "relative_humidity_2m": cur["humidity"],
            "apparent_temperature": c("temperature", cur["apparent"]),
            "is_day": cur["is_day"],
            "precipitation": c("precipitation", cur["rain"]),
            "snowfall": c("snowfall", cur["snow"]),
            "weather_code": cur["code"],
            "cloud_cover": cur["cloud"],
            "wind_speed_10m": c("wind", cur["wind"]),
            "wind_gusts_10m": c("wind", cur["gusts"]),
        },
        "hourly_units": {
            "time": "iso8601",
            "temperature_2m": names["temperature"],
            "relative_humidity_2m": "%",
            "precipitation_probability": "%",
            "precipitation": names["precipitation"],
            "snowfall": names["snowfall"],
            "weather_code": "wmo code",
            "cloud_cover": "%",
            "wind_speed_10m": names["wind"],
            "wind_gusts_10m": names["wind"],
        },
        "hourly": {"time": times, **hourly},
        "daily_units": {
            "time": "iso8601",
            "weather_code": "wmo code",
            "temperature_2m_max": names["temperature"],
            "temperature_2m_min": names["temperature"],
            "precipitation_sum": names["precipitation"],
            "snowfall_sum": names["snowfall"],
            "precipitation_probability_max": "%",
            "wind_speed_10m_max": names["wind"],
            "wind_gusts_10m_max": names["wind"],
            "sunshine_duration": "s",
        },
        "daily": {
            "time": [(start + timedelta(days=i)).isoformat() for i in range(len(days))],
            "weather_code": [d["code"] for d in days],
            "temperature_2m_max": [c("temperature", d["high"]) for d in days],
            "temperature_2m_min": [c("temperature", d["low"]) for d in days],
            "precipitation_sum": [c("precipitation", d.get("rain", 0.0)) for d in days],
            "snowfall_sum": [c("snowfall", d.get("snow", 0.0)) for d in days],
            "precipitation_probability_max": [d["prob"] for d in days],
            "wind_speed_10m_max": [c("wind", d["wind"]) for d in days],
            "wind_gusts_10m_max": [c("wind", d["gusts"]) for d in days],
            "sunshine_duration": [float(d["sun"] * 3600) for d in days],
        },
    }


def search(results: list[dict[str, Any]]) -> dict[str, Any]:
    if not results:
        return {"generationtime_ms": 0.4260540008544922}
    return {"results": results, "generationtime_ms": 0.9729862213134766}


def write(name: str, data: dict[str, Any]) -> None:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    (HERE / name).write_text(text + "\n", encoding="utf-8")


def main() -> None:
    spec = yaml.safe_load((HERE / "recordings.yaml").read_text(encoding="utf-8"))
    start = date.fromisoformat(spec["start"])
    for name, recording in spec["forecasts"].items():
        write(f"forecast_{name}.json", forecast(recording, start))
    for name, results in spec["searches"].items():
        write(f"search_{name}.json", search(results))


if __name__ == "__main__":
    main()
