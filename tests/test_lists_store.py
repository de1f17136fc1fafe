"""The lists database: many writers at once lose nothing; it behaves like a plain model.

Parallel writers are real: separate processes (each with its own SQLite
connection, as separate `mnemolis` processes have) and threads sharing one
store. Then a property: any sequence of adds, removes, check-offs and clears
leaves the same pending items as a dictionary model would.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import tempfile
import threading
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.sources.lists.items import item_key
from mnemolis.sources.lists.store import ListStore

WRITERS = 6
ITEMS_EACH = 25


def _write(path: str, writer: int) -> None:
    store = ListStore(Path(path), busy_timeout_s=30)
    for n in range(ITEMS_EACH):
        changed = store.add("shopping", [f"item {writer} {n}"])
        assert changed is not None and changed.done
    store.close()


def test_parallel_processes_lose_no_item(tmp_path: Path) -> None:
    path = tmp_path / "lists.sqlite3"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write, args=(str(path), w)) for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    items = ListStore(path).items("shopping")
    assert items is not None
    assert sorted(items) == sorted(
        f"item {w} {n}" for w in range(WRITERS) for n in range(ITEMS_EACH)
    )
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_parallel_threads_on_one_store_lose_no_item(tmp_path: Path) -> None:
    store = ListStore(tmp_path / "lists.sqlite3")
    threads = [
        threading.Thread(
            target=lambda w=w: [store.add("to do", [f"task {w} {n}"]) for n in range(ITEMS_EACH)]
        )
        for w in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.items("to do") or []) == WRITERS * ITEMS_EACH


def test_the_same_item_added_at_once_is_kept_once(tmp_path: Path) -> None:
    store = ListStore(tmp_path / "lists.sqlite3")
    threads = [threading.Thread(target=store.add, args=("shopping", ["Milk"])) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.items("shopping") == ["Milk"]


def test_reading_a_fresh_state_directory_makes_no_file(tmp_path: Path) -> None:
    store = ListStore(tmp_path / "state" / "lists.sqlite3")
    assert store.items("shopping") is None
    assert store.lists() == []
    assert not (tmp_path / "state").exists()


NAMES = st.sampled_from(["milk", "Milk", "eggs", "egg", "bread", "oat milk", "tomatoes"])
OPS = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "check", "clear"]), st.lists(NAMES, max_size=3)),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(OPS)
def test_the_store_behaves_like_a_model(ops: list[tuple[str, list[str]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = ListStore(Path(folder) / "lists.sqlite3")
        model: dict[str, str] = {}  # key -> text, in the order added
        for op, names in ops:
            if op == "add":
                store.add("shopping", names)
                for name in names:
                    model.setdefault(item_key(name), name)
            elif op == "clear":
                store.clear("shopping")
                model.clear()
            else:
                take = store.remove if op == "remove" else store.check_off
                changed = take("shopping", names)
                for name in names:
                    key = item_key(name)
                    if key in model:
                        model.pop(key)
                    elif changed is not None:
                        # a single pending item whose words contain the name goes instead
                        close = [k for k in model if set(key.split()) <= set(k.split())]
                        if len(close) == 1:
                            model.pop(close[0])
            assert sorted(map(item_key, store.items("shopping") or [])) == sorted(model)
        store.close()
