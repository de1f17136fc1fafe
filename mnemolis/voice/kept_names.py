"""The names the sources keep, for the recogniser to learn: every item the home's lists
have held (the shipped common items are the recogniser's own). Read at each compile,
so a rebuild (a reload, a changed home) hears what was added since.

A missing or unreadable list store is no names, never an error: the recogniser
still hears every other request.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from mnemolis.config import Config, ConfigError
from mnemolis.sources.lists.settings import load_lists_settings
from mnemolis.sources.lists.store import ListStore, StoreError

#: At most this many of the lists' items (the newest).
MAX_ITEMS = 2000


def kept_names(config: Config, state_dir: Path) -> Callable[[], dict[str, list[str]]]:
    """A callable giving {"item": [...]} from the lists' store as it is now."""

    def names() -> dict[str, list[str]]:
        try:
            settings = load_lists_settings(config, state_dir)
            if not settings.path.is_file():
                return {}
            store = ListStore(settings.path, settings.busy_timeout_s, settings.max_items)
            try:
                return {"item": store.known(MAX_ITEMS)}
            finally:
                store.close()
        except (ConfigError, StoreError, OSError, sqlite3.Error):
            return {}

    return names
