"""Speaking first: announcements, and the hub that hands them to whoever listens.

A timer that rings, an alarm, a reminder, a "tell me when" that came true or
a scheduled command that ran becomes an `Announcement`, and so does a
broadcast ("tell everyone dinner is ready"). Its producer (the timers or the
broadcast source) calls `Announcer.announce`; every front-end that can speak
(the chat, MQTT ``mnemolis/say``, Hermes ``tts/say``, HTTP ``/events``,
Wyoming) subscribes and decides, from the announcement's `Origin`, whether
it is the way back to the requester.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.origin import Origin

log = logging.getLogger(__name__)

KINDS = ("timer", "alarm", "reminder", "notify", "scheduled", "broadcast")

Listener = Callable[["Announcement"], None]


@dataclass(frozen=True)
class Announcement:
    """One thing said without being asked, and who it is for."""

    text: str
    kind: str  # one of KINDS
    id: str
    origin: Origin = field(default_factory=Origin)
    due_at: float = 0.0  # epoch seconds it was due
    said_at: float = field(default_factory=time.time)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def spoken(self) -> bool:
        """False for a silent lifecycle notice (a timer started, updated, cancelled)."""
        return self.data.get("event") in (None, "finished")

    @property
    def everywhere(self) -> bool:
        """A broadcast to the whole house (no area named): every site says it."""
        return self.kind == "broadcast" and self.origin.room is None

    @property
    def late_s(self) -> float:
        return max(0.0, self.said_at - self.due_at) if self.due_at else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The wire form (``mnemolis/say``, ``/events``)."""
        return {
            "text": self.text,
            "kind": self.kind,
            "id": self.id,
            "session": self.origin.session,
            "room": self.origin.room,
            "site": self.origin.site,
            "front_end": self.origin.front_end,
            "due_at": self.due_at,
            "late_s": round(self.late_s, 3),
            "data": self.data,
        }


class Announcer:
    """Fan-out of announcements; thread-safe, and a failing listener harms no other."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Start listening; call what this returns to stop."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    @property
    def listening(self) -> int:
        with self._lock:
            return len(self._listeners)

    def announce(self, announcement: Announcement) -> int:
        """Hand it to every listener; how many took it without failing."""
        with self._lock:
            listeners = list(self._listeners)
        delivered = 0
        for listener in listeners:
            try:
                listener(announcement)
                delivered += 1
            except Exception:
                log.exception("an announcement listener failed on %s", announcement.id)
        if not listeners:
            log.warning("nobody listens for announcements: %r was not said", announcement.text)
        return delivered
