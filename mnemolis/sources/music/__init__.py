"""The music source: the house's own players over the MPD protocol (MPD, Mopidy,
moOde, Volumio), one per area (`sources/music.yaml`).

`source` answers; `settings` reads the file and ``$MNEMOLIS_MPD``; `mpd_link`
is one connection to one player; `request` reads what a part asks for;
`library` finds the name meant in the player's library; `commands` carries
each intent out and checks it on the player's status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.music.source import MusicSource


def create(context: SourceContext) -> MusicSource:
    from mnemolis.sources.music.source import MusicSource

    return MusicSource(context.config, context.registry, context.state_dir, context.environ)
