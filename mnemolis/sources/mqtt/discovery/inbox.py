"""Announcements read on their own thread, never on the one that carries device traffic.

A discovery config may carry templates that take a while to compile, and
zigbee2mqtt's device list may be megabytes of JSON. paho delivers every
message on one thread; if that thread parsed them, a flood of heavy configs
would hold up every state echo and command confirmation behind it. So the
paho thread only drops each announcement here, and one worker thread parses
them in order of arrival. Only the latest payload per topic is kept (a
retained config re-sent replaces the one waiting), and what waits is
bounded in topics and bytes: beyond that a message is refused with a
warning, and a retained one comes back on the next connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

log = logging.getLogger(__name__)

PENDING_TOPICS = 20_000
PENDING_BYTES = 32 * 2**20


class Inbox:
    """Topic -> latest payload, handled one at a time by a worker thread."""

    def __init__(
        self,
        handle: Callable[[str, bytes], None],
        topics: int = PENDING_TOPICS,
        size: int = PENDING_BYTES,
    ) -> None:
        self.handle = handle
        self.max_topics = topics
        self.max_bytes = size
        self.refused = 0  # messages turned away because the inbox was full
        self._pending: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._busy = False
        self._closed = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def put(self, topic: str, payload: bytes) -> bool:
        """Any thread: queue one announcement; False when it was refused (full or closed)."""
        with self._changed:
            if self._closed:
                return False
            old = self._pending.get(topic)
            topics = len(self._pending) + (0 if old is not None else 1)
            size = self._bytes - (len(old) if old is not None else 0) + len(payload)
            if topics > self.max_topics or size > self.max_bytes:
                self.refused += 1
                if self.refused == 1 or self.refused % 1000 == 0:
                    log.warning("discovery: %d announcements refused: too many wait", self.refused)
                return False
            self._pending.pop(topic, None)  # a newer payload goes to the back of the line
            self._pending[topic] = payload
            self._bytes = size
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="mnemolis-discovery", daemon=True
                )
                self._thread.start()
            self._changed.notify_all()
            return True

    def wait_idle(self, timeout_s: float) -> bool:
        """Block until nothing waits and nothing is being handled; False on time-out."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while self._pending or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._changed.wait(left)
            return True

    @property
    def waiting(self) -> int:
        with self._changed:
            return len(self._pending) + (1 if self._busy else 0)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._pending.clear()
            self._bytes = 0
            self._changed.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    def _work(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                topic, payload = self._pending.popitem(last=False)
                self._bytes -= len(payload)
                self._busy = True
            try:
                self.handle(topic, payload)
            except Exception:  # one bad announcement must not stop the others
                log.exception("discovery: the announcement on %s could not be read", topic[:120])
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()
