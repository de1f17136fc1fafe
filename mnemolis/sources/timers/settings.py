"""`sources/timers.yaml`, checked once into typed settings (errors name file and line).

The owner's file lies over the shipped one key by key, so an older file keeps
working when a key is added. The time zone and the time format default to those
of `sources/clock.yaml`, read as the owner wrote them (the clock's own code is
not imported: no source leans on another's internals).
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from mnemolis.config import At, Config
from mnemolis.config.bundled import bundled_source_yaml, merged

STEM = "timers"
CLOCK_STEM = "clock"


@dataclass(frozen=True)
class Replies:
    """The sentences, the names of kinds and units, and the weekdays."""

    sentences: dict[str, str]
    kinds: dict[str, tuple[str, str]]  # kind -> (one, many)
    units: dict[str, tuple[str, str]]
    weekdays: tuple[str, ...]

    def say(self, key: str, **fields: Any) -> str:
        from mnemolis.config.bundled import Fields

        return self.sentences[key].format_map(Fields(fields))


@dataclass(frozen=True)
class TimersSettings:
    database: Path
    timezone: tzinfo
    zone_name: str
    twelve_hour: bool
    max_items: int
    max_duration_s: float
    watch_limit_s: float
    late_after_s: float
    missed_after_s: float
    snooze_s: float
    reminder_time: tuple[int, int]
    retry_s: float
    forget_after_s: float
    replies: Replies

    @classmethod
    def from_config(cls, config: Config, state_dir: Path) -> TimersSettings:
        at = At(config.root / "sources" / f"{STEM}.yaml")
        raw = merged(config.sources.get(STEM) or {}, bundled_source_yaml(STEM))
        if not isinstance(raw, dict):
            raise at.error("sources/timers.yaml must be a mapping")
        clock = config.sources.get(CLOCK_STEM) or {}
        clock = clock if isinstance(clock, dict) else {}
        database = Path(str(raw.get("database") or "timers.sqlite3")).expanduser()
        zone_name = raw.get("timezone") or clock.get("timezone")
        if zone_name is None:
            local = datetime.now().astimezone().tzinfo
            zone: tzinfo = local if local is not None else zoneinfo.ZoneInfo("UTC")
            zone_name = str(zone)
        else:
            try:
                zone = zoneinfo.ZoneInfo(str(zone_name))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
                raise (at / "timezone").error(f"unknown time zone {zone_name!r}") from exc
        time_format = raw.get("time_format") or clock.get("time_format") or "24h"
        if time_format not in ("24h", "12h"):
            raise (at / "time_format").error(f"time_format must be 24h or 12h, not {time_format!r}")
        return cls(
            database=database if database.is_absolute() else state_dir / database,
            timezone=zone,
            zone_name=str(zone_name),
            twelve_hour=time_format == "12h",
            max_items=int(_number(raw, "max_items", at, 1, 1_000_000)),
            max_duration_s=_number(raw, "max_duration_s", at, 1, 10 * 366 * 86400),
            watch_limit_s=_number(raw, "watch_limit_s", at, 1, 366 * 86400),
            late_after_s=_number(raw, "late_after_s", at, 0, 3600),
            missed_after_s=_number(raw, "missed_after_s", at, 0, 86400),
            snooze_s=_number(raw, "snooze_s", at, 1, 86400),
            reminder_time=_clock(raw.get("reminder_time"), at / "reminder_time"),
            retry_s=_number(raw, "retry_s", at, 0.05, 3600),
            forget_after_s=_number(raw, "forget_after_s", at, 0, 10 * 366 * 86400),
            replies=_replies(raw.get("replies"), at / "replies"),
        )


def _number(raw: dict[str, Any], key: str, at: At, low: float, high: float) -> float:
    value = raw.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise (at / key).error(f"{key} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _clock(value: Any, at: At) -> tuple[int, int]:
    try:
        hour, minute = (int(x) for x in str(value).split(":"))
    except ValueError:
        hour, minute = -1, -1
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise at.error(f"a time must be HH:MM, not {value!r}")
    return hour, minute


def _pair(value: Any, at: At) -> tuple[str, str]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise at.error("must be [one, many], e.g. [timer, timers]")
    return value[0], value[1]


def _replies(value: Any, at: At) -> Replies:
    if not isinstance(value, dict):
        raise at.error("replies must be a mapping")
    kinds = value.get("kinds") or {}
    units = value.get("units") or {}
    weekdays = value.get("weekdays") or []
    if not isinstance(kinds, dict) or not isinstance(units, dict):
        raise at.error("replies: kinds and units must be mappings")
    if not (isinstance(weekdays, list) and len(weekdays) == 7):
        raise (at / "weekdays").error("weekdays must list the seven days, Monday first")
    sentences = {
        str(k): str(v) for k, v in value.items() if k not in ("kinds", "units", "weekdays")
    }
    return Replies(
        sentences=sentences,
        kinds={str(k): _pair(v, at / "kinds" / k) for k, v in kinds.items()},
        units={str(k): _pair(v, at / "units" / k) for k, v in units.items()},
        weekdays=tuple(str(d) for d in weekdays),
    )


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    TimersSettings.from_config(config, Path("state"))
