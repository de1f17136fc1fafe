"""The long-lived assistant the CLI and the daemon talk to.

Built once from a `Config`, it owns the device registry, the understander
(with the encyclopedia's titles as names, so "romeo and juliet" stays one
topic), the sources (started once) and the conversations. `ask` takes one
turn of one session: it handles a yes or a no to a waiting action, or
understands the text in the session's context, executes the plan, merges
the reply and remembers what the turn touched. Turns of different sessions
may run concurrently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypeVar

from mnemolis.config import Config
from mnemolis.core.announce import Announcer
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.heard import Heard
from mnemolis.core.origin import Origin
from mnemolis.core.plan import Part, Plan
from mnemolis.core.sentences import as_sentence
from mnemolis.core.state_dir import private_state_dir
from mnemolis.runtime.answer import Answer, PartResult, StepResult
from mnemolis.runtime.conversation import Conversation, Conversations, Waiting, YesNo
from mnemolis.runtime.doubt import Doubt, Doubted, did_you_say, heard_step
from mnemolis.runtime.execute import Executor
from mnemolis.runtime.merge import merge
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.sources import registry as registry_of_sources
from mnemolis.sources.base import (
    ANSWERS_ONCE,
    FillsRegistry,
    KeepsForLater,
    PartAnswer,
    Source,
    SourceContext,
    Status,
)
from mnemolis.understand import Understander, registry_from_config
from mnemolis.understand.lookup import NameSource

log = logging.getLogger(__name__)

S = TypeVar("S")


def default_sources(
    config: Config,
    registry: DeviceRegistry,
    environ: Mapping[str, str] | None,
    extras: Mapping[str, Any] | None,
    announcer: Announcer,
) -> list[Source]:
    """Every source of the registry, as `sources/*.yaml` and the environment
    (``environ``, else the process's: the demo home hands over its own) configure
    them; ``extras`` is what the entry point hands in (the demo ZIM). ``announcer``
    is the assistant's own: a source speaking into another one is never heard."""
    env = os.environ if environ is None else environ
    context = SourceContext(
        config=config,
        registry=registry,
        environ=env,
        state_dir=private_state_dir(env),  # made or tightened: 0700, nothing for others
        extras=dict(extras or {}),
        announcer=announcer,
    )
    return registry_of_sources.build(context)


class Assistant:
    """Ask it things; close it when done. Build it with `Assistant.start`."""

    def __init__(
        self,
        config: Config,
        settings: AssistantSettings,
        registry: DeviceRegistry,
        understander: Understander,
        sources: Sequence[Source],
        clock: Callable[[], float] = time.monotonic,
        announcer: Announcer | None = None,
    ) -> None:
        self.config = config
        self.announcer = announcer or Announcer()  # front-ends subscribe; sources speak into it
        self.settings = settings
        self.registry = registry
        self.understander = understander
        self.sources: dict[str, Source] = {s.name: s for s in sources}
        self.executor = Executor(self.sources, settings)
        self.conversations = Conversations(settings, clock)
        self.yes_no = YesNo(config.language.yes_words, config.language.no_words)
        self.doubt = Doubt(config, settings.heard)
        self.discovery: Any = None  # what a one-shot start heard (`FillsRegistry`)
        self._closed = False

    # ------------------------------------------------------------------ life

    @classmethod
    async def start(
        cls,
        config: Config,
        *,
        sources: Sequence[Source] | None = None,
        registry: DeviceRegistry | None = None,
        settings: AssistantSettings | None = None,
        one_shot: bool = False,
        clock: Callable[[], float] = time.monotonic,
        understander: Understander | None = None,
        extras: Mapping[str, Any] | None = None,
        announcer: Announcer | None = None,
        answers_once: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> Assistant:
        """Start the sources and build the understander.

        ``sources`` replaces the registry's sources (tests point real ones at test
        servers); an MQTT source among them must share ``registry``.
        ``one_shot`` waits (boundedly, `discovery.wait_s`) for retained
        discovery and device states, so a single `ask` knows every device.
        ``understander`` is used as it is (its registry replaces ``registry``,
        and it gets no encyclopedia titles); tests share one to start faster.
        ``clock`` (monotonic seconds) times confirmations and idle sessions.
        ``extras`` go to the source factories (the CLI hands in the demo ZIM);
        ``announcer`` is the hub sources speak first into (tests pass the one
        their own sources were built with).
        ``answers_once``: the process ends after one answer (`mnemolis ask`), so a
        source that speaks later (timers) says it cannot (`base.ANSWERS_ONCE`).
        ``environ`` configures the default sources instead of the process's
        environment (the demo hands over its own home's, state directory included);
        they speak into this assistant's announcer, as every source must.
        Raises `ConfigError` for a broken configuration, nothing else.
        """
        settings = settings or AssistantSettings.from_config(config)
        announcer = announcer or Announcer()
        extras = {**(extras or {}), ANSWERS_ONCE: answers_once}
        if understander is not None:
            registry = understander.registry
        registry = registry if registry is not None else registry_from_config(config)
        chosen = (
            list(sources)
            if sources is not None
            else default_sources(config, registry, environ, extras, announcer)
        )
        names: list[NameSource] = [s for s in chosen if isinstance(s, NameSource)]
        others = [s for s in chosen if not isinstance(s, FillsRegistry)]
        starting = asyncio.gather(*(_start(s) for s in others))
        if understander is None:  # subscribed to the registry before the broker can change it
            understander = await asyncio.to_thread(Understander, config, registry, names)
        await starting
        assistant = cls(config, settings, registry, understander, chosen, clock, announcer)
        for source in chosen:
            if isinstance(source, FillsRegistry):
                await _start(source)
                if one_shot:
                    assistant.discovery = await source.wait_for_devices()
        for source in chosen:  # everything is up: what comes due may run from now on
            if isinstance(source, KeepsForLater):
                source.run_with(assistant.run_later)
        return assistant

    @classmethod
    @asynccontextmanager
    async def running(cls, config: Config, **options: Any) -> AsyncIterator[Assistant]:
        """``async with Assistant.running(config) as assistant:``; closed on the way out.
        ``options`` are those of `start`."""
        assistant = await cls.start(config, **options)
        try:
            yield assistant
        finally:
            await assistant.close()

    async def close(self) -> None:
        """Close every source (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for source in self.sources.values():
            try:
                await source.close()
            except Exception:
                log.exception("the %s source failed to close", source.name)

    async def run_later(
        self, parts: Sequence[Part], origin: Origin, confirmed: bool
    ) -> list[PartAnswer]:
        """Parts that came due (a plan, a watch's branch), run like any turn's, with the
        yes given when they were set; what each source answered."""
        steps = await self.executor.carry_out(parts, origin.session, origin, confirmed)
        return [result.answer for step in steps for result in step.parts]

    def source_of(self, kind: type[S]) -> S | None:
        """The running source of one class (tests and the demo ask for `MqttSource`), if any."""
        return next((s for s in self.sources.values() if isinstance(s, kind)), None)

    def forget(self, session: str) -> None:
        """Drop a session's conversation (context, waiting actions) at once."""
        self.conversations.forget(session)

    # ------------------------------------------------------------------ one turn

    async def ask(
        self,
        text: str,
        session: str = "default",
        origin: Origin | None = None,
        heard: Heard | None = None,
    ) -> Answer:
        """One turn of ``session``: the merged reply and the structured result.
        ``origin`` says where it came from (front-end, room, site); ``heard`` is what a
        recogniser heard when the text was spoken: a doubtful action is asked back, and
        speech it rejected acts on nothing (`doubt`)."""
        started = time.perf_counter()
        session = session[: self.settings.max_session_chars]
        origin = replace(origin, session=session) if origin else Origin(session=session)
        conversation = self.conversations.get(session)
        async with conversation.lock:
            if heard is not None and self.doubt.rejected(heard):
                said = as_sentence(self.settings.replies.say("heard.not_caught"))
                reason = heard.rejected or "nothing heard"
                steps = [heard_step(text, said, Status.OUT_OF_SCOPE, reason=reason)]
                plan: Plan | None = None
            else:
                steps, plan = await self._turn(conversation, text, origin, heard)
        notes = plan.notes if plan is not None else []
        empty = plan.clarify or "" if plan is not None else ""
        ms = (time.perf_counter() - started) * 1000
        return merge(text, steps, self.settings, ms, notes, session, empty)

    async def _turn(
        self, conversation: Conversation, text: str, origin: Origin, heard: Heard | None = None
    ) -> tuple[list[StepResult], Plan | None]:
        normalized = self.understander.normalizer.normalize(text).text
        reply = self.yes_no.read(normalized)
        doubtful, unsure = self.doubt.doubtful(heard), self.doubt.unsure(heard)
        if conversation.doubted is not None:
            answered = await self._answer_doubt(conversation, text, reply, unsure, origin)
            if answered is not None:
                return answered
        plan = None
        if reply and unsure and conversation.waiting:  # a doubtful yes never confirms
            said = as_sentence(self.settings.replies.say("heard.yes_or_no"))
            return [heard_step(text, said, Status.NEEDS_CONFIRMATION, waiting_for="yes")], None
        if reply is not None:
            asked = bool(conversation.waiting) or conversation.context.pending is not None
            if not reply and not asked:  # "never mind" alone is understood as said (OK.)
                plan = self.understander.understand(text, conversation.context, room=origin.room)
            if plan is None or not all(p.in_scope for p in plan.parts()):
                return await self._reply(conversation, text, reply, origin), None
        earlier = [self._said(w.part, "dropped") for w in conversation.take_waiting()]
        if plan is None:
            plan = self.understander.understand(text, conversation.context, room=origin.room)
        if heard is not None and doubtful and self.doubt.acts(plan):
            conversation.doubted = Doubted(plan, heard, self.conversations.clock())
            question = self.settings.replies.say("heard.did_you_say", heard=heard.text)
            return [*earlier, did_you_say(plan, heard, as_sentence(question))], plan
        steps = await self.executor.run(plan, conversation.session, origin)
        conversation.context.remember(plan)
        self._keep_only_asked(conversation, steps)
        self._hold(conversation, steps)
        return earlier + steps, plan

    async def _answer_doubt(
        self,
        conversation: Conversation,
        text: str,
        reply: bool | None,
        unsure: bool,
        origin: Origin,
    ) -> tuple[list[StepResult], Plan | None] | None:
        """The turn after "Did you say ...?": a yes heard with confidence runs the plan,
        a no drops it; None for a new request (which replaces it)."""
        doubted = conversation.doubted
        assert doubted is not None
        if reply and unsure:  # asked again, the question still waits
            said = as_sentence(self.settings.replies.say("heard.yes_or_no"))
            return [heard_step(text, said, Status.NEEDS_CONFIRMATION, waiting_for="yes")], None
        conversation.doubted = None
        if reply is None:
            return None
        request = Part(text=doubted.heard.text)
        if not reply or self.conversations.expired(doubted):
            return [self._said(request, "refused" if not reply else "expired")], None
        steps = await self.executor.run(doubted.plan, conversation.session, origin)
        conversation.context.remember(doubted.plan)
        self._keep_only_asked(conversation, steps)
        self._hold(conversation, steps)
        return steps, doubted.plan

    async def _reply(
        self, conversation: Conversation, text: str, yes: bool, origin: Origin
    ) -> list[StepResult]:
        """A yes or a no: to the waiting actions, else (a no) to a clarifying question."""
        waiting = conversation.take_waiting()
        if not waiting:
            pending = conversation.context.pending
            if pending is not None and not yes:
                conversation.context.pending = None
                return [self._said(pending.part, "refused")]
            return [self._nothing_pending(text)]
        if not yes:
            return [self._said(w.part, "refused") for w in waiting]
        live = [w.part for w in waiting if not self.conversations.expired(w)]
        late = [self._said(w.part, "expired") for w in waiting if self.conversations.expired(w)]
        done = await self.executor.carry_out(live, conversation.session, origin) if live else []
        self._hold(conversation, done)
        return late + done

    @staticmethod
    def _keep_only_asked(conversation: Conversation, steps: list[StepResult]) -> None:
        """The context waits for a choice only if the question was asked: not for a part
        of a branch that did not run ("if it rains, turn on the light")."""
        pending = conversation.context.pending
        asked = [
            r.part for s in steps for r in s.parts if r.answer.data.get("waiting_for") == "choice"
        ]
        if pending is not None and not any(pending.part is part for part in asked):
            conversation.context.pending = None

    def _hold(self, conversation: Conversation, steps: list[StepResult]) -> None:
        """Keep every action a source asked a yes for (not the questions back)."""
        now = self.conversations.clock()
        for step in steps:
            for result in step.parts:
                answer = result.answer
                if answer.status is Status.NEEDS_CONFIRMATION and "waiting_for" not in answer.data:
                    answer.data["waiting_for"] = "confirmation"
                    conversation.waiting.append(Waiting(result.part, now))

    def _said(self, part: Part, key: str) -> StepResult:
        text = as_sentence(self.settings.replies.say(key, request=part.text))
        answer = PartAnswer(text, Status.DECLINED, part.source, {"reason": key})
        return StepResult(text, [PartResult(part, answer)])

    def _nothing_pending(self, said: str) -> StepResult:
        text = as_sentence(self.settings.replies.say("nothing_pending"))
        answer = PartAnswer(text, Status.OUT_OF_SCOPE, None, {"reason": "nothing_pending"})
        return StepResult(text, [PartResult(Part(text=said), answer)])


async def _start(source: Source) -> None:
    try:
        await source.start()
    except Exception:  # start must not raise; if it does, the source answers errors later
        log.exception("the %s source failed to start", source.name)
