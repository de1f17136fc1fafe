"""The broadcast source: "broadcast dinner is ready", said now in every area or in
the one named, as an announcement of kind ``broadcast`` (`sources/broadcast.yaml`).

It is its own source, not a part of the timers source: it keeps nothing for
later (no store, no scheduler), and only needs the daemon's `Announcer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemolis.sources.base import ANSWERS_ONCE

if TYPE_CHECKING:
    from mnemolis.config import Config
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.broadcast.source import BroadcastSource


def create(context: SourceContext) -> BroadcastSource:
    from mnemolis.sources.broadcast.source import BroadcastSource

    return BroadcastSource(
        context.config,
        announcer=context.announcer,
        one_shot=bool(context.extras.get(ANSWERS_ONCE)),
    )


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them."""
    from mnemolis.sources.broadcast.source import BroadcastSettings

    BroadcastSettings.from_config(config)
