"""Days people name ("tomorrow", "saturday", "the weekend") as concrete dates.

The clock and the weather source both turn the `day` slot into dates; they
share this so that "saturday" means the same day to both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from mnemolis.core.package_data import load_package_yaml

#: The weekday values of the `day` slot (intents/en/slots.yaml), Monday first.
WEEKDAY_SLOTS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Slot values that name one day relative to today.
RELATIVE_DAYS = {"now": 0, "today": 0, "tonight": 0, "tomorrow": 1, "day_after_tomorrow": 2}
SATURDAY = WEEKDAY_SLOTS.index("saturday")
WEEK_DAYS = 7


@dataclass(frozen=True)
class DaySpan:
    """The dates a `day` slot value names, seen from one today."""

    slot: str
    dates: tuple[date, ...]

    @property
    def is_now(self) -> bool:
        return self.slot == "now"

    @property
    def is_night(self) -> bool:
        return self.slot == "tonight"

    @property
    def first(self) -> date:
        return self.dates[0]

    @property
    def is_span(self) -> bool:
        """More than one day ("the weekend", "this week")."""
        return self.slot in ("weekend", "week")


def resolve_day(slot: str, today: date) -> DaySpan | None:
    """Dates for a slot value; a weekday is its next occurrence, today included."""
    if slot in RELATIVE_DAYS:
        return DaySpan(slot, (today + timedelta(days=RELATIVE_DAYS[slot]),))
    if slot in WEEKDAY_SLOTS:
        ahead = (WEEKDAY_SLOTS.index(slot) - today.weekday()) % WEEK_DAYS
        return DaySpan(slot, (today + timedelta(days=ahead),))
    if slot == "weekend":
        ahead = (SATURDAY - today.weekday()) % WEEK_DAYS
        if today.weekday() > SATURDAY:  # Sunday: what is left of this weekend
            return DaySpan(slot, (today,))
        saturday = today + timedelta(days=ahead)
        return DaySpan(slot, (saturday, saturday + timedelta(days=1)))
    if slot == "week":
        return DaySpan(slot, tuple(today + timedelta(days=i) for i in range(WEEK_DAYS)))
    return None


@dataclass(frozen=True)
class CalendarWords:
    """Weekday and month names for answers, and the spoken forms of dates."""

    weekdays: tuple[str, ...]
    month_names: dict[int, str]
    month_forms: dict[str, int]  # spoken form -> month number
    ordinals: dict[str, int]  # "fifth" -> 5
    ordinal_tens: tuple[int, ...]
    ordinal_suffixes: tuple[str, ...]

    def weekday(self, day: date) -> str:
        return self.weekdays[day.weekday()]

    def month(self, day: date) -> str:
        return self.month_names[day.month]


@lru_cache(maxsize=1)
def calendar_words() -> CalendarWords:
    data = load_package_yaml("mnemolis", "calendar_words")
    months = data["months"]
    return CalendarWords(
        weekdays=tuple(str(w) for w in data["weekdays"]),
        month_names={int(n): str(m["name"]) for n, m in months.items()},
        month_forms={str(form): int(n) for n, m in months.items() for form in m["spoken"]},
        ordinals={str(k): int(v) for k, v in data["ordinals"].items()},
        ordinal_tens=tuple(int(t) for t in data["ordinal_tens"]),
        ordinal_suffixes=tuple(str(s) for s in data["ordinal_suffixes"]),
    )
