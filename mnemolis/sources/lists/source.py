"""The lists source: the shopping list and named to-do lists, in SQLite.

A part's list is the one it names, else the one this conversation used
last ("what's on my shopping list" ... "how many things are on it"), else
the default list. Every change is one transaction in the state directory's
database (`store`), so two processes adding at once lose nothing and what
one `mnemolis ask` adds the next one reads. A database that cannot be
opened is an error answer, never an exception.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mnemolis.config import Config, ConfigError
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, Status, Truth
from mnemolis.sources.lists.items import ListReader, ListRequest, item_key
from mnemolis.sources.lists.settings import ListsSettings, load_lists_settings
from mnemolis.sources.lists.store import Changed, ListStore, StoreError

SOURCE = "lists"
NAME_SLOT = "list_name"
#: Intents that name items ("add milk ..."); the others name only a list.
ITEM_INTENTS = frozenset({"lists.add", "lists.remove", "lists.check_off"})
#: Conversations whose last list is remembered (the oldest is forgotten first).
MAX_SESSIONS = 1000


class ListsSource:
    name = SOURCE

    def __init__(self, config: Config, state_dir: Path) -> None:
        self.problem: str | None = None
        self.settings: ListsSettings | None = None
        try:
            self.settings = load_lists_settings(config, state_dir)
        except ConfigError as exc:
            self.problem = str(exc)
        slot = config.slots.get(NAME_SLOT)
        spoken = dict(slot.values) if slot else {}
        pairs = config.language.fixed_pairs
        self.reader = ListReader(self.settings, spoken, pairs) if self.settings else None
        self.store = (
            ListStore(self.settings.path, self.settings.busy_timeout_s, self.settings.max_items)
            if self.settings
            else None
        )
        self._last: OrderedDict[str, str] = OrderedDict()

    async def start(self) -> None:
        """Nothing to open yet: the database is made when something is first written."""

    async def close(self) -> None:
        if self.store is not None:
            await asyncio.to_thread(self.store.close)

    # ------------------------------------------------------------------ helpers

    def _reply(self, text: str, status: Status, data: dict[str, Any] | None = None) -> PartAnswer:
        prov = {"database": str(self.settings.path)} if self.settings else {}
        return PartAnswer(text, status, SOURCE, data or {}, prov)

    def read(self, part: Part) -> ListRequest:
        """The list and items of a part, as the source understands them (pure)."""
        assert self.reader is not None
        slot = part.slots.get(NAME_SLOT)
        asking = part.intent == "lists.read"
        items = part.intent in ITEM_INTENTS or asking
        return self.reader.read(part.text, slot if isinstance(slot, str) else None, items, asking)

    def _list(self, asked: ListRequest, session: str) -> str:
        assert self.settings is not None
        return asked.list or self._last.get(session) or self.settings.default_list

    def _remember(self, session: str, name: str) -> None:
        self._last[session] = name
        self._last.move_to_end(session)
        while len(self._last) > MAX_SESSIONS:
            self._last.popitem(last=False)

    # ------------------------------------------------------------------ answering

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        if self.settings is None or self.store is None:
            return self._reply(f"the lists source is not set up: {self.problem}", Status.ERROR)
        handler = self._handlers().get(part.intent or "")
        if handler is None:
            return self._reply(f"the lists source does not know {part.intent}", Status.ERROR)
        asked = self.read(part)
        name = self._list(asked, request.session)
        try:
            answer = await handler(name, asked)
        except StoreError as exc:
            text = self.settings.replies.say("store_failed", path=self.settings.path, reason=exc)
            return self._reply(text, Status.ERROR, {"list": name, "reason": str(exc)})
        answer.data.setdefault("list", name)
        answer.data.setdefault("items_asked", list(asked.items))
        if part.intent not in ("lists.delete", "lists.which"):
            self._remember(request.session, name)
        return answer

    def _handlers(self) -> dict[str, Callable[[str, ListRequest], Awaitable[PartAnswer]]]:
        return {
            "lists.add": self._add,
            "lists.remove": self._remove,
            "lists.check_off": self._check_off,
            "lists.read": self._read_list,
            "lists.count": self._count,
            "lists.clear": self._clear,
            "lists.create": self._create,
            "lists.delete": self._delete,
            "lists.which": self._which,
        }

    def _words(self, name: str, items: list[str] | None = None) -> dict[str, Any]:
        assert self.settings is not None
        items = items or []
        return {
            "list": f"the {self.settings.said(name)}",
            "items": self.settings.replies.names(items),
            "is": "is" if _one(items) else "are",
            "was": "was" if _one(items) else "were",
        }

    def _say(self, key: str, name: str, items: list[str] | None = None, **more: Any) -> str:
        assert self.settings is not None
        return self.settings.replies.say(key, **{**self._words(name, items), **more})

    async def _no_list(self, name: str) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        known = {n for n, _ in await asyncio.to_thread(self.store.lists)} | set(
            self.settings.builtin
        )
        names = [f"the {self.settings.said(n)}" for n in sorted(known)]
        text = self.settings.replies.say(
            "no_list", list=self.settings.said(name), lists=self.settings.replies.names(names)
        )
        return self._reply(text, Status.ERROR, {"reason": "no_list"})

    # ------------------------------------------------------------------ changes

    async def _add(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        if not asked.items:
            return self._reply(self._say("no_items", name), Status.ERROR, {"reason": "no_items"})
        create = name in self.settings.builtin or self.settings.create_on_add
        changed = await asyncio.to_thread(self.store.add, name, list(asked.items), create)
        if changed is None:
            return await self._no_list(name)
        data = {"added": changed.done, "already": changed.already, "count": changed.remaining}
        if changed.full and not changed.done:
            text = self._say("too_many", name, count=changed.remaining)
            return self._reply(text, Status.ERROR, {**data, "reason": "full"})
        if not changed.done:
            return self._reply(self._say("already", name, changed.already), Status.OK, data)
        created = changed.created and name not in self.settings.builtin
        key = "added_new" if created else "added"
        if changed.already:
            already = self.settings.replies.names(changed.already)
            was = "was" if _one(changed.already) else "were"
            text = self._say("added_some", name, changed.done, already=already, was=was)
        else:
            text = self._say(key, name, changed.done)
        if changed.full:
            text += "; " + self._say("too_many", name, count=changed.remaining)
        return self._reply(text, Status.DONE, {**data, "created": created})

    async def _taken(self, name: str, asked: ListRequest, check: bool) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        if not asked.items:
            return self._reply(self._say("no_items", name), Status.ERROR, {"reason": "no_items"})
        take = self.store.check_off if check else self.store.remove
        changed = await asyncio.to_thread(take, name, list(asked.items))
        if changed is None:
            if name not in self.settings.builtin:
                return await self._no_list(name)
            changed = Changed(missing=list(asked.items))
        key = "checked" if check else "removed"
        data = {key: changed.done, "missing": changed.missing, "count": changed.remaining}
        if not changed.done:
            return self._reply(self._say("missing", name, changed.missing), Status.OK, data)
        text = self._say(key, name, changed.done)
        if changed.missing:
            missing = self.settings.replies.names(changed.missing)
            was = "was" if _one(changed.missing) else "were"
            text = self.settings.replies.say("partly", done=text, missing=missing, was=was)
        return self._reply(text, Status.DONE, data)

    async def _remove(self, name: str, asked: ListRequest) -> PartAnswer:
        return await self._taken(name, asked, check=False)

    async def _check_off(self, name: str, asked: ListRequest) -> PartAnswer:
        return await self._taken(name, asked, check=True)

    async def _clear(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        count = await asyncio.to_thread(self.store.clear, name)
        if count is None and name not in self.settings.builtin:
            return await self._no_list(name)
        if not count:
            return self._reply(self._say("cleared_empty", name), Status.OK, {"cleared": 0})
        text = self._say("cleared", name, count=self.settings.replies.count(count))
        return self._reply(text, Status.DONE, {"cleared": count, "count": 0})

    async def _create(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        made = await asyncio.to_thread(self.store.create, name)
        if not made:
            return self._reply(self._say("exists", name), Status.OK, {"created": False})
        return self._reply(self._say("created", name), Status.DONE, {"created": True})

    async def _delete(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        if name in self.settings.builtin:
            return self._reply(self._say("builtin", name), Status.DECLINED, {"reason": "builtin"})
        count = await asyncio.to_thread(self.store.delete, name)
        if count is None:
            return await self._no_list(name)
        text = self._say("deleted", name, count=self.settings.replies.count(count))
        return self._reply(text, Status.DONE, {"deleted": True, "count": count})

    # ------------------------------------------------------------------ questions

    async def _items(self, name: str) -> list[str] | None:
        assert self.settings is not None and self.store is not None
        items = await asyncio.to_thread(self.store.items, name)
        if items is None and name in self.settings.builtin:
            return []
        return items

    async def _read_list(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None
        items = await self._items(name)
        if items is None:
            return await self._no_list(name)
        data: dict[str, Any] = {"items": items, "count": len(items)}
        if asked.items:  # "is milk on the shopping list"
            keys = {item_key(i) for i in items}
            here = [i for i in asked.items if item_key(i) in keys]
            missing = [i for i in asked.items if i not in here]
            data.update(present=here, absent=missing)
            if missing:
                return self._reply(self._say("not_on_list", name, missing), Status.OK, data)
            return self._reply(self._say("on_list", name, here), Status.OK, data)
        if not items:
            return self._reply(self._say("empty", name), Status.OK, data)
        key = "read_one" if len(items) == 1 else "read"
        text = self._say(key, name, items, count=self.settings.replies.count(len(items)))
        return self._reply(text, Status.OK, data)

    async def _count(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None
        items = await self._items(name)
        if items is None:
            return await self._no_list(name)
        data = {"count": len(items)}
        if not items:
            return self._reply(self._say("count_zero", name), Status.OK, data)
        text = self._say("count", name, count=self.settings.replies.count(len(items)))
        return self._reply(text, Status.OK, data)

    async def _which(self, name: str, asked: ListRequest) -> PartAnswer:
        assert self.settings is not None and self.store is not None
        stored = dict(await asyncio.to_thread(self.store.lists))
        every = {**{n: 0 for n in self.settings.builtin}, **stored}
        replies = self.settings.replies
        shown = [f"the {self.settings.said(n)} ({replies.count(c)})" for n, c in every.items()]
        text = replies.say(
            "which", count=replies.count(len(every), "lists_word"), lists=replies.names(shown)
        )
        return self._reply(text, Status.OK, {"lists": every})

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """ "if milk is on the shopping list": true when every item named is on it; with
        no items, true when the list has anything on it."""
        checked = Part(part.text, "lists.read", SOURCE, dict(part.slots))
        answer = await self.answer(checked, request)
        if answer.status is not Status.OK:
            return Evaluation(Truth.UNKNOWN, answer.text, answer.data)
        if "absent" in answer.data:
            truth = not answer.data["absent"]
        else:
            truth = bool(answer.data.get("count"))
        return Evaluation(Truth.TRUE if truth else Truth.FALSE, answer.text, answer.data)

    async def diagnose(self) -> list[Finding]:
        from mnemolis.sources.lists.doctor import diagnose

        return await diagnose(self)


def _one(items: list[str]) -> bool:
    """One thing, said in the singular ("milk is", but "eggs are")."""
    return len(items) == 1 and item_key(items[0]) == " ".join(items[0].lower().split())
