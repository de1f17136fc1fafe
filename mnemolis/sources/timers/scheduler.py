"""One task on the event loop that wakes when the next item is due.

Items wait in a heap by the wall-clock second they are due; the task sleeps
until the first of them (never longer than `MAX_SLEEP_S`, so a change of the
system clock is noticed within that) and hands every due id to ``fire``. A
thousand timers cost one sleeping task, not a thousand.

The wall clock can jump (NTP after boot, a manual change). The scheduler
watches the difference between the wall clock and the monotonic clock; when it
moves by more than `JUMP_S`, it tells ``on_jump`` by how much, so a timer
("for 10 minutes") keeps its real length while an alarm ("at 7") keeps to
the wall clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

#: The longest sleep: a clock change is noticed within this long.
MAX_SLEEP_S = 2.0
#: A change of the wall clock against the monotonic one larger than this is a jump.
JUMP_S = 1.0

#: Called with every (item id, due at) whose time came, in one batch.
Fire = Callable[[list[tuple[str, float]]], None]


class Scheduler:
    """Wakes ``fire([(item_id, due_at), ...])`` when items are due: all that are due at
    once in one call, so a burst is stored in one transaction."""

    def __init__(
        self,
        fire: Fire,
        on_jump: Callable[[float], None],
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fire = fire
        self.on_jump = on_jump
        self.wall = wall
        self.monotonic = monotonic
        self._heap: list[tuple[float, int, str, float]] = []  # (fire at, seq, id, due at)
        self._seq = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._offset = wall() - monotonic()

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, item_id: str, due_at: float, fire_at: float | None = None) -> None:
        """Fire ``item_id`` at ``fire_at`` (default: when it is due)."""
        when = due_at if fire_at is None else fire_at
        self._seq += 1
        first = not self._heap or when < self._heap[0][0]
        heapq.heappush(self._heap, (when, self._seq, item_id, due_at))
        if first:
            self._wake.set()

    def clear(self) -> None:
        self._heap.clear()
        self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="timers-scheduler")

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            self._check_clock()
            now = self.wall()
            due: list[tuple[str, float]] = []
            while self._heap and self._heap[0][0] <= now:
                _when, _seq, item_id, due_at = heapq.heappop(self._heap)
                due.append((item_id, due_at))
            if due:
                try:
                    self.fire(due)
                except Exception:  # a broken batch must not stop the scheduler
                    log.exception("%d timers failed to fire", len(due))
            delay = MAX_SLEEP_S
            if self._heap:
                delay = min(delay, max(0.0, self._heap[0][0] - self.wall()))
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)

    def _check_clock(self) -> None:
        offset = self.wall() - self.monotonic()
        jump = offset - self._offset
        if abs(jump) > JUMP_S:
            self._offset = offset
            log.warning("the system clock moved by %+.1f s", jump)
            self.on_jump(jump)
