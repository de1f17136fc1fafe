"""Dates named in words: holidays from ``sources/clock.yaml`` and spoken dates
("december 25th", "the 4th of july", "twenty fifth of december").

Holidays are data: a fixed month-day, a number of days after Easter Sunday,
or the nth weekday of a month. A date without a year means its next
occurrence, today included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from mnemolis.config import At
from mnemolis.core.days import WEEKDAY_SLOTS, CalendarWords

WEEK = 7
_FIXED = re.compile(r"^(\d{1,2})-(\d{1,2})$")


def easter_sunday(year: int) -> date:
    """Western Easter (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month = (h + l_ - 7 * m + 114) // 31
    day = (h + l_ - 7 * m + 114) % 31 + 1
    return date(year, month, day)


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """The nth (1-based; -1 = last) given weekday of a month."""
    if nth > 0:
        first = date(year, month, 1)
        day = first + timedelta(days=(weekday - first.weekday()) % WEEK + WEEK * (nth - 1))
        return day if day.month == month else None
    following = date(year + month // 12, month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % WEEK + WEEK * (-nth - 1))


@dataclass(frozen=True)
class Holiday:
    """A day people count down to; ``name`` is said in answers."""

    name: str
    spoken: tuple[str, ...]
    month_day: tuple[int, int] | None = None
    easter_offset: int | None = None
    nth_weekday: tuple[int, int, int] | None = None  # month, weekday (0 = Monday), nth

    def in_year(self, year: int) -> date | None:
        if self.month_day is not None:
            try:
                return date(year, *self.month_day)
            except ValueError:  # 29 February in a common year
                return None
        if self.easter_offset is not None:
            return easter_sunday(year) + timedelta(days=self.easter_offset)
        if self.nth_weekday is not None:
            return nth_weekday(year, *self.nth_weekday)
        return None

    def next_on_or_after(self, today: date) -> date | None:
        for year in (today.year, today.year + 1, today.year + 4):
            day = self.in_year(year)
            if day is not None and day >= today:
                return day
        return None


def load_holidays(raw: Any, at: At) -> list[Holiday]:
    """``holidays:`` of sources/clock.yaml; a bad entry is a `ConfigError` at its line."""
    if raw is None:
        return []
    if not isinstance(raw, dict):
        raise at.error("holidays must be a mapping of name to {date | easter | month...}")
    out = []
    for name, spec in raw.items():
        h_at = at / name
        if not isinstance(spec, dict):
            raise h_at.error(f"holiday {name!r} must be a mapping")
        names = spec.get("names") or [str(name)]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise (h_at / "names").error(f"holiday {name!r}: names must be a list of strings")
        spoken = tuple(" ".join(n.lower().split()) for n in names)
        out.append(_holiday(str(name), spoken, spec, h_at))
    return out


def _holiday(name: str, spoken: tuple[str, ...], spec: dict[str, Any], at: At) -> Holiday:
    if "date" in spec:
        match = _FIXED.match(str(spec["date"]))
        if not match:
            raise (at / "date").error(f"holiday {name!r}: date must be MM-DD, like 12-25")
        month, day = int(match.group(1)), int(match.group(2))
        try:
            date(2024, month, day)  # a leap year: 02-29 is allowed
        except ValueError as exc:
            raise (at / "date").error(f"holiday {name!r}: {exc}") from exc
        return Holiday(name, spoken, month_day=(month, day))
    if "easter" in spec:
        offset = spec["easter"]
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise (at / "easter").error(f"holiday {name!r}: easter must be a number of days")
        return Holiday(name, spoken, easter_offset=offset)
    in_month, weekday, nth = spec.get("month"), spec.get("weekday"), spec.get("nth", 1)
    if (
        isinstance(in_month, int)
        and 1 <= in_month <= 12
        and weekday in WEEKDAY_SLOTS
        and isinstance(nth, int)
        and nth in (-1, 1, 2, 3, 4, 5)
    ):
        return Holiday(name, spoken, nth_weekday=(in_month, WEEKDAY_SLOTS.index(weekday), nth))
    raise at.error(f"holiday {name!r} needs date: MM-DD, easter: days, or month + weekday + nth")


@dataclass(frozen=True)
class NamedDate:
    """A date found in words, and what to call it in the answer."""

    label: str
    day: date


class DateReader:
    """Finds a holiday or a spoken date in lower-case text."""

    def __init__(self, calendar: CalendarWords, holidays: list[Holiday]) -> None:
        self.calendar = calendar
        self.holidays = sorted(
            ((spoken, h) for h in holidays for spoken in h.spoken), key=lambda sh: -len(sh[0])
        )
        months = "|".join(sorted(map(re.escape, calendar.month_forms), key=len, reverse=True))
        words = "|".join(sorted(map(re.escape, calendar.ordinals), key=len, reverse=True))
        tens = "|".join(str(t) for t in calendar.ordinal_tens)
        suffix = "|".join(calendar.ordinal_suffixes)
        day = rf"(?:(?:{tens})[- ](?:{words})|\d{{1,2}}(?:{suffix})?|{words})"
        year = r"(?:,? (?P<year>\d{4}))?"
        self.month_day = re.compile(rf"\b(?P<month>{months})\.? (?:the )?(?P<day>{day}){year}\b")
        self.day_month = re.compile(
            rf"\b(?:the )?(?P<day>{day}) (?:of )?(?P<month>{months})\.?{year}\b"
        )

    def holiday(self, text: str, today: date) -> NamedDate | None:
        padded = f" {text} "
        for spoken, holiday in self.holidays:
            if f" {spoken} " in padded:
                day = holiday.next_on_or_after(today)
                if day is not None:
                    return NamedDate(holiday.name, day)
        return None

    def spoken_date(self, text: str, today: date) -> NamedDate | None:
        for pattern in (self.month_day, self.day_month):
            match = pattern.search(text)
            if match is None:
                continue
            month = self.calendar.month_forms[match.group("month")]
            day = self._day(match.group("day"))
            year = int(match.group("year")) if match.group("year") else None
            found = self._date(year, month, day, today)
            if found is not None:
                label = f"{self.calendar.month_names[month]} {day}"
                return NamedDate(label if year is None else f"{label}, {year}", found)
        return None

    def _day(self, text: str) -> int:
        text = text.replace("-", " ")
        parts = text.split()
        if len(parts) == 2:  # "20 fifth": normalisation made the tens digits
            return int(parts[0]) + self.calendar.ordinals[parts[1]]
        if text in self.calendar.ordinals:
            return self.calendar.ordinals[text]
        return int(re.sub(r"\D", "", text))

    @staticmethod
    def _date(year: int | None, month: int, day: int, today: date) -> date | None:
        try:
            if year is not None:
                return date(year, month, day)
            found = date(today.year, month, day)
            return found if found >= today else date(today.year + 1, month, day)
        except ValueError:
            return None
