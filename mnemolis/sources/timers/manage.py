"""Which kept item a request means, and cancelling, changing, pausing and listing them.

The slots narrow the live items (kind, name, length, area); "cancel that" or
"add two minutes" with nothing named is the one this conversation set last;
among several, the conversation's own, else the answer asks which.
"""

from __future__ import annotations

from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Request, Status
from mnemolis.sources.timers.answering import Answering, positive_number
from mnemolis.sources.timers.store import Item


class Managing(Answering):
    """The answers about items already kept."""

    # ------------------------------------------------------------------ which one

    def select(
        self, part: Part, kinds: tuple[str, ...] | None, by_length: bool = True
    ) -> list[Item]:
        slots = part.slots
        kind, name, room = slots.get("kind"), slots.get("timer_name"), slots.get("room")
        length = positive_number(slots.get("duration")) if by_length else None
        pool = [
            i
            for i in self.source.items.values()
            if (kind is None or i.kind == kind) and (kinds is None or i.kind in kinds)
        ]
        if isinstance(name, str):
            pool = [i for i in pool if name in (i.name or "") or name in i.label]
        if length is not None:
            pool = [
                i for i in pool if i.duration_s is not None and round(i.duration_s) == round(length)
            ]
        if isinstance(room, str):
            pool = [i for i in pool if i.origin.room == room]
        return sorted(pool, key=lambda i: i.created_at)

    def pick(
        self, pool: list[Item], part: Part, request: Request, by_length: bool = True
    ) -> list[Item] | None:
        """The items meant; None when several fit and nothing says which."""
        if part.slots.get("every") or len(pool) <= 1:
            return pool
        mine = [i for i in pool if i.session == request.session]
        named = ("kind", "timer_name", "room", *(("duration",) if by_length else ()))
        if not any(part.slots.get(k) for k in named):  # "cancel that": the last one set here
            return [(mine or pool)[-1]]
        return mine if len(mine) == 1 else None

    def nothing(self, part: Part, default: str = "any") -> PartAnswer:
        kind = part.slots.get("kind") if isinstance(part.slots.get("kind"), str) else default
        kinds = self.source.speaker.kind(str(kind), many=True)
        name = part.slots.get("timer_name")
        if isinstance(name, str):
            return self.reply("nothing_named", Status.OK, {"found": 0}, kinds=kinds, name=name)
        return self.reply("nothing", Status.OK, {"found": 0}, kinds=kinds)

    def which(self, pool: list[Item]) -> PartAnswer:
        now = self.now()
        data = {
            "waiting_for": "choice",
            "options": [self.source.describe.what(i, now) for i in pool],
        }
        return self.reply(
            "which",
            Status.NEEDS_CONFIRMATION,
            data,
            count=self.source.describe.count(pool),
            what=self.source.describe.listing(pool, now),
        )

    def chosen(
        self, part: Part, request: Request, kinds: tuple[str, ...] | None, by_length: bool = True
    ) -> list[Item] | PartAnswer:
        pool = self.select(part, kinds, by_length)
        if not pool:
            return self.nothing(part, kinds[0] if kinds and len(kinds) == 1 else "any")
        picked = self.pick(pool, part, request, by_length)
        return self.which(pool) if picked is None else picked

    # ------------------------------------------------------------------ changing

    async def cancel(self, part: Part, request: Request) -> PartAnswer:
        chosen = self.chosen(part, request, None)
        if isinstance(chosen, PartAnswer):
            return chosen
        now = self.now()
        said = self.source.describe.listing(chosen, now) if len(chosen) > 1 else ""
        what = [self.source.describe.what(i, now) for i in chosen]
        for item in chosen:
            if self.source.end(item, "cancelled"):
                self.source.lifecycle(item, "cancelled")
        data = {"cancelled": [i.id for i in chosen]}
        if len(chosen) > 1:
            return self.reply(
                "cancelled_all",
                Status.DONE,
                data,
                count=self.source.describe.count(chosen),
                what=said,
            )
        return self.reply("cancelled", Status.DONE, data, what=what[0])

    async def add(self, part: Part, request: Request) -> PartAnswer:
        return self._change(part, request, +1)

    async def subtract(self, part: Part, request: Request) -> PartAnswer:
        return self._change(part, request, -1)

    def _change(self, part: Part, request: Request, sign: int) -> PartAnswer:
        settings = self.source.settings
        assert settings is not None
        chosen = self.chosen(part, request, ("timer", "alarm", "reminder"), by_length=False)
        if isinstance(chosen, PartAnswer):
            return chosen
        seconds = positive_number(part.slots.get("duration")) or settings.snooze_s
        now = self.now()
        for item in chosen:
            if item.state == "paused" and item.remaining_s is not None:
                item.remaining_s = max(0.0, item.remaining_s + sign * seconds)
            elif item.due_at is not None:
                item.due_at = max(now, item.due_at + sign * seconds)
                item.follows_clock = False  # "snooze": from now on it is a duration
            self.save(item)
            self.source.lifecycle(
                item,
                "updated",
                is_active=item.state == "active",
                total_seconds=round(self.source.describe.left(item, now)),
            )
        item = chosen[-1]
        key = "added" if sign > 0 else "subtracted"
        left = self.source.speaker.duration(self.source.describe.left(item, now))
        return self.reply(
            key,
            Status.DONE,
            self.data(item),
            left=left,
            duration=self.source.speaker.duration(seconds),
            what=self.source.describe.what(item, now),
        )

    async def pause(self, part: Part, request: Request) -> PartAnswer:
        return self._run_or_stop(part, request, run=False)

    async def resume(self, part: Part, request: Request) -> PartAnswer:
        return self._run_or_stop(part, request, run=True)

    def _run_or_stop(self, part: Part, request: Request, run: bool) -> PartAnswer:
        """Pause (``run=False``) or resume timers: a paused one keeps its time left."""
        chosen = self.chosen(part, request, ("timer",))
        if isinstance(chosen, PartAnswer):
            return chosen
        now = self.now()
        item = chosen[-1]
        what = self.source.describe.what(item, now)
        was = "paused" if run else "active"
        for one in chosen:
            if one.state != was:
                if len(chosen) == 1:
                    key = "not_paused" if run else "already_paused"
                    return self.reply(key, Status.OK, self.data(one), what=what)
                continue
            left = self.source.describe.left(one, now)
            one.state = "active" if run else "paused"
            one.due_at, one.remaining_s = (now + left, None) if run else (None, left)
            self.save(one)
            self.source.lifecycle(one, "updated", is_active=run, total_seconds=round(left))
        left_s = self.source.speaker.duration(self.source.describe.left(item, now))
        key = "resumed" if run else "paused"
        return self.reply(key, Status.DONE, self.data(item), what=what, left=left_s)

    # ------------------------------------------------------------------ asking

    async def status(self, part: Part, request: Request) -> PartAnswer:
        pool = self.select(part, None)
        if not pool:
            return self.nothing(part)
        now = self.now()
        describe = self.source.describe
        data = {
            "items": [{**self.data(i), "left_s": round(describe.left(i, now), 1)} for i in pool]
        }
        if len(pool) > 1:
            return self.reply(
                "status_many",
                Status.OK,
                data,
                count=describe.count(pool),
                what=describe.listing(pool, now),
            )
        item = pool[0]
        left = self.source.speaker.duration(describe.left(item, now))
        what, time = describe.what(item, now), describe.time(item, now)
        key = {
            "alarm": "status_alarm",
            "reminder": "status_reminder",
            "scheduled": "status_plan",
            "watch": "status_watch",
        }.get(item.kind, "status_paused" if item.state == "paused" else "status_one")
        return self.reply(
            key,
            Status.OK,
            data,
            what=what,
            left=left,
            time=time,
            message=item.label,
            request=item.label,
            condition=item.label,
        )
