"""The names the sources keep, for the recogniser to learn: every item the home's lists
have held, the music players' artists, albums, genres, playlists and songs, and the
titles of the encyclopedia's local books (the shipped common list items are the
recogniser's own). Read at each compile, so a rebuild (a reload, a changed home)
hears what was added since.

A source that cannot be read (no list store yet, a player that is down, a broken
book) gives no names, never an error: the recogniser still hears every other
request. Each kind is capped (the newest list items, the first titles).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from mnemolis.config import Config, ConfigError
from mnemolis.sources.kiwix.settings import read_settings
from mnemolis.sources.lists.settings import load_lists_settings
from mnemolis.sources.lists.store import ListStore, StoreError
from mnemolis.sources.music.library import Library
from mnemolis.sources.music.mpd_link import MpdLink, PlayerDown, PlayerRefused
from mnemolis.sources.music.settings import load_music_settings

#: At most this many names of each kind.
MAX_NAMES = 2000
#: What a player's library is asked for, beside its playlists.
MUSIC_KINDS = ("artist", "album", "genre", "playlist", "title")

Names = dict[str, list[str]]


def kept_names(state_dir: Path) -> Callable[[Config], Names]:
    """A callable giving {"item": [...], "music": [...], "title": [...]} as they are now,
    for the configuration it is given (a reload may have changed the sources)."""

    def names(config: Config) -> Names:
        out: Names = {}
        for kind, read in (("item", list_items), ("music", music_names), ("title", titles)):
            try:
                found = read(config, state_dir)
            except (ConfigError, StoreError, PlayerDown, PlayerRefused, OSError, sqlite3.Error):
                continue
            if found:
                out[kind] = found[:MAX_NAMES]
        return out

    return names


def list_items(config: Config, state_dir: Path) -> list[str]:
    settings = load_lists_settings(config, state_dir)
    if not settings.path.is_file():
        return []
    store = ListStore(settings.path, settings.busy_timeout_s, settings.max_items)
    try:
        return store.known(MAX_NAMES)
    finally:
        store.close()


def music_names(config: Config, _state_dir: Path) -> list[str]:
    settings = load_music_settings(config)
    found: dict[str, None] = {}
    for player in settings.players:
        link = MpdLink(player, settings.timeout_s)
        library = Library()
        try:
            link.call_now(library.refresh)
        finally:
            link.close()
        for kind in MUSIC_KINDS:
            found.update(dict.fromkeys(library.names.get(kind, {}).values()))
    return list(found)


def titles(config: Config, _state_dir: Path) -> list[str]:
    settings = read_settings(config, os.environ)
    found: dict[str, None] = {}
    for book in settings.books:
        if book.path is not None and book.path.is_file():
            found.update(dict.fromkeys(_book_titles(book.path, MAX_NAMES - len(found))))
    return list(found)


def _book_titles(path: Path, limit: int) -> Iterator[str]:
    """The first ``limit`` titles of a ZIM file (its entries in path order)."""
    from libzim.reader import Archive

    try:
        archive = Archive(str(path))
        # no public iteration (zim_local reads entries the same way, where it can)
        entry_by_id = getattr(archive, "_get_entry_by_id", None)
        if entry_by_id is None:
            return
        for i in range(min(archive.entry_count, max(0, limit))):
            title = str(entry_by_id(i).title)
            if title:
                yield title
    except RuntimeError:
        return
