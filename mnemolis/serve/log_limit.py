"""Repeated log lines, rate-limited: a flood of one error must not flood the journal.

Under a connection flood the same line ("refused a connection", asyncio's
"socket.accept() out of system resource" with its traceback) can come tens
of thousands of times a minute. `RepeatFilter` lets the first `burst` copies
of an identical line through in each window, counts the rest, and says how
many it held back on the first copy let through once the window is over.
Lines that differ (one per request, each with its own query) all pass.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

KEY_CHARS = 300


@dataclass
class _Seen:
    since: float
    count: int = 0
    held: int = 0


class RepeatFilter(logging.Filter):
    """At most ``burst`` identical lines per ``window_s``; the rest counted, then said."""

    def __init__(
        self,
        burst: int = 5,
        window_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 1024,
    ) -> None:
        super().__init__()
        self.burst = burst
        self.window_s = window_s
        self.clock = clock
        self.max_keys = max_keys
        self._seen: OrderedDict[tuple[str, int, str], _Seen] = OrderedDict()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        key = (record.name, record.levelno, text[:KEY_CHARS])
        now = self.clock()
        with self._lock:
            seen = self._seen.get(key)
            held = 0
            if seen is None or now - seen.since >= self.window_s:
                held = seen.held if seen is not None else 0
                seen = _Seen(now)
                self._seen[key] = seen
                while len(self._seen) > self.max_keys:
                    self._seen.popitem(last=False)
            self._seen.move_to_end(key)
            seen.count += 1
            if seen.count > self.burst:
                seen.held += 1
                return False
        if held:
            record.msg = f"{text} (and {held} more like it in the {self.window_s:g} s before)"
            record.args = ()
        return True


def install(logger: logging.Logger | None = None, **options: float) -> RepeatFilter:
    """Put one `RepeatFilter` on every handler of ``logger`` (the root logger)."""
    target = logger or logging.getLogger()
    repeat = RepeatFilter(**options)  # type: ignore[arg-type]
    for handler in target.handlers:
        handler.addFilter(repeat)
    return repeat
