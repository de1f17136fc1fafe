"""The SQLite file that keeps timers, alarms, reminders, plans and watches.

One row per item, written before the answer says it is set, so a restart (or
a crash) loses nothing. Times are epoch seconds (UTC); an item set for a clock
time also keeps that local time and its zone, so a change of the configured
zone moves it to the same wall-clock time. Moving an item from active to done
is a compare-and-set (`claim`): two processes on one file (a reload's old and
new assistant) never both say it. The standard library's sqlite3, in WAL mode;
every call is short and runs on the event loop's thread.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.core.origin import Origin

KINDS = ("timer", "alarm", "reminder", "scheduled", "watch")
LIVE = ("active", "paused")

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    session TEXT NOT NULL,
    origin TEXT NOT NULL,
    created_at REAL NOT NULL,
    due_at REAL,
    state TEXT NOT NULL,
    name TEXT,
    label TEXT NOT NULL DEFAULT '',
    duration_s REAL,
    remaining_s REAL,
    follows_clock INTEGER NOT NULL DEFAULT 0,
    local_time TEXT,
    zone TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    confirmed INTEGER NOT NULL DEFAULT 0,
    expires_at REAL,
    ended_at REAL
);
CREATE INDEX IF NOT EXISTS items_state ON items (state, due_at);
"""
COLUMNS = (
    "id, kind, session, origin, created_at, due_at, state, name, label, duration_s, "
    "remaining_s, follows_clock, local_time, zone, payload, confirmed, expires_at, ended_at"
)


@dataclass
class Item:
    """One thing kept for later."""

    kind: str  # timer | alarm | reminder | scheduled | watch
    session: str
    origin: Origin
    due_at: float | None  # epoch seconds; None while a timer is paused
    label: str = ""  # the message, the request, or the condition, as said
    name: str | None = None  # a timer's name ("pasta")
    duration_s: float | None = None  # a timer's length as set: "the 10 minute timer"
    remaining_s: float | None = None  # a paused timer's time left
    follows_clock: bool = False  # set for a clock time: keeps to the wall clock
    local_time: str | None = None  # that clock time, ISO, in `zone`
    zone: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)  # a plan's part, a watch's step
    confirmed: bool = False  # the yes was given when it was set
    expires_at: float | None = None  # a watch's limit
    state: str = "active"  # active | paused | done | cancelled | missed | expired
    id: str = field(default_factory=lambda: secrets.token_hex(4))
    created_at: float = field(default_factory=time.time)
    ended_at: float | None = None

    @property
    def live(self) -> bool:
        return self.state in LIVE

    def row(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.kind,
            self.session,
            json.dumps(self.origin.to_dict()),
            self.created_at,
            self.due_at,
            self.state,
            self.name,
            self.label,
            self.duration_s,
            self.remaining_s,
            int(self.follows_clock),
            self.local_time,
            self.zone,
            json.dumps(self.payload, ensure_ascii=False),
            int(self.confirmed),
            self.expires_at,
            self.ended_at,
        )

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Item:
        (
            id_,
            kind,
            session,
            origin,
            created,
            due,
            state,
            name,
            label,
            duration,
            remaining,
            follows,
            local,
            zone,
            payload,
            confirmed,
            expires,
            ended,
        ) = row
        return cls(
            kind=kind,
            session=session,
            origin=Origin.from_dict(json.loads(origin)),
            due_at=due,
            label=label,
            name=name,
            duration_s=duration,
            remaining_s=remaining,
            follows_clock=bool(follows),
            local_time=local,
            zone=zone,
            payload=json.loads(payload),
            confirmed=bool(confirmed),
            expires_at=expires,
            state=state,
            id=id_,
            created_at=created,
            ended_at=ended,
        )


class Store:
    """The items of one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=5.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def add(self, item: Item) -> None:
        marks = ", ".join("?" * len(COLUMNS.split(",")))
        self._db.execute(f"INSERT INTO items ({COLUMNS}) VALUES ({marks})", item.row())

    def add_many(self, items: list[Item]) -> None:
        marks = ", ".join("?" * len(COLUMNS.split(",")))
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                f"INSERT INTO items ({COLUMNS}) VALUES ({marks})", [i.row() for i in items]
            )

    def save(self, item: Item) -> None:
        """Write every field of a live item back."""
        sets = ", ".join(f"{c.strip()} = ?" for c in COLUMNS.split(",")[1:])
        self._db.execute(f"UPDATE items SET {sets} WHERE id = ?", (*item.row()[1:], item.id))

    def claim(self, item: Item, state: str, now: float) -> bool:
        """Move a live item to ``state`` ("done", "cancelled" ...), unless another
        process already did: True when this call did it."""
        cursor = self._db.execute(
            "UPDATE items SET state = ?, ended_at = ? WHERE id = ? AND state IN (?, ?)",
            (state, now, item.id, *LIVE),
        )
        if cursor.rowcount == 1:
            item.state, item.ended_at = state, now
            return True
        return False

    def claim_many(self, items: list[Item], state: str, now: float) -> list[Item]:
        """`claim` for many in one transaction (a burst of timers due at once); the
        items this call moved."""
        moved = []
        with self._db:
            self._db.execute("BEGIN")
            for item in items:
                cursor = self._db.execute(
                    "UPDATE items SET state = ?, ended_at = ? WHERE id = ? AND state IN (?, ?)",
                    (state, now, item.id, *LIVE),
                )
                if cursor.rowcount == 1:
                    moved.append(item)
        for item in moved:
            item.state, item.ended_at = state, now
        return moved

    def get(self, item_id: str) -> Item | None:
        row = self._db.execute(f"SELECT {COLUMNS} FROM items WHERE id = ?", (item_id,)).fetchone()
        return Item.from_row(row) if row else None

    def live(self) -> list[Item]:
        """Every active or paused item, the soonest first."""
        rows = self._db.execute(
            f"SELECT {COLUMNS} FROM items WHERE state IN (?, ?) ORDER BY due_at, created_at",
            LIVE,
        ).fetchall()
        return [Item.from_row(r) for r in rows]

    def count_live(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM items WHERE state IN (?, ?)", LIVE).fetchone()
        return int(row[0])

    def forget_older_than(self, before: float) -> int:
        """Delete finished items that ended before ``before``; how many."""
        cursor = self._db.execute(
            "DELETE FROM items WHERE state NOT IN (?, ?) AND ended_at < ?", (*LIVE, before)
        )
        return int(cursor.rowcount)
