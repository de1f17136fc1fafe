"""The lists in SQLite, shared by every process that uses the same state directory.

WAL mode lets readers go on while one process writes; each change is one
``BEGIN IMMEDIATE`` transaction, so two processes adding at once never lose
an item (the second waits, up to the busy timeout, for the first). Items are
kept once per list by their key (`items.item_key`: "eggs" is "egg"); adding
one that was checked off puts it back on the list. Nothing is created until
something is written: reading a list in a fresh state directory says it is
empty without making a file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mnemolis.sources.lists.items import item_key

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS lists (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    list_id INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    key TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    added REAL NOT NULL,
    done_at REAL,
    UNIQUE (list_id, key)
);
"""


class StoreError(Exception):
    """The database cannot be opened or written (a full disk, a read-only directory)."""


@dataclass
class Changed:
    """What a change did, by item, in the order they were asked for."""

    done: list[str] = field(default_factory=list)  # added, removed or checked off
    already: list[str] = field(default_factory=list)  # already on it (add)
    missing: list[str] = field(default_factory=list)  # not on it (remove, check off)
    created: bool = False  # the list was made by this change
    full: bool = False  # refused: the list holds max_items
    remaining: int = 0  # items still on the list


class ListStore:
    def __init__(self, path: Path, busy_timeout_s: float = 5.0, max_items: int = 500) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self.max_items = max_items
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ connection

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._conn is not None:
            return self._conn
        if not create and not self.path.exists():
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA foreign_keys = ON")
            if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                conn.executescript(SCHEMA)  # IF NOT EXISTS: safe when two processes race
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(str(exc)) from exc
        self._conn = conn
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction that holds the write lock from its start."""
        with self._lock:
            conn = self._connect(create=True)
            assert conn is not None
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(str(exc)) from exc

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection | None]:
        with self._lock:
            try:
                yield self._connect(create=False)
            except sqlite3.Error as exc:
                raise StoreError(str(exc)) from exc

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _list_id(conn: sqlite3.Connection, name: str) -> int | None:
        row = conn.execute("SELECT id FROM lists WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else None

    @staticmethod
    def _pending(conn: sqlite3.Connection, list_id: int) -> int:
        row = conn.execute(
            "SELECT count(*) FROM items WHERE list_id = ? AND done = 0", (list_id,)
        ).fetchone()
        return int(row[0])

    def _ensure(self, conn: sqlite3.Connection, name: str) -> tuple[int, bool]:
        found = self._list_id(conn, name)
        if found is not None:
            return found, False
        cur = conn.execute("INSERT INTO lists (name, created) VALUES (?, ?)", (name, time.time()))
        return int(cur.lastrowid or 0), True

    @staticmethod
    def _match(conn: sqlite3.Connection, list_id: int, item: str) -> tuple[int, str] | None:
        """The pending item meant: same key, else the only one whose words contain it."""
        key = item_key(item)
        rows = conn.execute(
            "SELECT id, text, key FROM items WHERE list_id = ? AND done = 0", (list_id,)
        ).fetchall()
        for row_id, text, row_key in rows:
            if row_key == key:
                return int(row_id), str(text)
        words = set(key.split())
        close = [(int(r), str(t)) for r, t, k in rows if words and words <= set(str(k).split())]
        return close[0] if len(close) == 1 else None

    # ------------------------------------------------------------------ changes

    def add(self, name: str, items: Sequence[str], create: bool = True) -> Changed | None:
        """Put items on a list; None when the list does not exist and ``create`` is off."""
        out = Changed()
        with self._write() as conn:
            if not create and self._list_id(conn, name) is None:
                return None
            list_id, out.created = self._ensure(conn, name)
            pending = self._pending(conn, list_id)
            for item in items:
                key = item_key(item)
                row = conn.execute(
                    "SELECT id, done FROM items WHERE list_id = ? AND key = ?", (list_id, key)
                ).fetchone()
                if row is not None and not row[1]:
                    out.already.append(item)
                    continue
                if pending >= self.max_items:
                    out.full = True
                    break
                if row is not None:  # checked off before: back on the list, as said now
                    conn.execute(
                        "UPDATE items SET done = 0, done_at = NULL, text = ?, added = ? "
                        "WHERE id = ?",
                        (item, time.time(), row[0]),
                    )
                else:
                    conn.execute(
                        "INSERT INTO items (list_id, text, key, added) VALUES (?, ?, ?, ?)",
                        (list_id, item, key, time.time()),
                    )
                pending += 1
                out.done.append(item)
            out.remaining = pending
        return out

    def _take(self, name: str, items: Sequence[str], check: bool) -> Changed | None:
        out = Changed()
        with self._write() as conn:
            list_id = self._list_id(conn, name)
            if list_id is None:
                return None
            for item in items:
                found = self._match(conn, list_id, item)
                if found is None:
                    out.missing.append(item)
                    continue
                if check:
                    conn.execute(
                        "UPDATE items SET done = 1, done_at = ? WHERE id = ?",
                        (time.time(), found[0]),
                    )
                else:
                    conn.execute("DELETE FROM items WHERE id = ?", (found[0],))
                out.done.append(found[1])
            out.remaining = self._pending(conn, list_id)
        return out

    def remove(self, name: str, items: Sequence[str]) -> Changed | None:
        return self._take(name, items, check=False)

    def check_off(self, name: str, items: Sequence[str]) -> Changed | None:
        return self._take(name, items, check=True)

    def _empty(self, name: str, drop: bool) -> int | None:
        with self._write() as conn:
            list_id = self._list_id(conn, name)
            if list_id is None:
                return None
            pending = self._pending(conn, list_id)
            conn.execute("DELETE FROM items WHERE list_id = ?", (list_id,))
            if drop:
                conn.execute("DELETE FROM lists WHERE id = ?", (list_id,))
            return pending

    def clear(self, name: str) -> int | None:
        """Take every item off (checked-off ones too); how many were pending."""
        return self._empty(name, drop=False)

    def delete(self, name: str) -> int | None:
        """Delete a list and its items; how many were pending, None when it did not exist."""
        return self._empty(name, drop=True)

    def create(self, name: str) -> bool:
        """Make a list; False when it was there already."""
        with self._write() as conn:
            return self._ensure(conn, name)[1]

    # ------------------------------------------------------------------ reading

    def items(self, name: str) -> list[str] | None:
        """The pending items in the order they were added; None when there is no such list."""
        with self._read() as conn:
            if conn is None:
                return None
            list_id = self._list_id(conn, name)
            if list_id is None:
                return None
            rows = conn.execute(
                "SELECT text FROM items WHERE list_id = ? AND done = 0 ORDER BY added, id",
                (list_id,),
            ).fetchall()
            return [str(r[0]) for r in rows]

    def known(self, limit: int = 2000) -> list[str]:
        """Every item any list has held (pending or done), the newest first: what is
        bought again is said again, so the recogniser learns these names."""
        with self._read() as conn:
            if conn is None:
                return []
            rows = conn.execute(
                "SELECT text FROM items GROUP BY lower(text) ORDER BY max(added) DESC LIMIT ?",
                (limit,),
            ).fetchall()
            return [str(r[0]) for r in rows]

    def lists(self) -> list[tuple[str, int]]:
        """Every list with its number of pending items, oldest first."""
        with self._read() as conn:
            if conn is None:
                return []
            rows = conn.execute(
                "SELECT l.name, count(i.id) FROM lists l LEFT JOIN items i "
                "ON i.list_id = l.id AND i.done = 0 GROUP BY l.id ORDER BY l.created, l.id"
            ).fetchall()
            return [(str(n), int(c)) for n, c in rows]
