"""MQTT request/response: a query on `mnemolis/ask`, its answer's JSON on `mnemolis/answer`.

A request is plain text, or JSON ``{"text", "session", "id", "room"}``
(``id`` is echoed in the answer). An MQTT 5 request may name a response
topic and correlation data: the answer goes to that topic, with the same
correlation data, when the topic starts with one of ``response_prefixes``;
otherwise to the answer topic (still correlated), so no request can make
Mnemolis publish on a device's topic. No topic is ever built from what a
request says. Retained requests are ignored: they would be answered again
on every reconnection.

Sessions are per client: a ``"session"`` field names one; else an MQTT 5
response topic is the client's session (``mqtt:<topic>``); else the request
shares the session ``mqtt`` for context, but its confirmations are its own:
no other request's "yes" unlocks what it asked for (a client that wants to
answer "Do you want me to ...?" names a session or a response topic). Every
session is MQTT's own (`sessions`): naming ``hermes:kitchen`` or
``wyoming:satellite:den`` reaches an MQTT conversation of that name, never
the satellite's.

Announcements of requests made here go out as JSON on ``say_topic``
(``mnemolis/say``): ``{"text", "kind", "id", "session", "room", "site",
"front_end", "due_at", "late_s", "data"}``; so do those whose requester
cannot be reached any other way (see `announcements`). The say topic is
never a response topic.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from mnemolis.core.announce import Announcement
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Answer
from mnemolis.serve.daemon import Daemon, Unavailable
from mnemolis.serve.mqtt_client import Message, ServeMqtt
from mnemolis.serve.requests import (
    AskRequest,
    BadRequest,
    answer_payload,
    read_json_request,
    read_plain_request,
    to_json,
    token_matches,
)
from mnemolis.serve.sessions import MQTT, announcement_payload, scoped
from mnemolis.serve.settings import Limits, MqttApiSettings
from mnemolis.sources.base import Status

log = logging.getLogger(__name__)

NAME = "mqtt-api"
FRONT_END = MQTT
DEFAULT_SESSION = "mqtt"
MAX_TOPIC_BYTES = 256
#: How long an announcement waits for the daemon's first connection to the broker.
CONNECT_WAIT_S = 10.0
INTERNAL = "Something went wrong; the daemon's log says what"
#: Said with a question no one can answer: the request named no session or response topic.
CANNOT_CONFIRM = (
    'To answer this question, ask again with a "session" (JSON) or an MQTT 5 response topic: '
    "a plain request's yes cannot be told from anyone else's"
)


def asks_for_yes(answer: Answer) -> bool:
    return any(r.answer.status is Status.NEEDS_CONFIRMATION for r in answer.parts)


class MqttApi:
    """The `mnemolis/ask` front-end on the daemon's MQTT connection."""

    name = NAME

    def __init__(
        self,
        daemon: Daemon,
        link: ServeMqtt,
        settings: MqttApiSettings,
        limits: Limits,
        token: str | None,
        announce: Callable[[str, str], None],
        forbidden_topics: tuple[str, ...] = (),
    ) -> None:
        self.daemon = daemon
        self.link = link
        self.settings = settings
        self.limits = limits
        self.token = token if settings.require_token else None
        self.announce = announce
        self.forbidden = {settings.ask_topic, *forbidden_topics}
        self.ready = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._requests = itertools.count(1)
        link.route((settings.ask_topic,), self._received, self._subscribed)

    async def start(self) -> None:
        """Nothing to open: the shared connection subscribes when it connects."""
        if self.settings.require_token and self.token is None:
            log.warning("mqtt_api.require_token is set, but no token is configured")

    def refuse(self) -> None:
        """Requests arriving while draining are answered "shutting down" by the daemon."""

    async def close(self) -> None:
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self.limits.drain_s)

    def _subscribed(self) -> None:
        if not self.ready:
            self.ready = True
            self.announce(self.name, f"{self.link.address} topic {self.settings.ask_topic}")
        else:
            log.info("mqtt-api subscribed again to %s", self.settings.ask_topic)

    def _received(self, message: Message) -> None:
        if message.retain:
            log.warning("mqtt-api ignored a retained request on %s", message.topic)
            return
        self._spawn(self._answer(message))

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ announcements

    def speak(self, announcement: Announcement) -> bool:
        """An announcement of a request made on MQTT, on the say topic: ``{"text", "kind",
        "id", "session", "room", ...}`` (`Announcement.to_dict`)."""
        self._spawn(self._say(to_json(announcement_payload(announcement))))
        return True

    async def _say(self, payload: bytes) -> bool:
        """Once the connection is up (a timer due at start-up rings before it is), then at
        QoS 1; while the broker is away, paho keeps it and sends it on reconnection."""
        waited = 0.0
        while not self.link.connected and waited < CONNECT_WAIT_S:
            await asyncio.sleep(0.05)
            waited += 0.05
        sent = await self.link.publish(self.settings.say_topic, payload)
        if not sent:
            log.warning("an announcement could not be published on %s", self.settings.say_topic)
        return sent

    def speak_in_area(self, announcement: Announcement) -> bool:
        """Anyone's announcement that could not reach its requester, with its room."""
        return self.speak(announcement)

    # ------------------------------------------------------------------ one request

    def read(self, payload: bytes) -> AskRequest | BadRequest:
        """The request in a payload: JSON when it starts with ``{``, else plain text."""
        limits = self.limits
        if len(payload) > limits.max_body_bytes:
            return BadRequest(
                "too_large", f"The request is over {limits.max_body_bytes} bytes", 413
            )
        if payload.lstrip().startswith(b"{"):
            request = read_json_request(payload, DEFAULT_SESSION, limits.max_text_chars)
        else:
            request = read_plain_request(payload, DEFAULT_SESSION, limits.max_text_chars)
        if (
            isinstance(request, AskRequest)
            and self.token is not None
            and not token_matches(request.token, self.token)
        ):
            message = 'This request needs the token: send JSON with "token"'
            return BadRequest("unauthorized", message, 401, request.id)
        return request

    def allowed(self, topic: str) -> bool:
        """A response topic Mnemolis may publish on (never a device's)."""
        return (
            0 < len(topic.encode()) <= MAX_TOPIC_BYTES
            and not any(c in topic for c in "+#\0")
            and topic not in self.forbidden
            and any(topic.startswith(p) for p in self.settings.response_prefixes)
        )

    def destination(self, message: Message) -> str:
        """The response topic when it is allowed, else the answer topic."""
        topic = message.response_topic
        if topic is None:
            return self.settings.answer_topic
        if self.allowed(topic):
            return topic
        log.warning(
            "mqtt-api: the response topic %s is not allowed (response_prefixes: %s); "
            "answering on %s",
            repr(topic[:80]),
            ", ".join(self.settings.response_prefixes),
            self.settings.answer_topic,
        )
        return self.settings.answer_topic

    def client_of(self, request: AskRequest, message: Message) -> tuple[str, str | None]:
        """The session as the client sees it and the confirmation scope of a request (see
        the docstring)."""
        if request.named_session:
            return request.session, None
        topic = message.response_topic
        if topic is not None and self.allowed(topic):
            return f"mqtt:{topic}", None
        return DEFAULT_SESSION, f"request:{next(self._requests)}"

    async def _answer(self, message: Message) -> None:
        try:
            await self._answer_request(message)
        except Exception:  # a bug ends as an answer that says so, never as silence
            log.exception("mqtt-api: a request on %s failed", message.topic)
            await self._reply(message, {"error": INTERNAL, "code": "internal"})

    async def _answer_request(self, message: Message) -> None:
        request = self.read(message.payload)
        if isinstance(request, BadRequest):
            log.warning("mqtt-api refused a request: %s", request.message)
            await self._reply(message, request.to_dict())
            return
        named, scope = self.client_of(request, message)
        session = scoped(FRONT_END, named)
        origin = Origin(FRONT_END, session, request.room, message.response_topic)
        try:
            async with self.daemon.request():
                answer = await self.daemon.ask(FRONT_END, request.text, session, origin, scope)
                payload = answer_payload(answer, named, request.id)
                if scope is not None and asks_for_yes(answer):
                    payload["note"] = CANNOT_CONFIRM
                await self._reply(message, payload)
        except Unavailable as exc:
            await self._reply(message, {"error": exc.message, "code": exc.code, "id": request.id})

    async def _reply(self, message: Message, payload: dict[str, Any]) -> None:
        if payload.get("id") is None:
            payload.pop("id", None)
        await self.link.publish(
            self.destination(message), to_json(payload), message.correlation_data
        )
