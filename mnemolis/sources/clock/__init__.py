"""The clock source: time and date in the configured zone, named days and holidays,
days until a date, and the time in a named city (`sources/clock.yaml`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.clock.source import ClockSource


def create(context: SourceContext) -> ClockSource:
    from mnemolis.sources.clock.source import ClockSource

    return ClockSource(context.config)
