"""`mnemolis doctor` for the timers source: its settings and its SQLite file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemolis.sources.base import Finding, Level

if TYPE_CHECKING:
    from mnemolis.sources.timers.source import TimersSource


def diagnose(timers: TimersSource) -> Finding:
    if timers.settings is None:
        return Finding(
            "timers", Level.BROKEN, timers.problem or "misconfigured", "fix sources/timers.yaml"
        )
    where = timers.settings.database
    if timers.store is None:
        fix = f"make {where.parent} writable (or set $MNEMOLIS_STATE)"
        return Finding("timers", Level.BROKEN, timers.problem or f"cannot open {where}", fix)
    kept = len(timers.items)
    return Finding("timers", Level.OK, f"{kept} item(s) kept in {where}")
