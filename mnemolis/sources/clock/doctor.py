"""`mnemolis doctor` for the clock source: the time zone."""

from __future__ import annotations

from datetime import tzinfo
from typing import Protocol

from mnemolis.sources.base import Finding, Level


class _Zoned(Protocol):
    @property
    def timezone(self) -> tzinfo: ...


class Checked(Protocol):
    """What the doctor reads of the clock source (it never imports the source back)."""

    @property
    def settings(self) -> _Zoned | None: ...
    @property
    def problem(self) -> str | None: ...


def diagnose(clock: Checked) -> Finding:
    if clock.settings is None:
        return Finding(
            "clock", Level.BROKEN, clock.problem or "misconfigured", "fix sources/clock.yaml"
        )
    return Finding("clock", Level.OK, f"time zone {clock.settings.timezone}")
