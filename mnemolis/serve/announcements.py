"""Announcements back the way their request came.

The daemon's one `Announcer` (shared by every generation of the assistant,
so a reload loses nothing scheduled) hands each announcement to `Router`,
on the event loop. The requester's own front-end gets the first try (its
`Speaker.speak` says whether it reached the requester):

* ``http``, ``cli``, ``chat``: an open ``GET /events`` stream of that session;
* ``mqtt``: JSON on ``mqtt_api.say_topic`` (``mnemolis/say``);
* ``hermes``: ``hermes/tts/say`` with the requester's ``siteId``;
* ``wyoming``: the protocol's timer events, when the requester's connection
  is a satellite and still open.

When that fails (a one-shot ``mnemolis ask`` has exited, Home Assistant's
connection was closed after its answer, a reminder is not a timer event),
an announcement goes out for its area instead: on ``mnemolis/say`` (with
its ``room``) and on ``hermes/tts/say`` for each siteId of that area
(``hermes.sites``). Every ``/events`` stream without a session sees
everything.

A timer's silent life (`TimerNotice`: started, updated, cancelled) is a
separate subscription and never reaches a channel that speaks: it goes to
the requester's Wyoming satellite (its timer events) and to ``/events``
(``event: lifecycle``), nowhere else.

A broadcast ("tell everyone dinner is ready", kind ``broadcast``) has no way
back: it goes to every ``/events`` stream, on ``mnemolis/say`` with its
``room`` (null: everywhere), and on ``hermes/tts/say`` for each site of its
area, or of every area when none was named.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from mnemolis.core.announce import Announcement, Announcer, TimerNotice
from mnemolis.serve.http_events import EventStreams

log = logging.getLogger(__name__)


class Speaker(Protocol):
    """A front-end that can say an announcement."""

    def speak(self, announcement: Announcement) -> bool:
        """Deliver it to its requester; False when that is not possible now."""


class AreaSpeaker(Protocol):
    """A front-end that can say an announcement in an area, to whoever is there."""

    def speak_in_area(self, announcement: Announcement) -> bool: ...


class TimerDisplay(Protocol):
    """A front-end that shows timers (a satellite's timer events): told, never spoken to."""

    def show(self, notice: TimerNotice) -> bool:
        """Deliver it to its requester; False when that is not possible now."""


class Router:
    """Subscribed to the daemon's announcer for the daemon's whole life."""

    def __init__(self, announcer: Announcer, events: EventStreams) -> None:
        self.announcer = announcer
        self.events = events
        self.direct: dict[str, Speaker] = {"http": events, "cli": events, "chat": events}
        self.areas: list[AreaSpeaker] = []
        #: area speakers that say every broadcast, whoever else was reached (satellites)
        self.broadcast: list[AreaSpeaker] = []
        self.displays: dict[str, TimerDisplay] = {}
        self.delivered = 0
        self.unheard = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    def add(self, front_end: str, speaker: Speaker) -> None:
        self.direct[front_end] = speaker

    def add_area(self, speaker: AreaSpeaker, every_broadcast: bool = False) -> None:
        self.areas.append(speaker)
        if every_broadcast:
            self.broadcast.append(speaker)

    def add_display(self, front_end: str, display: TimerDisplay) -> None:
        self.displays[front_end] = display

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = [
            self.announcer.subscribe(self._hop(self.route)),
            self.announcer.subscribe_notices(self._hop(self.route_notice)),
        ]

    def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    def _hop(self, handle: Callable[[Any], None]) -> Callable[[Any], None]:
        """Any thread: hop onto the event loop."""

        def heard(item: Any) -> None:
            loop = self._loop
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(handle, item)

        return heard

    def route_notice(self, notice: TimerNotice) -> None:
        """On the loop: ``/events`` (lifecycle) and the requester's timer display, if any."""
        self.events.notice(notice)
        display = self.displays.get(notice.origin.front_end)
        if display is not None:
            self._try(display.show, notice)

    def route(self, announcement: Announcement) -> None:
        """On the loop: the requester's front-end, else the area."""
        self.events.watch(announcement)
        everywhere: list[object] = []  # area speakers that say every broadcast (satellites)
        told: list[bool] = []
        if announcement.kind == "broadcast":  # for everyone: no requester to go back to
            self.events.speak_to_sessions(announcement)
            everywhere = list(self.broadcast)
            told = [self._try(s.speak_in_area, announcement) for s in self.broadcast]
        speaker = self.direct.get(announcement.origin.front_end)
        direct = speaker is not None and speaker not in everywhere
        if direct and speaker is not None and self._try(speaker.speak, announcement):
            self.delivered += 1
            return
        others = [s for s in self.areas if s not in everywhere]
        spoken = [*told, *(self._try(s.speak_in_area, announcement) for s in others)]
        if any(spoken):
            self.delivered += 1
            return
        self.unheard += 1
        log.warning(
            "nobody could be told %r (%s from %s, room %s): no front-end reaches it",
            announcement.text[:80],
            announcement.kind,
            announcement.origin.front_end,
            announcement.origin.room or "unknown",
        )

    @staticmethod
    def _try(say: Callable[[Any], bool], item: Announcement | TimerNotice) -> bool:
        try:
            return say(item)
        except Exception:  # one front-end's bug must not silence the others
            log.exception("a front-end failed to say announcement %s", item.id)
            return False
