"""The clock answers in the configured time zone from a frozen now: the time,
the date, a named day, days until a holiday or a spoken date, and the time in
another city."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any

import pytest

from mnemolis.config import At, Config, ConfigError
from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Request, Status, Truth
from mnemolis.sources.clock.calendar_dates import easter_sunday, load_holidays, nth_weekday
from mnemolis.sources.clock.source import ClockSource
from mnemolis.understand import Understander
from tests.support_time import FrozenClock

WEDNESDAY = datetime(2025, 6, 11, 8, 5, tzinfo=UTC)  # 10:05 in Berlin
LATE_WEDNESDAY = datetime(2025, 6, 11, 22, 30, tzinfo=UTC)  # 00:30 Thursday in Berlin
CHRISTMAS_DAY = datetime(2025, 12, 25, 9, 0, tzinfo=UTC)
BOXING_DAY = datetime(2025, 12, 26, 9, 0, tzinfo=UTC)
SATURDAY = datetime(2025, 6, 14, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Row:
    text: str
    expected: str  # the whole answer
    instant: datetime = WEDNESDAY
    status: Status = Status.OK
    changes: dict[str, Any] = field(default_factory=dict)  # sources/clock.yaml keys
    slots: dict[str, str] | None = None  # None: ask understanding for the part


ROWS = [
    Row("what time is it", "It's 10:05."),
    Row("what time is it", "It's 10:05 am.", changes={"time_format": "12h"}),
    Row(
        "what time is it",
        "It's 10:30 pm.",
        datetime(2025, 6, 11, 20, 30, tzinfo=UTC),
        changes={"time_format": "12h"},
    ),
    Row("what time is it", "It's 12:30 am.", LATE_WEDNESDAY, changes={"time_format": "12h"}),
    Row("what time is it in tokyo", "It's 17:05 in Tokyo."),
    Row("what time is it in new york", "It's 18:30 on Wednesday in New York.", LATE_WEDNESDAY),
    Row("what's the time in buenos aires", "It's 05:05 in Buenos Aires."),
    Row(
        "what time is it in atlantis",
        "I don't know the time zone of Atlantis. Add it under cities in sources/clock.yaml.",
        status=Status.ERROR,
    ),
    Row("what time is it", "It's 11:05.", changes={"timezone": "Europe/Kyiv"}),
    Row("what's the date", "Today is Wednesday, 11 June 2025."),
    Row("what day is it", "Today is Thursday, 12 June 2025.", LATE_WEDNESDAY),
    Row("what day is it tomorrow", "Tomorrow is Thursday, 12 June 2025."),
    Row("what's the date on friday", "Friday is 13 June 2025."),
    Row("what's the date this weekend", "This weekend is Saturday 14 June and Sunday 15 June."),
    Row("what year is it", "It's 2025."),
    Row("what month is it", "It's June 2025."),
    Row(
        "how many days until christmas", "Christmas is in 197 days, on Thursday, 25 December 2025."
    ),
    Row(
        "how many days until christmas",
        "Christmas is today, Thursday, 25 December 2025.",
        CHRISTMAS_DAY,
    ),
    Row(
        "how many days until christmas",
        "Christmas is in 364 days, on Friday, 25 December 2026.",
        BOXING_DAY,
    ),
    Row("days until december 25th", "December 25 is in 197 days, on Thursday, 25 December 2025."),
    Row(
        "how many days until december twenty fifth",
        "December 25 is in 197 days, on Thursday, 25 December 2025.",
    ),
    Row(
        "how many days until the twenty-fifth of december",
        "December 25 is in 197 days, on Thursday, 25 December 2025.",
    ),
    Row("how many days until june 12th", "June 12 is tomorrow, Thursday, 12 June 2025."),
    Row(
        "how many days till new year's eve",
        "New Year's Eve is in 203 days, on Wednesday, 31 December 2025.",
    ),
    Row(
        "how many days until the 4th of july",
        "Independence Day is in 23 days, on Friday, 4 July 2025.",
    ),
    Row("how long until easter", "Easter is in 298 days, on Sunday, 5 April 2026."),
    Row(
        "how many days until thanksgiving",
        "Thanksgiving is in 169 days, on Thursday, 27 November 2025.",
    ),
    Row("how many days until friday", "Friday is in 2 days, on Friday, 13 June 2025."),
    Row("what day is christmas", "Christmas is on Thursday, 25 December 2025, in 197 days."),
    Row(
        "how many days till my birthday",
        "I don't know when your birthday is. Add it under holidays in sources/clock.yaml.",
        status=Status.ERROR,
    ),
    Row(
        "how many days until my birthday",
        "Your birthday is in 12 days, on Monday, 23 June 2025.",
        changes={"holidays": {"Your birthday": {"date": "06-23", "names": ["my birthday"]}}},
    ),
    # parts built by hand
    Row(
        "what time is it in new york city",
        "It's 04:05 in New York City.",
        slots={"location": "new york city"},
    ),
    Row(
        "what is the date",
        "It's the weekend: today is Sunday, 15 June 2025.",
        datetime(2025, 6, 15, 9, 0, tzinfo=UTC),
        slots={"day": "weekend"},
    ),
    Row(
        "what is the date this week",
        "This week runs from Monday 9 June to Sunday 15 June.",
        slots={"day": "week"},
    ),
]


def answer(source: ClockSource, part: Part) -> PartAnswer:
    return asyncio.run(source.answer(part, Request()))


def with_clock(config: Config, **changes: Any) -> Config:
    clock = {**config.sources["clock"], **changes}
    return replace(config, sources={**config.sources, "clock": clock})


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.text}@{r.instant:%m-%d %H:%M}" for r in ROWS])
def test_clock_answers(understander: Understander, config: Config, row: Row) -> None:
    source = ClockSource(with_clock(config, **row.changes), now=FrozenClock(row.instant))
    if row.slots is None:
        [part] = understander.understand(row.text).parts()
        assert part.source == "clock"
    else:
        intent = "clock.time" if "time" in row.text else "clock.date"
        part = Part(row.text, intent, "clock", row.slots, 1.0)
    result = answer(source, part)
    assert result.text == row.expected
    assert result.status is row.status
    assert result.source == "clock"


def test_a_naive_clock_is_read_in_the_configured_zone(config: Config) -> None:
    source = ClockSource(config, now=FrozenClock(datetime(2025, 6, 11, 10, 5)))
    assert answer(source, Part("what time is it", "clock.time", "clock")).text == "It's 10:05."


@pytest.mark.parametrize(
    ("slots", "instant", "truth"),
    [
        ({"day": "weekend"}, WEDNESDAY, Truth.FALSE),
        ({"day": "weekend"}, SATURDAY, Truth.TRUE),
        ({"day": "wednesday"}, WEDNESDAY, Truth.TRUE),
        ({"day": "wednesday"}, LATE_WEDNESDAY, Truth.FALSE),  # already Thursday in Berlin
        ({"day": "tomorrow"}, WEDNESDAY, Truth.UNKNOWN),
        ({}, WEDNESDAY, Truth.UNKNOWN),
    ],
)
def test_day_conditions(
    config: Config, slots: dict[str, str], instant: datetime, truth: Truth
) -> None:
    source = ClockSource(config, now=FrozenClock(instant))
    part = Part("it is the weekend", "clock.date", "clock", slots)
    assert asyncio.run(source.evaluate(part, Request())).truth is truth


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"timezone": "Mars/Olympus"}, "unknown time zone 'Mars/Olympus'"),
        ({"time_format": "36h"}, "time_format must be 24h or 12h"),
        ({"cities": {"gotham": "Nowhere/Gotham"}}, "unknown time zone 'Nowhere/Gotham'"),
        ({"holidays": {"Leap": {"date": "02-30"}}}, "holiday 'Leap'"),
        ({"holidays": {"Odd": {"month": 13, "weekday": "monday"}}}, "needs date: MM-DD"),
    ],
)
def test_bad_clock_settings_give_an_error_answer(
    config: Config, changes: dict[str, Any], reason: str
) -> None:
    source = ClockSource(with_clock(config, **changes), now=FrozenClock(WEDNESDAY))
    result = answer(source, Part("what time is it", "clock.time", "clock"))
    assert result.status is Status.ERROR
    assert "sources/clock.yaml" in result.text
    assert reason in result.text


@pytest.mark.parametrize(
    ("year", "expected"),
    [
        (2024, date(2024, 3, 31)),
        (2025, date(2025, 4, 20)),
        (2026, date(2026, 4, 5)),
        (2038, date(2038, 4, 25)),
    ],
)
def test_easter_sunday(year: int, expected: date) -> None:
    assert easter_sunday(year) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((2025, 11, 3, 4), date(2025, 11, 27)),  # fourth Thursday of November
        ((2025, 5, 0, -1), date(2025, 5, 26)),  # last Monday of May
        ((2025, 12, 2, -1), date(2025, 12, 31)),  # last Wednesday of December
        ((2025, 2, 4, 5), None),  # no fifth Friday in February 2025
    ],
)
def test_nth_weekday(args: tuple[int, int, int, int], expected: date | None) -> None:
    assert nth_weekday(*args) == expected


def test_holiday_errors_name_the_file(config: Config) -> None:
    at = At(config.root / "sources" / "clock.yaml") / "holidays"
    with pytest.raises(
        ConfigError, match=r"clock\.yaml:\d+: holiday 'Christmas': date must be MM-DD"
    ):
        load_holidays({"Christmas": {"date": "25.12."}}, at)
