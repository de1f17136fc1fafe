"""`mnemolis/say`: what the assistant says unasked, as JSON on the daemon's MQTT connection.

A timer that rings, a reminder, a watch that came true or a plan that ran is an
`Announcement` (`announce.py`) on the daemon's one hub; every spoken one is
published at QoS 1 on ``mqtt_api.say_topic`` of `sources/serve.yaml` as
``{"text", "kind", "id", "session", "room", "site", "front_end", "due_at",
"late_s", "data"}``, for a speaker, a dashboard or Node-RED to say or show.
Silent lifecycle notices (a timer started, updated, cancelled) are not
published. The topic comes from the settings, never from what was said.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from mnemolis.announce import Announcement
from mnemolis.serve.daemon import Daemon
from mnemolis.serve.mqtt_client import ServeMqtt
from mnemolis.serve.requests import to_json

log = logging.getLogger(__name__)

NAME = "mqtt-say"
#: How long an announcement waits for the daemon's first connection to the broker.
CONNECT_WAIT_S = 10.0


class SayOverMqtt:
    """Publishes the daemon's announcements; a front-end without requests."""

    name = NAME

    def __init__(self, daemon: Daemon, link: ServeMqtt, topic: str) -> None:
        self.daemon = daemon
        self.link = link
        self.topic = topic
        self._stop: Callable[[], None] | None = None
        self._sending: set[asyncio.Task[bool]] = set()

    async def start(self) -> None:
        self._stop = self.daemon.announcer.subscribe(self._heard)

    def refuse(self) -> None:
        """Announcements keep going out while requests drain."""

    async def close(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None
        if self._sending:
            await asyncio.wait(self._sending, timeout=self.daemon.settings.limits.drain_s)

    def _heard(self, announcement: Announcement) -> None:
        """On the event loop (the timers source speaks there): publish, don't wait."""
        if not announcement.spoken:
            return
        task = asyncio.ensure_future(self._publish(to_json(announcement.to_dict())))
        self._sending.add(task)
        task.add_done_callback(self._sent)

    async def _publish(self, payload: bytes) -> bool:
        """Once the connection is up (a timer due at start-up rings before it is), then
        at QoS 1; while the broker is away, paho keeps it and sends it on reconnection."""
        waited = 0.0
        while not self.link.connected and waited < CONNECT_WAIT_S:
            await asyncio.sleep(0.05)
            waited += 0.05
        return await self.link.publish(self.topic, payload)

    def _sent(self, task: asyncio.Task[bool]) -> None:
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is None and not task.result():
            log.warning("an announcement could not be published on %s", self.topic)
