"""When things are due, and how durations and times are said.

A `When` from understanding is spoken time ("at 7", "in 20 minutes",
"tomorrow"); here it becomes an instant in the house's time zone, with
zoneinfo doing daylight saving time. "At 7" without am or pm is the next 7:00
or 19:00, whichever comes first; a day without a time ("remind me tomorrow")
takes the reminder time of `sources/timers.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from mnemolis.core.days import WEEKDAY_SLOTS, resolve_day
from mnemolis.core.plan import When
from mnemolis.sources.timers.settings import Replies

DAY_S = 86400


@dataclass(frozen=True)
class Due:
    """An instant things are due, or why there is none (a key of the replies)."""

    at: datetime | None
    problem: str | None = None
    follows_clock: bool = False  # a clock time ("at 7"), not a duration ("in 5 minutes")


def resolve(when: When, now: datetime, default_time: tuple[int, int]) -> Due:
    """The first instant ``when`` names after ``now`` (aware, in the house's zone)."""
    zone = now.tzinfo
    assert zone is not None
    if when.vague is not None:  # "at sunset", "this evening": no clock time to wait for
        return Due(None, "vague_time")
    if when.after_s is not None:  # real seconds: aware arithmetic would keep the wall clock
        return Due(datetime.fromtimestamp(now.timestamp() + when.after_s, zone))
    today = now.date()
    if when.hour is None:
        if when.day is None or when.day == "today":
            return Due(None, "no_time")
        days = _days(when.day, today)
        hour, minute = default_time
        return Due(_local(days[0], hour, minute, zone), None, True)
    hours = [when.hour]
    if when.am_or_pm:
        hours = [when.hour % 12, when.hour % 12 + 12]
    candidates = [
        _local(day, hour, when.minute, zone)
        for day in (_days(when.day, today) if when.day else [today, today + timedelta(days=1)])
        for hour in hours
    ]
    later = sorted(c for c in candidates if c > now)
    if not later and when.day in WEEKDAY_SLOTS:  # "on friday at 7", said on a Friday at 8
        later = sorted(
            _local(c.date() + timedelta(days=7), c.hour, c.minute, zone) for c in candidates
        )
    if not later:
        return Due(None, "passed")
    return Due(later[0], None, True)


def _days(slot: str, today: date) -> list[date]:
    span = resolve_day(slot, today)
    return list(span.dates[:1]) if span is not None else [today]


def _local(day: date, hour: int, minute: int, zone: tzinfo) -> datetime:
    """The local time on ``day``. A time the clocks skip (spring forward, 2:30) is read
    with the offset before the change, which lands after the jump (3:30): never early."""
    naive = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
    return datetime.fromtimestamp(naive.timestamp(), zone)


# ----------------------------------------------------------------------------- speaking


class Speaker:
    """Durations ("1 hour and 30 minutes") and times ("tomorrow at 7:00") in words."""

    def __init__(self, replies: Replies, zone: tzinfo, twelve_hour: bool) -> None:
        self.replies = replies
        self.zone = zone
        self.twelve_hour = twelve_hour

    def duration(self, seconds: float, adjective: bool = False) -> str:
        """The two largest units: "2 hours and 5 minutes", "4 minutes and 10 seconds";
        ``adjective``: always the singular ("a 10 minute timer")."""
        left = max(0, round(seconds))
        parts: list[str] = []
        for unit, size in (("day", DAY_S), ("hour", 3600), ("minute", 60), ("second", 1)):
            count, left = divmod(left, size)
            if count:
                one, many = self.replies.units[unit]
                parts.append(f"{count} {one if count == 1 or adjective else many}")
        if not parts:
            return f"0 {self.replies.units['second'][1]}"
        parts = parts[:2]
        joiner = f" {self.replies.sentences['and']} "
        return joiner.join(parts)

    def clock(self, moment: datetime) -> str:
        local = moment.astimezone(self.zone)
        if self.twelve_hour:
            hour = local.hour % 12 or 12
            return f"{hour}:{local.minute:02d} {'am' if local.hour < 12 else 'pm'}"
        return f"{local.hour}:{local.minute:02d}"

    def time(self, moment: datetime, now: datetime) -> str:
        """ "today at 7:00", "tomorrow at 7:00", "on Monday at 7:00"."""
        local = moment.astimezone(self.zone)
        days = (local.date() - now.astimezone(self.zone).date()).days
        clock = self.clock(moment)
        if days <= 0:
            return self.replies.say("today", clock=clock)
        if days == 1:
            return self.replies.say("tomorrow", clock=clock)
        weekday = self.replies.weekdays[local.weekday()]
        if days >= 7:
            weekday = f"{weekday} {local.date().isoformat()}"
        return self.replies.say("on_day", weekday=weekday, clock=clock)

    def kind(self, kind: str, many: bool = False) -> str:
        one, several = self.replies.kinds.get(kind, (kind, kind + "s"))
        return several if many else one
