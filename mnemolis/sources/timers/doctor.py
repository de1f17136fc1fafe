"""`mnemolis doctor` for the timers source: its settings and its SQLite file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from mnemolis.sources.base import Finding, Level
from mnemolis.sources.timers.settings import TimersSettings
from mnemolis.sources.timers.store import Item, Store


class Checked(Protocol):
    """What the doctor reads of the timers source (it never imports the source back)."""

    @property
    def settings(self) -> TimersSettings | None: ...
    @property
    def store(self) -> Store | None: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def items(self) -> Mapping[str, Item]: ...


def diagnose(timers: Checked) -> Finding:
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
