"""The clock source: time and date in the configured time zone, the date of
a named day, days until a date, and the time in a named city.

Everything is computed from one injected ``now`` so tests freeze it. Words
and formats come from ``data/clock_words.yaml``; the time zone, the cities
and the holidays from ``sources/clock.yaml``.
"""

from __future__ import annotations

import time
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import cache
from typing import Any

from mnemolis.config import At, Config, ConfigError
from mnemolis.core.days import WEEKDAY_SLOTS, calendar_words, resolve_day
from mnemolis.core.package_data import load_package_yaml
from mnemolis.core.plan import Part
from mnemolis.core.sentences import capitalise
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, Status, Truth
from mnemolis.sources.clock.calendar_dates import DateReader, Holiday, NamedDate, load_holidays

MAX_PLACE_CHARS = 100
NOON = 12


def utc_now() -> datetime:
    return datetime.now(UTC)


@cache
def zone_by_city() -> dict[str, str]:
    """zoneinfo keys by their city, lower-case: "tokyo" -> Asia/Tokyo."""
    out: dict[str, str] = {}
    for key in sorted(zoneinfo.available_timezones()):
        if "/" in key and not key.startswith(("Etc/", "SystemV/", "US/")):
            out.setdefault(key.rsplit("/", 1)[1].replace("_", " ").lower(), key)
    return out


@dataclass(frozen=True)
class ClockWords:
    countdown_cues: tuple[str, ...]
    target_fillers: frozenset[str]
    pronouns: dict[str, str]
    ask_year: tuple[str, ...]
    ask_month: tuple[str, ...]
    formats: dict[str, str]
    labels: dict[str, str]
    sentences: dict[str, str]

    def sentence(self, key: str, **values: Any) -> str:
        return self.sentences[key].format(**values)


@cache
def clock_words() -> ClockWords:
    data = load_package_yaml("mnemolis.sources.clock", "clock_words")
    return ClockWords(
        countdown_cues=tuple(sorted(data["countdown_cues"], key=len, reverse=True)),
        target_fillers=frozenset(data["target_fillers"]),
        pronouns={str(k): str(v) for k, v in data["pronouns"].items()},
        ask_year=tuple(data["ask_year"]),
        ask_month=tuple(data["ask_month"]),
        formats={str(k): str(v) for k, v in data["formats"].items()},
        labels={str(k): str(v) for k, v in data["labels"].items()},
        sentences={str(k): str(v) for k, v in data["sentences"].items()},
    )


@dataclass(frozen=True)
class ClockSettings:
    """``sources/clock.yaml``, checked."""

    timezone: tzinfo
    twelve_hour: bool
    cities: dict[str, str]
    holidays: list[Holiday]

    @classmethod
    def from_config(cls, config: Config) -> ClockSettings:
        at = At(config.root / "sources" / "clock.yaml")
        raw = config.sources.get("clock") or {}
        name = raw.get("timezone")
        if name is None:
            timezone: tzinfo = datetime.now().astimezone().tzinfo or UTC
        else:
            timezone = _zone(name, at / "timezone")
        time_format = raw.get("time_format", "24h")
        if time_format not in ("24h", "12h"):
            raise (at / "time_format").error(f"time_format must be 24h or 12h, not {time_format!r}")
        cities = raw.get("cities") or {}
        if not isinstance(cities, dict):
            raise (at / "cities").error("cities must map a city to a time zone")
        for city, zone in cities.items():
            _zone(zone, at / "cities" / city)
        return cls(
            timezone=timezone,
            twelve_hour=time_format == "12h",
            cities={" ".join(str(c).lower().split()): str(z) for c, z in cities.items()},
            holidays=load_holidays(raw.get("holidays"), at / "holidays"),
        )


def _zone(name: Any, at: At) -> tzinfo:
    try:
        return zoneinfo.ZoneInfo(str(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise at.error(f"unknown time zone {name!r}") from exc


def _has(text: str, phrase: str) -> bool:
    return f" {phrase} " in f" {text} "


class ClockSource:
    """Implements `base.Source` for intents ``clock.time`` and ``clock.date``."""

    name = "clock"

    def __init__(self, config: Config, now: Callable[[], datetime] = utc_now) -> None:
        self.now = now
        self.words = clock_words()
        self.calendar = calendar_words()
        self.problem: str | None = None
        try:
            self.settings: ClockSettings | None = ClockSettings.from_config(config)
        except ConfigError as exc:
            self.settings = None
            self.problem = self.words.sentence("misconfigured", reason=str(exc))
            return
        self.dates = DateReader(self.calendar, self.settings.holidays)

    async def start(self) -> None:
        """Nothing to open. Never raises."""

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`, for `mnemolis doctor`."""
        from mnemolis.sources.clock.doctor import diagnose

        return [diagnose(self)]

    async def close(self) -> None:
        """Nothing to release."""

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        started = time.perf_counter()
        if self.settings is None:
            result = PartAnswer(self.problem or "", Status.ERROR, self.name)
        elif part.intent == "clock.time":
            result = self._time(part)
        else:
            result = self._date(part)
        result.ms = (time.perf_counter() - started) * 1000
        return result

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """ "if it is the weekend", "if today is friday": the day of the week only."""
        day = part.slots.get("day")
        if self.settings is None or not isinstance(day, str):
            return Evaluation(Truth.UNKNOWN, self.problem or self.words.sentence("no_condition"))
        today = self._local().date()
        if day in WEEKDAY_SLOTS:
            holds = WEEKDAY_SLOTS[today.weekday()] == day
        elif day == "weekend":
            holds = today.weekday() >= WEEKDAY_SLOTS.index("saturday")
        else:
            return Evaluation(Truth.UNKNOWN, self.words.sentence("no_condition"))
        text = self.words.sentence("is_day", weekday=self.calendar.weekday(today))
        return Evaluation(Truth.TRUE if holds else Truth.FALSE, text, {"date": today.isoformat()})

    # ------------------------------------------------------------------ time

    def _local(self, zone: tzinfo | None = None) -> datetime:
        assert self.settings is not None
        now = self.now()
        if now.tzinfo is None:  # a naive clock is taken as the configured zone
            now = now.replace(tzinfo=self.settings.timezone)
        return now.astimezone(zone or self.settings.timezone)

    def _clock_time(self, moment: datetime) -> str:
        assert self.settings is not None
        f = self.words.formats
        if not self.settings.twelve_hour:
            return f["time_24h"].format(hour=moment.hour, minute=moment.minute)
        half = f["am"] if moment.hour < NOON else f["pm"]
        hour12 = moment.hour % NOON or NOON
        return f["time_12h"].format(hour12=hour12, minute=moment.minute, half=half)

    def _zone_for(self, place: str) -> tzinfo | None:
        assert self.settings is not None
        key = self.settings.cities.get(place) or zone_by_city().get(place)
        return zoneinfo.ZoneInfo(key) if key else None

    def _time(self, part: Part) -> PartAnswer:
        s = self.words.sentence
        place = part.slots.get("location")
        if not isinstance(place, str) or not place.strip():
            moment = self._local()
            return self._ok(s("time", time=self._clock_time(moment)), moment)
        place = " ".join(place.lower().split())[:MAX_PLACE_CHARS]
        zone = self._zone_for(place)
        shown = place.title()
        if zone is None:
            return PartAnswer(s("unknown_place", place=shown), Status.ERROR, self.name)
        here, there = self._local(), self._local(zone)
        clock = self._clock_time(there)
        if there.date() == here.date():
            text = s("time_in", time=clock, place=shown)
        else:
            weekday = self.calendar.weekday(there.date())
            text = s("time_in_other_day", time=clock, weekday=weekday, place=shown)
        return self._ok(text, there, {"timezone": str(zone)})

    def _ok(self, text: str, moment: datetime, extra: dict[str, Any] | None = None) -> PartAnswer:
        data = {"time": moment.isoformat(timespec="minutes"), **(extra or {})}
        return PartAnswer(text, Status.OK, self.name, data=data)

    # ------------------------------------------------------------------ dates

    def _full(self, day: date) -> str:
        c = self.calendar
        return self.words.formats["date"].format(
            weekday=c.weekday(day), day=day.day, month=c.month(day), year=day.year
        )

    def _short(self, day: date) -> str:
        c = self.calendar
        return self.words.formats["day_month"].format(
            weekday=c.weekday(day), day=day.day, month=c.month(day)
        )

    def _date(self, part: Part) -> PartAnswer:
        text = " ".join(part.text.lower().replace("’", "'").split())
        today = self._local().date()
        if any(_has(text, cue) for cue in self.words.countdown_cues):
            return self._countdown(part, text, today)
        named = self.dates.holiday(text, today) or self.dates.spoken_date(text, today)
        if named is not None:
            return self._date_of(named, today)
        day = part.slots.get("day")
        if isinstance(day, str) and day not in ("now", "today", "tonight"):
            return self._named_day(day, today)
        s = self.words.sentence
        if any(_has(text, ask) for ask in self.words.ask_year):
            return self._answered(s("year", year=today.year), today)
        if any(_has(text, ask) for ask in self.words.ask_month):
            return self._answered(
                s("month", month=self.calendar.month(today), year=today.year), today
            )
        return self._answered(s("today", date=self._full(today)), today)

    def _answered(self, text: str, day: date, **extra: Any) -> PartAnswer:
        return PartAnswer(text, Status.OK, self.name, data={"date": day.isoformat(), **extra})

    def _named_day(self, slot: str, today: date) -> PartAnswer:
        s = self.words.sentence
        span = resolve_day(slot, today)
        if span is None:
            return self._answered(s("today", date=self._full(today)), today)
        if slot == "weekend":
            if span.first == today and len(span.dates) == 1:  # Sunday
                return self._answered(s("weekend_today", date=self._full(today)), today)
            first, last = self._short(span.dates[0]), self._short(span.dates[-1])
            return self._answered(s("weekend", first=first, last=last), span.first)
        if slot == "week":
            monday = today - timedelta(days=today.weekday())
            sunday = monday + timedelta(days=6)
            text = s("week", first=self._short(monday), last=self._short(sunday))
            return self._answered(text, monday)
        if span.first == today:
            return self._answered(s("today", date=self._full(today)), today)
        day = span.first
        if slot in WEEKDAY_SLOTS:  # "Friday is 13 June 2025", not "Friday is Friday, ..."
            shown = self.words.formats["day_month_year"].format(
                day=day.day, month=self.calendar.month(day), year=day.year
            )
            return self._answered(
                s("weekday_is", label=self.calendar.weekday(day), date=shown), day
            )
        label = self.words.labels.get(slot) or self.calendar.weekday(day)
        return self._answered(s("day_is", label=label, date=self._full(day)), day)

    def _date_of(self, named: NamedDate, today: date) -> PartAnswer:
        s = self.words.sentence
        days = (named.day - today).days
        key = "date_of_today" if days == 0 else "date_of"
        text = s(key, target=named.label, date=self._full(named.day), days=days)
        return self._answered(text, named.day, days=days)

    def _countdown(self, part: Part, text: str, today: date) -> PartAnswer:
        s = self.words.sentence
        named = self.dates.holiday(text, today) or self.dates.spoken_date(text, today)
        day = part.slots.get("day")
        if named is None and isinstance(day, str):
            span = resolve_day(day, today)
            if span is not None:
                label = self.words.labels.get(day) or self.calendar.weekday(span.first)
                named = NamedDate(label, span.first)
        if named is None:
            target = self._target_words(text)
            if not target:
                return PartAnswer(s("no_target"), Status.ERROR, self.name)
            return PartAnswer(s("unknown_target", target=target), Status.ERROR, self.name)
        days = (named.day - today).days
        date_text = self._full(named.day)
        if days == 0:
            sentence = s("countdown_today", target=named.label, date=date_text)
        elif days == 1:
            sentence = s("countdown_tomorrow", target=named.label, date=date_text)
        else:
            sentence = s("countdown", target=named.label, days=days, date=date_text)
        return self._answered(capitalise(sentence), named.day, days=days)

    def _target_words(self, text: str) -> str:
        """What followed the cue, as it can be said back: "my birthday" -> "your birthday"."""
        for cue in self.words.countdown_cues:
            if _has(text, cue):
                rest = f" {text} ".split(f" {cue} ", 1)[1].split()
                while rest and rest[0] in self.words.target_fillers:
                    rest.pop(0)
                words = [self.words.pronouns.get(w, w) for w in rest[:8]]
                return " ".join(words).strip(" ?.!")
        return ""
