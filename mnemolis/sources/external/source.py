"""The external source: intents recognised here and carried out by other programs.

An intent with ``source: external`` is published on
``<topic_prefix>/<intent name>`` (JSON: intent, text, slots, confidence,
session, site, room, id) and, as Rhasspy does, on ``hermes/intent/<intent
name>`` in the Hermes format (`hermes.intent_message`), so Node-RED, Home
Assistant automations and Rhasspy apps act on it. Topics are built from the
intent's name, which comes from YAML, never from what was said. The answer
is the intent's `say:` (a template over its slots) or `replies.handed_over`;
``done`` once the broker has every message, ``error`` (with the reason)
otherwise.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

from mnemolis.config import Config
from mnemolis.config.templates import TemplateFailed, render
from mnemolis.core.plan import Part
from mnemolis.sources.base import (
    Evaluation,
    PartAnswer,
    Publishes,
    Request,
    Source,
    Status,
    Truth,
)
from mnemolis.sources.external.hermes import intent_message
from mnemolis.sources.external.settings import ExternalSettings

SOURCE = "external"


class ExternalSource:
    """Hands recognised intents over MQTT to whoever carries them out."""

    name = SOURCE

    def __init__(
        self, config: Config, peers: Mapping[str, Source], settings: ExternalSettings
    ) -> None:
        self.config = config
        self.peers = peers
        self.settings = settings

    async def start(self) -> None:
        """The broker connection is the MQTT source's."""

    async def close(self) -> None:
        """Nothing of its own to close."""

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return Evaluation(Truth.UNKNOWN, f"{part.text} is carried out elsewhere")

    def messages(self, part: Part, request: Request) -> list[tuple[str, dict[str, Any]]]:
        """Every (topic, message) one recognised external intent is published as."""
        name = part.intent or ""
        request_id = uuid.uuid4().hex
        origin = request.origin
        ours = {
            "intent": name,
            "text": part.text,
            "slots": dict(part.slots),
            "confidence": round(part.confidence, 3),
            "session": request.session,
            "site": origin.site,
            "room": origin.room,
            "id": request_id,
        }
        out = [(f"{self.settings.topic_prefix}/{name}", ours)]
        if self.settings.hermes:
            hermes = intent_message(
                name,
                part.text,
                dict(part.slots),
                part.confidence,
                origin.site or "default",
                request.session,
                request_id,
                self.config.language.code,
            )
            out.append((f"{self.settings.hermes_prefix}/{name}", hermes))
        return out

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        started = time.perf_counter()
        answer = await self._answer(part, request)
        answer.ms = (time.perf_counter() - started) * 1000
        return answer

    async def _answer(self, part: Part, request: Request) -> PartAnswer:
        spec = self.config.intent(part.intent)
        broker = next((p for p in self.peers.values() if isinstance(p, Publishes)), None)
        data: dict[str, Any] = {"intent": part.intent, "slots": dict(part.slots)}
        if spec is None or broker is None:
            return PartAnswer(self.settings.say("no_broker"), Status.ERROR, SOURCE, data)
        topics: list[str] = []
        for topic, message in self.messages(part, request):
            payload = json.dumps(message, ensure_ascii=False).encode()
            if not await broker.publish(topic, payload, self.settings.qos, False):
                data["topics"] = topics
                reason = f"the broker did not take the message on {topic}"
                return PartAnswer(
                    self.settings.say("failed", reason=reason), Status.ERROR, SOURCE, data
                )
            topics.append(topic)
        data["topics"] = topics
        try:
            text = await self._reply(spec.say, part, request)
        except TemplateFailed as exc:
            text = self.settings.say("handed_over", intent=part.intent)
            data["reply_problem"] = str(exc)
        return PartAnswer(text, Status.DONE, SOURCE, data, {"topics": topics})

    async def _reply(self, say: str | None, part: Part, request: Request) -> str:
        if say is None:
            return self.settings.say("handed_over", intent=part.intent)
        slots = {name: part.slots.get(name) for name in self._slot_names(part)}
        origin = request.origin
        variables = {
            **slots,
            "slots": dict(part.slots),
            "intent": part.intent,
            "text": part.text,
            "origin": {"room": origin.room, "site": origin.site, "session": origin.session},
        }
        return await render(say, variables)

    def _slot_names(self, part: Part) -> list[str]:
        spec = self.config.intent(part.intent)
        return list(spec.slots) if spec is not None else list(part.slots)
