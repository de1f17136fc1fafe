"""`mnemolis doctor` for the lists source: the database opens, and what it holds."""

from __future__ import annotations

import asyncio
import os
from typing import Protocol

from mnemolis.sources.base import Finding, Level
from mnemolis.sources.lists.settings import ListsSettings
from mnemolis.sources.lists.store import ListStore, StoreError


class Checked(Protocol):
    """What the doctor reads of the lists source (it never imports the source back)."""

    @property
    def settings(self) -> ListsSettings | None: ...
    @property
    def store(self) -> ListStore | None: ...
    @property
    def problem(self) -> str | None: ...


async def diagnose(lists: Checked) -> list[Finding]:
    settings, store = lists.settings, lists.store
    if settings is None or store is None:
        text = lists.problem or "the lists source is not set up"
        return [Finding("lists", Level.BROKEN, text, "fix sources/lists.yaml")]
    if not settings.path.exists():
        text = f"no lists yet; {settings.path} is made when the first item is added"
        parent = settings.path.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            fix = "make the state directory writable, or set MNEMOLIS_STATE"
            what = "is not writable" if parent.is_dir() else "is not a directory"
            return [Finding("lists", Level.BROKEN, f"{parent} {what}", fix)]
        return [Finding("lists", Level.OK, text)]
    try:
        found = await asyncio.to_thread(store.lists)
    except StoreError as exc:
        fix = "check the file and its directory, or set MNEMOLIS_STATE"
        return [Finding("lists", Level.BROKEN, f"cannot read {settings.path}: {exc}", fix)]
    summary = ", ".join(f"{name} ({count})" for name, count in found) or "no lists"
    return [Finding("lists", Level.OK, f"{settings.path}: {summary}")]
