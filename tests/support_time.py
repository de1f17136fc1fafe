"""A frozen clock for sources that take ``now: Callable[[], datetime]``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass
class FrozenClock:
    """Always the same instant until a test moves it."""

    instant: datetime

    def __call__(self) -> datetime:
        return self.instant

    def advance(self, **delta: float) -> None:
        self.instant += timedelta(**delta)
