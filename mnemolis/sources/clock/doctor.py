"""`mnemolis doctor` for the clock source: the time zone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemolis.sources.base import Finding, Level

if TYPE_CHECKING:
    from mnemolis.sources.clock.source import ClockSource


def diagnose(clock: ClockSource) -> Finding:
    if clock.settings is None:
        return Finding(
            "clock", Level.BROKEN, clock.problem or "misconfigured", "fix sources/clock.yaml"
        )
    return Finding("clock", Level.OK, f"time zone {clock.settings.timezone}")
