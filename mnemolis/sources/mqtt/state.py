"""The last known state of every device, fed from retained and live messages.

Messages arrive on paho's network thread; answers are computed on the asyncio
loop. The cache is guarded by one lock, and a command waits for its echo with
a `StateWatch`: registered before the command is published (so a fast echo
cannot be missed), checked against every later update on the network thread,
and resolved on the loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]


@dataclass
class DeviceState:
    """What one device last reported."""

    values: dict[str, Any] = field(default_factory=dict)
    updated_at: float | None = None  # wall clock of the last reading (the device's, if it says)
    availability: dict[str, bool] = field(default_factory=dict)  # per availability topic
    availability_mode: str = "all"
    availability_at: float | None = None
    last_availability: bool | None = None
    seq: int = 0  # how many readings so far

    @property
    def available(self) -> bool | None:
        """False when the device (or its bridge) said it is offline; None when nobody said."""
        known = list(self.availability.values())
        if not known:
            return None
        if self.availability_mode == "any":
            return any(known)
        if self.availability_mode == "latest":
            return self.last_availability
        return all(known)

    def age(self, now: float | None = None) -> float | None:
        if self.updated_at is None:
            return None
        return max(0.0, (now if now is not None else time.time()) - self.updated_at)


class StateWatch:
    """Waits, on the asyncio loop, for a state update that satisfies a predicate."""

    def __init__(
        self,
        cache: StateCache,
        device_id: str,
        predicate: Predicate,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.cache = cache
        self.device_id = device_id
        self.predicate = predicate
        self.loop = loop
        self.future: asyncio.Future[DeviceState] = loop.create_future()

    def _offer(self, state: DeviceState) -> None:
        """Called on the thread that applied the update."""
        try:
            matched = self.predicate(state.values)
        except (TypeError, ValueError, KeyError):
            matched = False
        if matched:
            self.loop.call_soon_threadsafe(self._resolve, state)

    def _resolve(self, state: DeviceState) -> None:
        if not self.future.done():
            self.future.set_result(state)

    async def wait(self, timeout_s: float) -> DeviceState | None:
        """The matching state, or None when the deadline passed first."""
        try:
            return await asyncio.wait_for(asyncio.shield(self.future), max(0.0, timeout_s))
        except TimeoutError:
            return None
        finally:
            self.cancel()

    def cancel(self) -> None:
        self.cache._unwatch(self)


class StateCache:
    """Thread-safe map from device id to `DeviceState`."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, DeviceState] = {}
        self._watches: dict[str, list[StateWatch]] = {}
        self.clock = clock
        self.updates = 0

    def apply(self, device_id: str, values: dict[str, Any], at: float | None = None) -> None:
        """Merge a reading (several topics may each carry part of a device's state)."""
        now = self.clock()
        with self._lock:
            state = self._states.setdefault(device_id, DeviceState())
            state.values.update(values)
            state.updated_at = min(at, now) if at is not None else now
            state.seq += 1
            self.updates += 1
            watches = list(self._watches.get(device_id, ()))
            snapshot = replace(state, values=dict(state.values)) if watches else state
        for watch in watches:
            watch._offer(snapshot)

    def set_availability(self, device_id: str, topic: str, available: bool, mode: str) -> None:
        with self._lock:
            state = self._states.setdefault(device_id, DeviceState())
            state.availability[topic] = available
            state.availability_mode = mode
            state.availability_at = self.clock()
            state.last_availability = available

    def get(self, device_id: str) -> DeviceState | None:
        """A copy, so the caller may read it while messages keep arriving."""
        with self._lock:
            state = self._states.get(device_id)
            if state is None:
                return None
            return replace(state, values=dict(state.values), availability=dict(state.availability))

    def forget(self, device_id: str) -> None:
        with self._lock:
            self._states.pop(device_id, None)

    def watch(
        self, device_id: str, predicate: Predicate, loop: asyncio.AbstractEventLoop
    ) -> StateWatch:
        watch = StateWatch(self, device_id, predicate, loop)
        with self._lock:
            self._watches.setdefault(device_id, []).append(watch)
        return watch

    def follow(
        self, device_ids: list[str], changed: Callable[[], None], loop: asyncio.AbstractEventLoop
    ) -> Callable[[], None]:
        """Call ``changed`` on ``loop`` after every update of these devices (watches whose
        predicate passes each update on and is never true); returns the way to stop."""

        def offer(_values: dict[str, Any]) -> bool:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
                loop.call_soon_threadsafe(changed)
            return False

        watches = [self.watch(device_id, offer, loop) for device_id in device_ids]

        def stop() -> None:
            for one in watches:
                one.cancel()

        return stop

    def _unwatch(self, watch: StateWatch) -> None:
        with self._lock:
            watches = self._watches.get(watch.device_id)
            if watches and watch in watches:
                watches.remove(watch)
                if not watches:
                    del self._watches[watch.device_id]


@dataclass
class DiscoveryReport:
    """What a one-shot caller learned while waiting for retained messages."""

    connected: bool
    complete: bool  # every retained config and state arrived before the deadline
    devices: int
    discovered: int
    ms: float
    refused: int = 0
