"""The words the music source reads and the sentences it says, from `sources/music.yaml`.

The owner's `words:` and `replies:` are laid over the shipped ones key by
key, so an older file keeps working when a new word or sentence ships.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.sources.phrasing import Sentences, phrases

KINDS = ("playlist", "artist", "album", "genre", "title")


def _kinds(value: Any) -> dict[str, tuple[tuple[str, ...], ...]]:
    table = value if isinstance(value, dict) else {}
    return {kind: phrases(table.get(kind)) for kind in KINDS if table.get(kind)}


@dataclass(frozen=True)
class MusicWords:
    """What a music request may say besides a name."""

    play_verbs: tuple[tuple[str, ...], ...] = ()
    shuffle: tuple[tuple[str, ...], ...] = ()
    fillers: frozenset[str] = frozenset()
    filler_phrases: tuple[tuple[str, ...], ...] = ()
    before: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    after: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    by: frozenset[str] = frozenset()
    areas: frozenset[str] = frozenset()
    player_nouns: tuple[tuple[str, ...], ...] = ()
    here: tuple[tuple[str, ...], ...] = ()
    levels: dict[str, int] = field(default_factory=dict)
    step_markers: frozenset[str] = frozenset()
    level_markers: frozenset[str] = frozenset()
    off: tuple[tuple[str, ...], ...] = ()
    on: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def from_yaml(cls, data: Any) -> MusicWords:
        raw = data if isinstance(data, dict) else {}
        fillers = phrases(raw.get("fillers"))
        levels = raw.get("levels")
        levels = levels if isinstance(levels, dict) else {}
        return cls(
            play_verbs=phrases(raw.get("play_verbs")),
            shuffle=phrases(raw.get("shuffle")),
            fillers=frozenset(w[0] for w in fillers if len(w) == 1),
            filler_phrases=tuple(w for w in fillers if len(w) > 1),
            before=_kinds(raw.get("before")),
            after=_kinds(raw.get("after")),
            by=frozenset(w[0] for w in phrases(raw.get("by")) if len(w) == 1),
            areas=frozenset(w[0] for w in phrases(raw.get("areas")) if len(w) == 1),
            player_nouns=phrases(raw.get("player_nouns")),
            here=phrases(raw.get("here")),
            levels={
                str(k).lower(): int(v)
                for k, v in levels.items()
                if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 100
            },
            step_markers=frozenset(str(w).lower() for w in raw.get("step_markers") or []),
            level_markers=frozenset(str(w).lower() for w in raw.get("level_markers") or []),
            off=phrases(raw.get("off")),
            on=phrases(raw.get("on")),
        )


class MusicReplies(Sentences):
    """The music source's sentences (`replies:` of `sources/music.yaml`)."""

    def __init__(self, data: Any, defaults: Any) -> None:
        super().__init__(data, defaults, "sources/music.yaml")
