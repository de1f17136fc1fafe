"""A player's library by name: which artist, album, genre, playlist or song was meant.

The names come from the player itself (``list artist``, ``list album``,
``list genre``, ``list title``, ``listplaylists``) and are fetched again only
when MPD's database changed (``stats``'s ``db_update``); playlists every
time, since saving one does not touch the database. A spoken name matches
exactly after normalising ("the beatles" is "The Beatles", "simon and
garfunkel" is "Simon & Garfunkel"), else fuzzily (rapidfuzz) above a cutoff
so that a name heard slightly wrong still plays ("miles davies"). When the
kind is not said, the best score wins, and a tie goes to the first of
playlist, artist, album, genre, title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import mpd
from rapidfuzz import fuzz, process

from mnemolis.sources.music.request import PlayQuery
from mnemolis.sources.music.words import KINDS

#: Words that join two names inside one name ("simon and garfunkel").
JOINERS = frozenset({"and", "&", "n", "'n'", "plus"})
_NOT_WORD = re.compile(r"[^\w\s']+")


def normalise(name: str) -> str:
    """Lower case, "&" as "and", no punctuation, no leading "the"."""
    text = name.lower().replace("&", " and ")
    text = " ".join(_NOT_WORD.sub(" ", text).split())
    return text[4:] if text.startswith("the ") and len(text) > 4 else text


@dataclass(frozen=True)
class Selection:
    """What will be queued: one name of one kind (and the artist, for "X by Y")."""

    kind: str  # artist | album | genre | playlist | title | library | queue
    name: str
    artist: str | None = None
    score: float = 100.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "artist": self.artist,
            "score": round(self.score, 1),
        }


def _values(rows: Any, tag: str) -> list[str]:
    """``list <tag>`` rows: dicts in python-mpd2 3, plain strings from older servers."""
    out: list[str] = []
    for row in rows or []:
        value = row.get(tag) if isinstance(row, dict) else row
        if isinstance(value, list):
            out.extend(str(v) for v in value)
        elif value:
            out.append(str(value))
    return out


@dataclass
class Library:
    """The names of one player's library, refreshed when its database changes."""

    cutoff: float = 82.0
    names: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> normalised -> name
    db_update: str | None = None
    version: int = 0  # goes up whenever the names change

    def refresh(self, client: mpd.MPDClient) -> None:
        stamp = str(client.stats().get("db_update", ""))
        if stamp != self.db_update or not self.names:
            for kind in ("artist", "album", "genre", "title"):
                self.names[kind] = self._table(_values(client.list(kind), kind))
            self.db_update = stamp
            self.version += 1
        playlists = [str(p.get("playlist")) for p in client.listplaylists() if p.get("playlist")]
        table = self._table(playlists)
        if table != self.names.get("playlist"):
            self.names["playlist"] = table
            self.version += 1

    @staticmethod
    def _table(values: list[str]) -> dict[str, str]:
        table: dict[str, str] = {}
        for value in values:
            key = normalise(value)
            if key:
                table.setdefault(key, value)
        return table

    def protected(self) -> set[str]:
        """Names with a conjunction inside ("simon and garfunkel"), lower-case, as
        understanding asks: they are one name, not two requests."""
        out: set[str] = set()
        for table in self.names.values():
            for name in table.values():
                spoken = " ".join(name.lower().split())
                if JOINERS & set(spoken.split()):
                    out.add(spoken)
                    out.add(" ".join(spoken.replace("&", "and").split()))
        return out

    def exact(self, kind: str, query: str) -> str | None:
        key = normalise(query)
        return (self.names.get(kind) or {}).get(key) if key else None

    def best(self, kind: str, query: str) -> tuple[str, float] | None:
        """The name of this kind closest to ``query``, exact first, and its score."""
        found = self.exact(kind, query)
        if found is not None:
            return found, 100.0
        table = self.names.get(kind) or {}
        key = normalise(query)
        if not key or not table:
            return None
        hit = process.extractOne(key, table.keys(), scorer=fuzz.WRatio, score_cutoff=self.cutoff)
        return (table[hit[0]], float(hit[1])) if hit is not None else None

    def resolve(self, query: PlayQuery, client: mpd.MPDClient | None = None) -> Selection | None:
        """The name meant, or None when the library has nothing close enough."""
        if query.artist and client is not None:
            found = self._by_artist(query, client)
            if found is not None:
                return found
        kinds = [query.kind] if query.kind else list(KINDS)
        texts = list(dict.fromkeys(t for t in (query.query, query.spoken) if t))
        for text in texts:  # an exact name of any kind beats every fuzzy one
            for kind in kinds:
                name = self.exact(kind, text)
                if name is not None:
                    return Selection(kind, name)
        for text in texts:
            best: Selection | None = None
            for kind in kinds:
                hit = self.best(kind, text)
                if hit is not None and (best is None or hit[1] > best.score):
                    best = Selection(kind, hit[0], score=hit[1])
            if best is not None:
                return best
        return None

    def _by_artist(self, query: PlayQuery, client: mpd.MPDClient) -> Selection | None:
        """ "so what by miles davis": a title or an album of that artist."""
        artist = self.best("artist", query.artist or "")
        if artist is None:
            return None
        songs = client.find("artist", artist[0])
        kinds = [query.kind] if query.kind in ("title", "album") else ["title", "album"]
        best: Selection | None = None
        for kind in kinds:
            table = self._table([v for s in songs for v in _values([s], kind)])
            hit = Library(self.cutoff, {kind: table}).best(kind, query.query)
            if hit is not None and (best is None or hit[1] > best.score):
                best = Selection(kind, hit[0], artist[0], hit[1])
        return best


def enqueue(client: mpd.MPDClient, selection: Selection) -> None:
    """Replace the queue with the selection ("play X" means X now, as players do)."""
    if selection.kind == "queue":
        return
    client.clear()
    if selection.kind == "playlist":
        client.load(selection.name)
    elif selection.kind == "library":
        client.add("/")
    elif selection.artist:
        client.findadd(selection.kind, selection.name, "artist", selection.artist)
    else:
        client.findadd(selection.kind, selection.name)
