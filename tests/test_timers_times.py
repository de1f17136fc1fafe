"""Spoken times as instants in the house's zone (daylight saving time included), and
durations and times as they are said back."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import Config
from mnemolis.core.plan import When
from mnemolis.sources.timers.settings import TimersSettings
from mnemolis.sources.timers.times import Speaker, resolve

BERLIN = ZoneInfo("Europe/Berlin")
NINE = (9, 0)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN)


RESOLVED = [
    # (now, when, expected local time or problem)
    ("2025-06-11 08:00", When(after_s=300), "2025-06-11 08:05"),
    ("2025-06-11 08:00", When(hour=7, am_or_pm=True), "2025-06-11 19:00"),
    ("2025-06-11 06:00", When(hour=7, am_or_pm=True), "2025-06-11 07:00"),
    ("2025-06-11 20:00", When(hour=7, am_or_pm=True), "2025-06-12 07:00"),
    ("2025-06-11 08:00", When(hour=19), "2025-06-11 19:00"),
    ("2025-06-11 20:00", When(hour=19), "2025-06-12 19:00"),
    (
        "2025-06-11 08:00",
        When(hour=6, minute=30, am_or_pm=True, day="tomorrow"),
        "2025-06-12 06:30",
    ),
    ("2025-06-11 08:00", When(hour=12, am_or_pm=True), "2025-06-11 12:00"),
    ("2025-06-11 13:00", When(hour=12, am_or_pm=True), "2025-06-12 00:00"),
    ("2025-06-11 08:00", When(hour=9, day="monday"), "2025-06-16 09:00"),  # a Wednesday now
    ("2025-06-11 08:00", When(day="tomorrow"), "2025-06-12 09:00"),  # the reminder time
    ("2025-06-11 10:00", When(hour=7, day="today"), "passed"),
    ("2025-06-11 10:00", When(day="today"), "no_time"),
    ("2025-06-11 10:00", When(), "no_time"),
    # spring forward: 2:30 does not exist on 30 March 2025 in Berlin; it is 3:30
    ("2025-03-29 22:00", When(hour=2, minute=30, day="tomorrow"), "2025-03-30 03:30"),
    # fall back: 2:30 happens twice on 26 October 2025; the first one
    ("2025-10-25 22:00", When(hour=2, minute=30, day="tomorrow"), "2025-10-26 02:30+02:00"),
]


@pytest.mark.parametrize(("now", "when", "expected"), RESOLVED)
def test_spoken_times_resolve_in_the_house_zone(now: str, when: When, expected: str) -> None:
    due = resolve(when, at(now), NINE)
    if due.at is None:
        assert due.problem == expected
        return
    shown = due.at.astimezone(BERLIN)
    if "+" in expected:
        assert shown.isoformat(sep=" ", timespec="minutes") == expected
    else:
        assert shown.strftime("%Y-%m-%d %H:%M") == expected
    assert due.follows_clock is (when.after_s is None)


def test_across_spring_forward_a_duration_is_real_seconds() -> None:
    before = at("2025-03-30 01:30")
    due = resolve(When(after_s=3600), before, NINE)
    assert due.at is not None
    assert due.at.timestamp() - before.timestamp() == 3600
    assert due.at.astimezone(BERLIN).hour == 3  # the clocks went from 2 to 3


@given(
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    am_or_pm=st.booleans(),
    day=st.sampled_from([None, "tomorrow", "friday", "sunday"]),
    now=st.datetimes(datetime(2024, 1, 1), datetime(2030, 12, 31)),
)
def test_a_clock_time_is_always_after_now_and_within_eight_days(
    hour: int, minute: int, am_or_pm: bool, day: str | None, now: datetime
) -> None:
    local_now = now.replace(tzinfo=BERLIN)
    due = resolve(When(hour=hour, minute=minute, am_or_pm=am_or_pm, day=day), local_now, NINE)
    assert due.at is not None
    seconds = due.at.timestamp() - local_now.timestamp()
    assert 0 < seconds <= 8 * 86400


SAID = [
    (1, "1 second"),
    (90, "1 minute and 30 seconds"),
    (600, "10 minutes"),
    (5400, "1 hour and 30 minutes"),
    (3725, "1 hour and 2 minutes"),
    (90000, "1 day and 1 hour"),
    (0.2, "0 seconds"),
]


@pytest.mark.parametrize(("seconds", "said"), SAID)
def test_durations_are_said_in_their_two_largest_units(
    config: Config, seconds: float, said: str
) -> None:
    settings = TimersSettings.from_config(config, Path("/tmp"))
    speaker = Speaker(settings.replies, BERLIN, twelve_hour=False)
    assert speaker.duration(seconds) == said


def test_times_are_said_from_today(config: Config) -> None:
    settings = TimersSettings.from_config(config, Path("/tmp"))
    now = at("2025-06-11 08:00")
    speak = Speaker(settings.replies, BERLIN, twelve_hour=False)
    assert speak.time(at("2025-06-11 19:00"), now) == "today at 19:00"
    assert speak.time(at("2025-06-12 07:05"), now) == "tomorrow at 7:05"
    assert speak.time(at("2025-06-14 07:00"), now) == "on Saturday at 7:00"
    twelve = Speaker(settings.replies, BERLIN, twelve_hour=True)
    assert twelve.time(at("2025-06-11 19:00"), now) == "today at 7:00 pm"
    assert twelve.clock(at("2025-06-11 00:15")) == "12:15 am"
