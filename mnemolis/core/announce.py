"""Speaking first: announcements, timer notices, and the hub that hands them out.

Two kinds of thing leave a source unasked, and they never share a channel:

* an `Announcement` is words to say: a timer that rang, an alarm, a
  reminder, a "tell me when" that came true, a scheduled command that ran,
  a broadcast ("tell everyone dinner is ready"). Its text is never empty
  (the constructor refuses one), so no front-end that speaks every message
  it gets (the chat, MQTT ``mnemolis/say``, Hermes ``tts/say``, a
  satellite's voice) can ever be handed silence to say;
* a `TimerNotice` is a timer's silent life (started, updated, cancelled),
  for front-ends that show timers: Wyoming's timer events and the
  ``/events`` stream's ``lifecycle`` events. It has no text at all.

Producers (the timers and broadcast sources) call `Announcer.announce` or
`Announcer.notify`; front-ends subscribe to the one they handle, and decide
from the `Origin` whether they are the way back to the requester.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from mnemolis.core.origin import Origin

log = logging.getLogger(__name__)

KINDS = ("timer", "alarm", "reminder", "notify", "scheduled", "broadcast")
#: What a `TimerNotice` tells (a timer that rang is an `Announcement` of kind ``timer``).
NOTICES = ("started", "updated", "cancelled")

T = TypeVar("T")
Listener = Callable[["Announcement"], None]
NoticeListener = Callable[["TimerNotice"], None]


class EmptyAnnouncement(ValueError):
    """An announcement with nothing to say: a bug in its producer, refused where it is made."""


@dataclass(frozen=True)
class Announcement:
    """Words said without being asked, and who they are for."""

    text: str
    kind: str  # one of KINDS
    id: str
    origin: Origin = field(default_factory=Origin)
    due_at: float = 0.0  # epoch seconds it was due
    said_at: float = field(default_factory=time.time)
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise EmptyAnnouncement(
                f"the {self.kind} announcement {self.id} has no words to say (a silent "
                "notice is a TimerNotice)"
            )

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
            **self.origin.to_dict(),  # session, room, site, front_end
            "due_at": self.due_at,
            "late_s": round(self.late_s, 3),
            "data": self.data,
        }


@dataclass(frozen=True)
class TimerNotice:
    """A timer's silent life: started, updated (paused, resumed, more time), cancelled.

    ``data`` holds Wyoming's timer fields (``total_seconds``, ``seconds_left``,
    ``name``, ``is_active``, ``start_hours`` ...)."""

    event: str  # one of NOTICES
    id: str
    origin: Origin = field(default_factory=Origin)
    due_at: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)

    kind = "timer"

    def to_dict(self) -> dict[str, Any]:
        """The wire form of ``/events``' ``lifecycle`` events: no text, the event named."""
        return {
            "event": self.event,
            "kind": self.kind,
            "id": self.id,
            **self.origin.to_dict(),
            "due_at": self.due_at,
            "data": {"event": self.event, **self.data},
        }


class _FanOut(Generic[T]):
    """Listeners of one kind; thread-safe, and a failing listener harms no other."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[Callable[[T], None]] = []

    def subscribe(self, listener: Callable[[T], None]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def __len__(self) -> int:
        with self._lock:
            return len(self._listeners)

    def hand_out(self, item: T, ident: str) -> tuple[int, int]:
        """(listeners, those that took it without failing)."""
        with self._lock:
            listeners = list(self._listeners)
        delivered = 0
        for listener in listeners:
            try:
                listener(item)
                delivered += 1
            except Exception:
                log.exception("an announcement listener failed on %s", ident)
        return len(listeners), delivered


class Announcer:
    """Two fan-outs: words (`announce`) to those that speak, notices (`notify`) to those
    that show timers."""

    def __init__(self) -> None:
        self._speakers: _FanOut[Announcement] = _FanOut()
        self._watchers: _FanOut[TimerNotice] = _FanOut()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Hear every announcement; call what this returns to stop."""
        return self._speakers.subscribe(listener)

    def subscribe_notices(self, listener: NoticeListener) -> Callable[[], None]:
        """Be told of every timer's life (never words to say); call what this returns to
        stop."""
        return self._watchers.subscribe(listener)

    @property
    def listening(self) -> int:
        """How many listen for words."""
        return len(self._speakers)

    def announce(self, announcement: Announcement) -> int:
        """Hand it to every listener; how many took it without failing."""
        listeners, delivered = self._speakers.hand_out(announcement, announcement.id)
        if not listeners:
            log.warning("nobody listens for announcements: %r was not said", announcement.text)
        return delivered

    def notify(self, notice: TimerNotice) -> int:
        """Tell those that show timers; nobody watching is normal (a plain chat)."""
        return self._watchers.hand_out(notice, notice.id)[1]
