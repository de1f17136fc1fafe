"""The timers source: keeps timers, alarms, reminders, plans and watches, and speaks
when they are due.

Setting, changing and asking about them are answers like any other
(`requests.Requests`); what is due is fired from here: a timer, an alarm or a
reminder becomes an `Announcement` back to its requester; a plan (a scheduled
command) is checked again (the device still known and still allowed) and run
through the assistant's executor with the yes given when it was set; a watch
("tell me when the garage door opens") waits on the source that knows the
device (`WatchesDevices`) and fires once, or says it stopped waiting after the
limit. Every item lives in SQLite first (`store`), so a restart loses none:
one that came due meanwhile is said late, with how late, and a plan that came
due meanwhile is reported, not run.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from mnemolis.config import Config, ConfigError
from mnemolis.core.announce import Announcement, Announcer, TimerNotice
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.plan import Conditional, Part, Step
from mnemolis.sources.base import (
    Evaluation,
    Finding,
    PartAnswer,
    Request,
    RunParts,
    Source,
    Status,
    Truth,
    WatchesDevices,
)
from mnemolis.sources.timers.describe import Describer
from mnemolis.sources.timers.scheduler import Scheduler
from mnemolis.sources.timers.settings import TimersSettings
from mnemolis.sources.timers.store import Item, Store
from mnemolis.sources.timers.times import Speaker

log = logging.getLogger(__name__)

SOURCE = "timers"
#: The intents of the parts `keep` makes (not in the INTENT_MAP: nobody says them).
PLAN_INTENT = "timers.plan"
WATCH_INTENT = "timers.watch"
#: What each kind of item is announced as (`announce.KINDS`).
ANNOUNCED_AS = {
    "timer": "timer",
    "alarm": "alarm",
    "reminder": "reminder",
    "scheduled": "scheduled",
    "watch": "notify",
}


class TimersSource:
    """Implements `Source`, `KeepsForLater` and `Diagnosable`."""

    name = SOURCE

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry,
        state_dir: Path,
        announcer: Announcer | None = None,
        peers: dict[str, Source] | None = None,
        one_shot: bool = False,
        now: Callable[[], float] = time.time,
    ) -> None:
        from mnemolis.sources.timers.requests import Requests

        self.config = config
        self.registry = registry
        self.announcer = announcer or Announcer()
        self.peers = peers if peers is not None else {}
        self.one_shot = one_shot
        self.now = now
        self.problem: str | None = None
        self.settings: TimersSettings | None = None
        try:
            self.settings = TimersSettings.from_config(config, state_dir)
        except ConfigError as exc:
            self.problem = str(exc)
            log.error("the timers source is misconfigured: %s", exc)
        self.store: Store | None = None
        self.items: dict[str, Item] = {}  # the live ones, by id
        self.scheduler = Scheduler(self._due, self._clock_moved, wall=now)
        self.runner: RunParts | None = None
        self.requests = Requests(self)
        self._watching: dict[str, Callable[[], None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsaid: list[Announcement] = []
        self._started = False
        if self.settings is not None:
            replies = self.settings.replies
            self.speaker = Speaker(replies, self.settings.timezone, self.settings.twelve_hour)
            self.describe = Describer(replies, self.speaker)

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Open the store, take up every live item, start the scheduler (not for a
        one-shot request: nothing could be said later)."""
        if self.settings is None or self._started:
            return
        self._started = True
        try:
            self.store = Store(self.settings.database)
            self.store.forget_older_than(self.now() - self.settings.forget_after_s)
            items = self.store.live()
        except Exception as exc:  # sqlite3.Error, OSError: answered as a sentence later
            self.problem = f"{self.settings.database}: {exc}"
            log.error("the timers source cannot open its store: %s", self.problem)
            self.store = None
            return
        if self.one_shot:
            self.items = {i.id: i for i in items}
            return
        for item in items:
            self._follow_zone(item)
            self.items[item.id] = item
            self.schedule(item)
        self.scheduler.start()
        if items:
            log.info("the timers source keeps %d items", len(items))

    def run_with(self, runner: RunParts) -> None:
        """The assistant is ready: plans may run, and watches start waiting."""
        self.runner = runner
        if self.one_shot:
            return
        for item in list(self.items.values()):
            if item.kind == "watch" and item.id not in self._watching:
                self._spawn(self._watch_again(item))

    async def close(self) -> None:
        for cancel in self._watching.values():
            cancel()
        self._watching.clear()
        await self.scheduler.close()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5.0)
        if self.store is not None:
            self.store.close()
            self.store = None

    async def diagnose(self) -> list[Finding]:
        from mnemolis.sources.timers.doctor import diagnose

        return [diagnose(self)]

    def _spawn(self, job: Any) -> None:
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ answers

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        try:
            return await self.requests.answer(part, request)
        except Exception as exc:  # the executor must get a sentence, never a traceback
            log.exception("the timers source failed on %r", part.text[:120])
            return PartAnswer(f"the timers source failed: {exc}", Status.ERROR, SOURCE)

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return Evaluation(Truth.UNKNOWN, "timers are not conditions I can check")

    def keep(self, step: Step) -> Part:
        """A plan ("... in 5 minutes") or a watch ("when ..."), as a part of this source."""
        if isinstance(step, Conditional):
            text = " ".join(p.text for p in (step.condition, *step.then))
            return Part(text, WATCH_INTENT, SOURCE, {"watch": step.to_dict()}, 1.0)
        return Part(step.text, PLAN_INTENT, SOURCE, {"plan": step.to_dict()}, 1.0)

    # ------------------------------------------------------------------ keeping

    def schedule(self, item: Item, fire_at: float | None = None) -> None:
        if item.state == "active" and item.due_at is not None:
            self.scheduler.add(item.id, item.due_at, fire_at)

    def keep_item(self, item: Item) -> None:
        """Store a new item first, then wait for it."""
        assert self.store is not None
        self.store.add(item)
        self.items[item.id] = item
        self.schedule(item)

    def end(self, item: Item, state: str) -> bool:
        """Finish an item (done, cancelled, missed, expired), once across processes."""
        self.items.pop(item.id, None)
        cancel = self._watching.pop(item.id, None)
        if cancel is not None:
            cancel()
        return self.store is not None and self.store.claim(item, state, self.now())

    def lifecycle(self, item: Item, event: str, **data: Any) -> None:
        """A silent notice for front-ends that show timers (Wyoming's timer events:
        started, updated, cancelled), never words: the timer that rings is the one
        announcement a timer makes."""
        if item.kind != "timer":
            return
        notice = TimerNotice(event, item.id, item.origin, item.due_at or 0.0, data)
        self.announcer.notify(notice)

    def _follow_zone(self, item: Item) -> None:
        """An item set for a clock time in another zone keeps its wall-clock time."""
        settings = self.settings
        assert settings is not None
        if not (item.follows_clock and item.local_time and item.zone != settings.zone_name):
            return
        local = datetime.fromisoformat(item.local_time).replace(tzinfo=settings.timezone)
        log.warning(
            "%s %s was set for %s in %s; now %s in %s",
            item.kind,
            item.id,
            item.local_time,
            item.zone,
            item.local_time,
            settings.zone_name,
        )
        item.due_at, item.zone = local.timestamp(), settings.zone_name
        if self.store is not None:
            self.store.save(item)

    def _clock_moved(self, jump: float) -> None:
        """The wall clock jumped: a timer keeps its real length, an alarm its clock time."""
        self.scheduler.clear()
        for item in self.items.values():
            if not item.follows_clock and item.due_at is not None and item.kind != "watch":
                item.due_at += jump
                if self.store is not None:
                    self.store.save(item)
            self.schedule(item)

    # ------------------------------------------------------------------ firing

    def _due(self, due: list[tuple[str, float]]) -> None:
        ringing: list[Item] = []
        for item_id, due_at in due:
            item = self.items.get(item_id)
            if item is None or item.state != "active" or item.due_at != due_at:
                continue  # cancelled, paused, moved: an old entry of the heap
            if item.kind == "watch":
                self._spawn(self._expire(item))
            elif item.kind == "scheduled":
                self._spawn(self._run_plan(item))
            else:
                ringing.append(item)
        if ringing:
            self._ring(ringing)

    def say(self, item: Item, text: str, **data: Any) -> int:
        announcement = Announcement(
            text,
            ANNOUNCED_AS[item.kind],
            item.id,
            item.origin,
            item.due_at or 0.0,
            said_at=self.now(),
            data=data,
        )
        delivered = self.announcer.announce(announcement)
        if not delivered:
            self._unsaid.append(announcement)
            self._retry_unsaid()
        return delivered

    def _ring(self, items: list[Item]) -> None:
        """Timers, alarms, reminders: said, and done once someone heard them (a burst due
        at once is marked done in one transaction)."""
        settings = self.settings
        assert settings is not None and self.store is not None
        now = self.now()
        if not self.announcer.listening:  # nobody to hear them yet: keep them, try again
            for item in items:
                self.schedule(item, now + settings.retry_s)
            return
        for item in self.store.claim_many(items, "done", now):
            self.items.pop(item.id, None)
            text = self.requests.ring_text(item, now)
            late = now - (item.due_at or now)
            if late > settings.late_after_s:
                text = settings.replies.say("late", said=text, late=self.speaker.duration(late))
            self.say(item, text, event="finished")

    async def _run_plan(self, item: Item) -> None:
        """A scheduled command: reported, not run, when it is long overdue; checked again,
        then run with the yes given when it was set."""
        settings = self.settings
        assert settings is not None
        now = self.now()
        part = Part.from_dict(item.payload.get("part") or {})
        clock = self.speaker.clock(self.describe.moment(item.due_at or now))
        late = now - (item.due_at or now)
        if late > settings.missed_after_s:
            if self.end(item, "missed"):
                self.say(
                    item, settings.replies.say("scheduled_missed", clock=clock, request=item.label)
                )
            return
        if not self.end(item, "done"):
            return
        refused = self.requests.recheck(part, item.label, clock)
        if refused is not None:
            self.say(item, refused)
            return
        said = await self._run([replace(part, schedule=None)], item)
        self.say(item, settings.replies.say("scheduled_ran", clock=clock, said=said))

    async def _run(self, parts: list[Part], item: Item) -> str:
        if self.runner is None:
            return "I could not run it: nothing runs commands in this process"
        origin = replace(item.origin, session=item.session)
        answers = await self.runner(parts, origin, item.confirmed)
        return " ".join(a.text for a in answers)

    # ------------------------------------------------------------------ watches

    def peer_for(self, part: Part) -> Source | None:
        peer = self.peers.get(part.source or "")
        return peer if isinstance(peer, WatchesDevices) else None

    def start_watch(self, item: Item, condition: Part) -> None:
        peer = self.peer_for(condition)
        if peer is None or not isinstance(peer, WatchesDevices):
            return
        self._watching[item.id] = peer.watch(condition, lambda: self._spawn(self._check(item)))

    async def _watch_again(self, item: Item) -> None:
        """After a restart: wait again, and fire at once if it came true meanwhile."""
        step = Conditional.from_dict(item.payload["watch"])
        self.start_watch(item, step.condition)
        await self._check(item)

    async def _check(self, item: Item) -> None:
        if item.state != "active" or item.id not in self.items:
            return
        step = Conditional.from_dict(item.payload["watch"])
        peer = self.peer_for(step.condition)
        if peer is None:
            return
        found = await peer.evaluate(step.condition, Request(session=item.session))
        truth = found.truth
        if step.negate and truth is not Truth.UNKNOWN:
            truth = Truth.FALSE if truth is Truth.TRUE else Truth.TRUE
        if truth is not Truth.TRUE or not self.end(item, "done"):
            return
        settings = self.settings
        assert settings is not None
        said = found.text or step.condition.text
        if step.then:
            done = await self._run([replace(p, schedule=None) for p in step.then], item)
            self.say(item, settings.replies.say("watch_ran", said=said, done=done))
        else:
            self.say(item, settings.replies.say("watch_fired", said=said))

    async def _expire(self, item: Item) -> None:
        settings = self.settings
        assert settings is not None
        if self.end(item, "expired"):
            limit = self.speaker.duration(settings.watch_limit_s)
            self.say(item, settings.replies.say("watch_expired", condition=item.label, limit=limit))

    def _retry_unsaid(self) -> None:
        """Announcements nobody took (no front-end listening yet) are offered again."""
        if getattr(self, "_retrying", False) or self.settings is None:
            return
        self._retrying = True

        async def retry() -> None:
            assert self.settings is not None
            try:
                while self._unsaid:
                    await asyncio.sleep(self.settings.retry_s)
                    if self.announcer.listening:
                        waiting, self._unsaid = self._unsaid, []
                        for announcement in waiting:
                            if not self.announcer.announce(announcement):
                                self._unsaid.append(announcement)
            finally:
                self._retrying = False

        try:
            self._spawn(retry())
        except RuntimeError:  # no running loop (closing): nothing more can be said
            self._retrying = False
