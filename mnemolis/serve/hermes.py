"""Rhasspy's Hermes topics: recognised text in, the spoken reply out.

`hermes/asr/textCaptured` (``text``) and `hermes/nlu/query` (``input``, or
``text``) come in as JSON with ``siteId`` and ``sessionId``; the reply is
said on `hermes/tts/say` with the same ``siteId`` and ``sessionId`` and an
``id`` of its own. Each satellite (siteId) keeps one conversation. Rhasspy
can send the same utterance on both topics (the ASR's text, then the
dialogue manager's query): the same text of the same site and session
within ``repeat_window_s`` is answered once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.mqtt_client import Message, ServeMqtt
from mnemolis.serve.requests import to_json
from mnemolis.serve.settings import HermesSettings, Limits

log = logging.getLogger(__name__)

NAME = "hermes"
DEFAULT_SITE = "default"
MAX_ID_CHARS = 200
MAX_REMEMBERED = 1024  # recent utterances kept to spot a repeat


@dataclass(frozen=True)
class Utterance:
    """One recognised sentence of one satellite."""

    text: str
    site_id: str
    session_id: str | None
    lang: str | None = None

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.site_id, self.session_id, " ".join(self.text.lower().split()))


def read_utterance(payload: bytes, max_chars: int) -> Utterance | str:
    """The utterance in a Hermes message, or why there is none."""
    try:
        data: Any = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        return "not JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    text = data.get("text", data.get("input"))
    if not isinstance(text, str):
        return "no text"
    site = data.get("siteId") or DEFAULT_SITE
    session = data.get("sessionId")
    if not isinstance(site, str) or len(site) > MAX_ID_CHARS:
        return "siteId is not a short string"
    if session is not None and (not isinstance(session, str) or len(session) > MAX_ID_CHARS):
        return "sessionId is not a short string"
    if len(text) > max_chars:
        return f"the text is longer than {max_chars} characters"
    lang = data.get("lang")
    return Utterance(text, site, session, lang if isinstance(lang, str) else None)


class Hermes:
    """The Hermes front-end on the daemon's MQTT connection."""

    name = NAME

    def __init__(
        self,
        daemon: Daemon,
        link: ServeMqtt,
        settings: HermesSettings,
        limits: Limits,
        announce: Callable[[str, str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.daemon = daemon
        self.link = link
        self.settings = settings
        self.limits = limits
        self.announce = announce
        self.clock = clock
        self.ready = False
        self._recent: dict[tuple[str, str | None, str], float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        link.route(settings.listen_topics, self._received, self._subscribed)

    async def start(self) -> None:
        """Nothing to open: the shared connection subscribes when it connects."""

    def refuse(self) -> None:
        """Utterances arriving while draining are told "shutting down"."""

    async def close(self) -> None:
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self.limits.drain_s)

    def _subscribed(self) -> None:
        topics = ", ".join(self.settings.listen_topics)
        if not self.ready:
            self.ready = True
            self.announce(self.name, f"{self.link.address} topics {topics}")
        else:
            log.info("hermes subscribed again to %s", topics)

    def _received(self, message: Message) -> None:
        if message.retain:
            log.warning("hermes ignored a retained message on %s", message.topic)
            return
        if len(message.payload) > self.limits.max_body_bytes:
            limit = self.limits.max_body_bytes
            log.warning("hermes ignored a message on %s: over %d bytes", message.topic, limit)
            return
        utterance = read_utterance(message.payload, self.limits.max_text_chars)
        if isinstance(utterance, str):
            log.warning("hermes ignored a message on %s: %s", message.topic, utterance)
            return
        if self._repeated(utterance):
            log.info("hermes: %s repeated %r; answered once", message.topic, utterance.text[:80])
            return
        task = asyncio.create_task(self._answer(utterance))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _repeated(self, utterance: Utterance) -> bool:
        now = self.clock()
        window = self.settings.repeat_window_s
        self._recent = {k: t for k, t in self._recent.items() if now - t <= window}
        if utterance.key in self._recent:
            return True
        if len(self._recent) >= MAX_REMEMBERED:
            self._recent.pop(next(iter(self._recent)))
        self._recent[utterance.key] = now
        return False

    async def _answer(self, utterance: Utterance) -> None:
        session = f"hermes:{utterance.site_id}"
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(self.name, utterance.text, session)
                await self._say(utterance, answer.text)
        except Unavailable as exc:
            await self._say(utterance, exc.message)

    async def _say(self, utterance: Utterance, text: str) -> None:
        payload = {
            "text": text,
            "siteId": utterance.site_id,
            "sessionId": utterance.session_id,
            "id": uuid.uuid4().hex,
            "lang": utterance.lang,
        }
        await self.link.publish(self.settings.say_topic, to_json(payload))
