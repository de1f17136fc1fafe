"""Rhasspy's Hermes topics: recognised text in, the spoken reply out.

`hermes/asr/textCaptured` (``text``) and `hermes/nlu/query` (``input``, or
``text``) come in as JSON with ``siteId`` and ``sessionId``; the reply is
said on `hermes/tts/say` with the same ``siteId`` and ``sessionId`` and an
``id`` of its own. Each satellite (siteId) keeps one conversation, in the
area ``hermes.sites`` maps it to. Rhasspy can send the same utterance on
both topics (the ASR's text, then the dialogue manager's query): the same
text of the same site and session within ``repeat_window_s`` is answered
once.

As Rhasspy's own NLU does, a text nothing matched is also published as
`hermes/nlu/intentNotRecognized` (``input``, ``siteId``, ``sessionId``,
``id``), so the dialogue manager ends its session. A confirmation ("Do you
want me to unlock the front door?") is bound to the ``sessionId`` that
asked: it is asked with `hermes/dialogueManager/continueSession`, so the
answer comes in the same session, and a "yes" from another session of the
same site finds nothing waiting. The site's conversation is Hermes' own
(``hermes:<siteId>``, `sessions`): no MQTT or HTTP request can take a turn
in it. Announcements are said on the say topic for the requester's site, or
for every site of their area. A message that is not a Hermes utterance
(not JSON, nested too deep, too long) has no site to answer: it is logged
with the reason and dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemolis.core.announce import Announcement
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Answer, Outcome
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.mqtt_api import asks_for_yes
from mnemolis.serve.mqtt_client import Message, ServeMqtt
from mnemolis.serve.requests import to_json
from mnemolis.serve.sessions import HERMES, scoped
from mnemolis.serve.settings import HermesSettings, Limits
from mnemolis.serve.wire import NotJson, clean_text, loads, lone_surrogate

log = logging.getLogger(__name__)

NAME = HERMES
DEFAULT_SITE = "default"
NOT_RECOGNIZED = "hermes/nlu/intentNotRecognized"
CONTINUE_SESSION = "hermes/dialogueManager/continueSession"
MAX_ID_CHARS = 200
MAX_REMEMBERED = 1024  # recent utterances kept to spot a repeat


@dataclass(frozen=True)
class Utterance:
    """One recognised sentence of one satellite."""

    text: str
    site_id: str
    session_id: str | None
    lang: str | None = None
    id: str | None = None  # the query's own id (nlu/query), echoed in intentNotRecognized

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.site_id, self.session_id, " ".join(self.text.lower().split()))


def read_utterance(payload: bytes, max_chars: int) -> Utterance | str:
    """The utterance in a Hermes message, or why there is none."""
    try:
        data: Any = loads(payload)
    except UnicodeDecodeError:
        return "not UTF-8"
    except NotJson as exc:
        return f"not JSON ({exc})"
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
    if lone_surrogate(text):
        return "the text holds a lone surrogate"
    lang = data.get("lang")
    ident = data.get("id")
    return Utterance(
        text,
        clean_text(site),
        clean_text(session) if session is not None else None,
        lang if isinstance(lang, str) else None,
        clean_text(ident)[:MAX_ID_CHARS] if isinstance(ident, str) else None,
    )


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
        self._tasks: set[asyncio.Task[Any]] = set()
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
        self._spawn(self._answer(utterance))

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
        session = scoped(NAME, utterance.site_id)
        # confirmations are the site's sessionId's; without one, this utterance's alone
        ident = utterance.session_id
        scope = f"session:{ident}" if ident else f"utterance:{uuid.uuid4().hex}"
        room = self.settings.area_of(utterance.site_id)
        origin = Origin(self.name, session, room, utterance.site_id)
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(self.name, utterance.text, session, origin, scope)
                await self._reply(utterance, answer)
        except Unavailable as exc:
            await self._say(utterance, exc.message)

    async def _reply(self, utterance: Utterance, answer: Answer) -> None:
        if answer.outcome is Outcome.NOT_UNDERSTOOD:
            await self.link.publish(NOT_RECOGNIZED, to_json(self.not_recognized(utterance)))
        if utterance.session_id is not None and asks_for_yes(answer):
            await self.link.publish(CONTINUE_SESSION, to_json(self.continued(utterance, answer)))
            return
        await self._say(utterance, answer.text)

    @staticmethod
    def not_recognized(utterance: Utterance) -> dict[str, Any]:
        """Rhasspy's NluIntentNotRecognized."""
        return {
            "input": utterance.text,
            "siteId": utterance.site_id,
            "sessionId": utterance.session_id,
            "id": utterance.id,
            "customData": None,
        }

    @staticmethod
    def continued(utterance: Utterance, answer: Answer) -> dict[str, Any]:
        """Rhasspy's DialogueContinueSession: say the question, keep listening in the session."""
        return {
            "sessionId": utterance.session_id,
            "text": answer.text,
            "customData": None,
            "intentFilter": None,
            "sendIntentNotRecognized": True,
            "lang": utterance.lang,
        }

    async def _say(self, utterance: Utterance, text: str) -> None:
        await self._publish_say(text, utterance.site_id, utterance.session_id, utterance.lang)

    async def _publish_say(
        self, text: str, site: str, session_id: str | None, lang: str | None = None
    ) -> None:
        payload = {
            "text": text,
            "siteId": site,
            "sessionId": session_id,
            "id": uuid.uuid4().hex,
            "lang": lang,
        }
        await self.link.publish(self.settings.say_topic, to_json(payload))

    # ------------------------------------------------------------------ announcements

    def speak(self, announcement: Announcement) -> bool:
        """Said on the site that asked."""
        site = announcement.origin.site
        if not site:
            return False
        self._spawn(self._publish_say(announcement.text, site, None))
        return True

    def speak_in_area(self, announcement: Announcement) -> bool:
        """Said on every site of the announcement's area (of the house, for a broadcast
        to everyone)."""
        if announcement.everywhere:
            sites = [site for site, _area in self.settings.sites]
        else:
            sites = self.settings.sites_in(announcement.origin.room)
        for site in sites:
            self._spawn(self._publish_say(announcement.text, site, None))
        return bool(sites)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
