"""The routines source: intents with `do:` steps (device actions, `say:`, `publish:`,
`call:`, `wait:`, `if:`, `confirm:`, `together:`, another source's intent) and
reply-only intents, all written in YAML (`intents/<lang>/*.yaml`); how they run
is `sources/routines.yaml`.

`source` answers a routine's part; `run` runs its steps through the other
sources; `webhook` sends a `call:`; `settings` reads the file; `doctor`
checks what the steps use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.routines.source import RoutinesSource


def create(context: SourceContext) -> RoutinesSource:
    from mnemolis.sources.routines.settings import load_routine_settings
    from mnemolis.sources.routines.source import RoutinesSource

    settings = load_routine_settings(context.config)
    # the peers dict is the context's own: sources built later join it before any answer
    return RoutinesSource(context.config, context.registry, context.peers, settings)
