"""The timers source: timers, alarms, reminders, scheduled commands and "tell me
when" watches, kept in SQLite in the state directory, said when due.

`source` fires what is due; `requests` answers (set, cancel, change, list);
`store` is the SQLite file; `scheduler` the one task that wakes when the next
item is due; `times` resolves spoken times in the house's zone and says them;
`describe` names items in answers; `settings` reads `sources/timers.yaml`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemolis.sources.base import ANSWERS_ONCE

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.timers.source import TimersSource


def create(context: SourceContext) -> TimersSource:
    from mnemolis.sources.timers.source import TimersSource

    return TimersSource(
        context.config,
        context.registry,
        context.state_dir,
        announcer=context.announcer,
        peers=context.peers,
        one_shot=bool(context.extras.get(ANSWERS_ONCE)),
    )
