"""The timers source on its own: its SQLite file across restarts, lateness said
honestly, plans that came due while down, clock jumps, zones, limits, and which
item a request means."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.announce import Announcer, TimerNotice
from mnemolis.core.origin import Origin
from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Request, Status
from mnemolis.sources.timers.source import TimersSource
from mnemolis.sources.timers.store import Item, Store
from mnemolis.understand import Understander, registry_from_config
from tests.support_timers import Heard

Scenario = Callable[[TimersSource, Heard], Awaitable[None]]


def part(understander: Understander, text: str) -> Part:
    step = understander.understand(text).steps[0]
    assert isinstance(step, Part), text
    return step


class Clock:
    """Wall-clock seconds a test can move: the real clock plus a shift."""

    def __init__(self, shift: float = 0.0) -> None:
        self.shift = shift

    def __call__(self) -> float:
        return time.time() + self.shift


def source(
    config: Config,
    folder: Path,
    now: Callable[[], float] = time.time,
    listen: bool = True,
    one_shot: bool = False,
    **settings: Any,
) -> tuple[TimersSource, Heard]:
    announcer = Announcer()
    heard = Heard()
    if listen:
        heard.listen(announcer)
    timers = TimersSource(
        config, registry_from_config(config), folder, announcer, one_shot=one_shot, now=now
    )
    assert timers.settings is not None
    timers.settings = dataclasses.replace(timers.settings, **settings)
    return timers, heard


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())


async def ask(timers: TimersSource, u: Understander, text: str, session: str = "s") -> PartAnswer:
    return await timers.answer(
        part(u, text), Request(session=session, origin=Origin(session=session))
    )


class Runner:
    """What the assistant's executor would be handed: records the parts and answers done."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], bool]] = []

    async def __call__(
        self, parts: Sequence[Part], origin: Origin, confirmed: bool
    ) -> list[PartAnswer]:
        assert all(p.schedule is None for p in parts)  # run now, never handed back
        self.calls.append(([p.text for p in parts], confirmed))
        return [PartAnswer("Done: the porch light is off.", Status.DONE, "mqtt")]


# --------------------------------------------------------------------------- restarts


def test_a_timer_set_before_a_restart_still_rings(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        first, _ = source(config, tmp_path)
        await first.start()
        set_at = time.time()
        assert (await ask(first, understander, "set a timer for 1 second")).status is Status.DONE
        await first.close()
        second, heard = source(config, tmp_path)
        await second.start()
        at, said = await heard.next(timeout_s=5)
        assert said.text == "Your 1 second timer is done" and 0.9 <= at - set_at <= 1.6
        await second.close()

    run(scenario)


def test_a_timer_due_while_down_is_said_late_with_how_late(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        first, _ = source(config, tmp_path)
        await first.start()
        await ask(first, understander, "set a 1 minute pasta timer")
        await first.close()
        later, heard = source(config, tmp_path, now=Clock(shift=6 * 60))
        await later.start()
        _at, said = await heard.next(timeout_s=3)
        assert said.text == (
            "Your pasta timer is done (that was due 5 minutes ago; I could not say it sooner)"
        )
        assert 299 <= said.late_s <= 301
        await later.close()

    run(scenario)


def test_a_plan_due_while_down_is_reported_not_run(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        first, _ = source(config, tmp_path)
        await first.start()
        plan = first.keep(part(understander, "in 1 minute turn off the porch light"))
        answer = await first.answer(plan, Request(session="s"))
        assert answer.text == "I'll turn off the porch light in 1 minute"
        await first.close()
        later, heard = source(config, tmp_path, now=Clock(shift=10 * 60))
        runner = Runner()
        await later.start()
        later.run_with(runner)
        _at, said = await heard.next(timeout_s=3)
        assert said.text.startswith("I was not running at ")
        assert said.text.endswith(
            ", so I did not turn off the porch light; ask again if you still want it"
        )
        assert runner.calls == [] and later.items == {}
        await later.close()

    run(scenario)


def test_a_plan_runs_with_the_yes_given_when_it_was_set(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, heard = source(config, tmp_path)
        runner = Runner()
        await timers.start()
        timers.run_with(runner)
        kept = timers.keep(part(understander, "unlock the front door in 1 second"))
        asked = await timers.answer(kept, Request(session="s"))
        assert asked.status is Status.NEEDS_CONFIRMATION and timers.items == {}
        confirmed = await timers.answer(kept, Request(session="s", confirmed=True))
        assert confirmed.text == "I'll unlock the front door in 1 second"
        _at, said = await heard.next(timeout_s=5)
        assert runner.calls == [(["unlock the front door in 1 second"], True)]
        assert said.kind == "scheduled" and said.text.startswith("As you asked for ")
        await timers.close()

    run(scenario)


def test_nothing_is_lost_while_nobody_listens(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, heard = source(config, tmp_path, listen=False, retry_s=0.05)
        await timers.start()
        await ask(timers, understander, "set a timer for 1 second")
        await asyncio.sleep(1.5)
        assert len(timers.items) == 1  # due, but nobody heard it: still kept
        timers.announcer.subscribe(heard)
        _at, said = await heard.next(timeout_s=3)
        assert said.text == "Your 1 second timer is done" and timers.items == {}
        await timers.close()

    run(scenario)


def test_two_processes_on_one_file_say_an_item_once(config: Config, tmp_path: Path) -> None:
    one, two = Store(tmp_path / "t.sqlite3"), Store(tmp_path / "t.sqlite3")
    item = Item("timer", "s", Origin(), time.time())
    one.add(item)
    copy = two.get(item.id)
    assert copy is not None
    assert one.claim(item, "done", time.time()) is True
    assert two.claim(copy, "done", time.time()) is False
    assert two.live() == []


def test_finished_items_are_forgotten_after_a_while(config: Config, tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite3")
    old, live = Item("timer", "s", Origin(), 1.0), Item("alarm", "s", Origin(), time.time() + 60)
    store.add_many([old, live])
    store.claim(old, "done", 100.0)
    assert store.forget_older_than(200.0) == 1
    assert [i.id for i in store.live()] == [live.id]


# --------------------------------------------------------------------------- clocks and zones


def test_a_clock_jump_keeps_a_timer_s_length_and_an_alarm_s_time(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, _ = source(config, tmp_path)
        await timers.start()
        await ask(timers, understander, "set a timer for 10 minutes")
        await ask(timers, understander, "wake me at 7")
        before = {i.kind: i.due_at for i in timers.items.values()}
        timers._clock_moved(3600.0)  # the system clock was set an hour ahead
        after = {i.kind: i.due_at for i in timers.items.values()}
        assert after["timer"] == pytest.approx((before["timer"] or 0) + 3600)
        assert after["alarm"] == before["alarm"]
        assert timers.store is not None
        stored = {i.kind: i.due_at for i in timers.store.live()}
        assert stored == after
        await timers.close()

    run(scenario)


def test_an_alarm_keeps_its_wall_clock_time_when_the_zone_changes(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        berlin, _ = source(config, tmp_path)
        await berlin.start()
        await ask(berlin, understander, "set an alarm for 07:00 tomorrow")
        await berlin.close()
        moved = dataclasses.replace(
            config, sources={**config.sources, "timers": {"timezone": "America/New_York"}}
        )
        new_york, _ = source(moved, tmp_path)
        await new_york.start()
        (alarm,) = new_york.items.values()
        assert alarm.zone == "America/New_York"
        from datetime import datetime
        from zoneinfo import ZoneInfo

        local = datetime.fromtimestamp(alarm.due_at or 0, ZoneInfo("America/New_York"))
        assert (local.hour, local.minute) == (7, 0)
        await new_york.close()

    run(scenario)


# --------------------------------------------------------------------------- answers


def test_a_one_shot_request_is_told_timers_need_a_running_mnemolis(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, _ = source(config, tmp_path, one_shot=True)
        await timers.start()
        answer = await ask(timers, understander, "set a timer for 5 minutes")
        assert answer.text == (
            "Timers need Mnemolis to keep running: ask mnemolis serve or mnemolis chat"
        )
        assert answer.status is Status.DECLINED and timers.items == {}
        status = await ask(timers, understander, "what timers do i have")
        assert status.text == "You have no timers"
        await timers.close()

    run(scenario)


LIMITS = [
    ("set a timer for 9 days", "That is further ahead than I keep things (7 days)"),
    ("set a timer", 'For how long? Say for example "set a timer for 10 minutes"'),
    ("remind me to call mom", 'When? Say for example "wake me at 7" or "in 20 minutes"'),
]


@pytest.mark.parametrize(("text", "reply"), LIMITS)
def test_limits_and_missing_times_are_said(
    config: Config, understander: Understander, tmp_path: Path, text: str, reply: str
) -> None:
    async def scenario() -> None:
        timers, _ = source(config, tmp_path)
        await timers.start()
        assert (await ask(timers, understander, text)).text == reply
        assert timers.items == {}
        await timers.close()

    run(scenario)


def test_beyond_max_items_a_new_one_is_refused(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, _ = source(config, tmp_path, max_items=2)
        await timers.start()
        for _ in range(2):
            await ask(timers, understander, "set a timer for 5 minutes")
        third = await ask(timers, understander, "set a timer for 5 minutes")
        assert third.text == "I already keep 2 timers, alarms and plans; cancel some first"
        assert third.status is Status.DECLINED and len(timers.items) == 2
        await timers.close()

    run(scenario)


def test_which_timer_a_request_means(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, heard = source(config, tmp_path)
        await timers.start()
        await ask(timers, understander, "set a 10 minute pasta timer")
        await ask(timers, understander, "set a timer for 5 minutes")
        await ask(timers, understander, "set a timer for 20 minutes", session="other")
        which = await ask(timers, understander, "cancel the timer", session="third")
        assert which.status is Status.NEEDS_CONFIRMATION
        assert which.text.startswith("You have 3 timers: pasta timer (10 minutes left), ")
        pasta = await ask(timers, understander, "how much time is left on the pasta timer")
        assert pasta.text == "The pasta timer has 10 minutes left"
        paused = await ask(timers, understander, "pause the pasta timer")
        assert paused.text == "Paused the pasta timer with 10 minutes left"
        await asyncio.sleep(0.3)
        resumed = await ask(timers, understander, "resume the pasta timer")
        assert resumed.text == "Resumed the pasta timer: 10 minutes left"
        twenty = await ask(timers, understander, "how long is left on the 20 minute timer")
        assert twenty.text.startswith("The 20 minute timer has ")  # its length names it
        gone = await ask(timers, understander, "cancel the 20 minute timer")
        assert gone.text == "Cancelled the 20 minute timer"
        mine = await ask(timers, understander, "cancel the timer")  # two left, one of them ...
        assert mine.status is Status.NEEDS_CONFIRMATION  # ... both set in this conversation
        everything = await ask(timers, understander, "cancel all my timers")
        assert everything.text == (
            "Cancelled 2 timers: pasta timer (10 minutes left) and 5 minute timer (5 minutes left)"
        )
        none = await ask(timers, understander, "cancel the pasta timer")
        assert none.text == "You have no timers called pasta"
        events = heard.events()
        assert events[:3] == ["started", "started", "started"]
        assert events.count("cancelled") == 3 and events.count("updated") == 2
        assert heard.spoken() == []
        await timers.close()

    run(scenario)


def test_lifecycle_notices_carry_wyoming_s_timer_fields(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    """The names of wyoming.timer's TimerStarted and TimerUpdated (wyoming 1.5)."""

    async def scenario() -> None:
        timers, heard = source(config, tmp_path)
        await timers.start()
        await ask(timers, understander, "set a timer for an hour and a half called bread")
        await ask(timers, understander, "pause the bread timer")
        started, updated = (a for _t, a in heard.said)
        assert isinstance(started, TimerNotice) and isinstance(updated, TimerNotice)
        assert (started.event, updated.event) == ("started", "updated")
        assert started.data == {
            "total_seconds": 5400,
            "name": "bread",
            "start_hours": 1,
            "start_minutes": 30,
            "start_seconds": 0,
        }
        assert updated.data["is_active"] is False
        assert 5398 <= updated.data["total_seconds"] <= 5400
        await timers.close()

    run(scenario)


def test_a_broken_state_directory_is_a_sentence_not_a_crash(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        blocker = tmp_path / "file"
        blocker.write_text("not a directory")
        timers, _ = source(config, blocker)
        await timers.start()
        answer = await ask(timers, understander, "set a timer for 5 minutes")
        assert answer.status is Status.ERROR
        assert answer.text.startswith("I can't keep timers right now: ")
        findings = await timers.diagnose()
        assert findings[0].level == "broken"
        await timers.close()

    run(scenario)


def test_the_store_is_plain_sqlite(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    async def scenario() -> None:
        timers, _ = source(config, tmp_path)
        await timers.start()
        await ask(timers, understander, "remind me to call mom tomorrow at 5 pm")
        await timers.close()

    run(scenario)
    rows = (
        sqlite3.connect(tmp_path / "timers.sqlite3")
        .execute("SELECT kind, label, state, origin FROM items")
        .fetchall()
    )
    assert [(k, lbl, st, json.loads(o)["session"]) for k, lbl, st, o in rows] == [
        ("reminder", "call mom", "active", "s")
    ]
