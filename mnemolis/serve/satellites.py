"""The daemon's satellites: one `SatelliteLink` each, and announcements said on them.

A front-end like the others (``start``, ``refuse``, ``close``), listed in
``sources/serve.yaml`` under ``satellites:``. Each satellite's conversation
is its own session, ``satellite:<name>:<128 random bits>`` made at start-up (every
other front-end's sessions carry that front-end's name, `serve.sessions`), so no
other client can name it, take its turn, or answer its "Do you want me to ...?".

What was asked on a satellite comes back there: a timer, a reminder, a "tell
me when" is said on the satellite whose request set it (`speak`). When that
satellite is down, it is said on the satellite its ``fallback`` names; when
there is none, the router tries the other front-ends of its area (MQTT
``mnemolis/say``, Hermes) and says in the log when nobody could be told. A
broadcast is said on every satellite that is up (or those of its area), and
so is anything meant for an area with a satellite in it (`speak_in_area`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from mnemolis.runtime.conversation import scoped
from mnemolis.serve.satellite_link import FRONT_END, SatelliteLink

if TYPE_CHECKING:
    from mnemolis.core.announce import Announcement
    from mnemolis.serve.daemon import Daemon
    from mnemolis.serve.daemon_voice import DaemonVoice
    from mnemolis.serve.satellite_settings import SatelliteSettings
    from mnemolis.serve.settings import Limits

log = logging.getLogger(__name__)

NAME = "satellites"


class Satellites:
    """Every satellite of ``sources/serve.yaml``, driven for the daemon's whole life."""

    name = NAME
    front_end = FRONT_END

    def __init__(
        self,
        daemon: Daemon,
        satellites: tuple[SatelliteSettings, ...],
        voice: DaemonVoice,
        limits: Limits,
        announce: Callable[[str, str], None],
    ) -> None:
        self.voice = voice
        self.announce = announce
        self.links = {
            s.name.lower(): SatelliteLink(
                s, daemon, voice, limits, scoped(FRONT_END, f"{s.name}:{secrets.token_hex(16)}")
            )
            for s in satellites
        }
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Load the engines in the background and start reaching every satellite."""
        self._tasks.append(asyncio.create_task(self._preload(), name="voice engines"))
        for link in self.links.values():
            self._tasks.append(asyncio.create_task(link.run(), name=f"satellite {link.name}"))
        where = ", ".join(f"{link.name} at {link.settings.url}" for link in self.links.values())
        self.announce(self.name, where)

    async def _preload(self) -> None:
        from mnemolis.voice.stages import StageError

        with contextlib.suppress(StageError):  # said in the log; each request says it again
            await self.voice.kit()

    def refuse(self) -> None:
        """Draining: requests already heard are answered; the daemon refuses new ones."""

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def link(self, name: str | None) -> SatelliteLink | None:
        return self.links.get(name.lower()) if name else None

    # ------------------------------------------------------------------ announcements

    def speak(self, announcement: Announcement) -> bool:
        """An announcement of a request made on a satellite: there, else at its fallback."""
        if announcement.kind == "broadcast":
            return self.speak_in_area(announcement)
        link = self.link(announcement.origin.site)
        if link is None:
            return False
        if link.say(announcement.text):
            return True
        fallback = self.link(link.settings.fallback)
        if fallback is not None and fallback.say(announcement.text):
            log.info(
                "satellite %s is down: %r said on %s instead",
                link.name,
                announcement.text[:80],
                fallback.name,
            )
            return True
        log.warning(
            "satellite %s is down and so is its fallback (%s): %r goes to its area instead",
            link.name,
            link.settings.fallback or "none set",
            announcement.text[:80],
        )
        return False

    def speak_in_area(self, announcement: Announcement) -> bool:
        """Said on every satellite of the announcement's area that is up (on all of them
        for a broadcast to the whole house)."""
        room = announcement.origin.room
        said = [
            link.say(announcement.text)
            for link in self.links.values()
            if announcement.everywhere or (room is not None and link.area == room)
        ]
        return any(said)
