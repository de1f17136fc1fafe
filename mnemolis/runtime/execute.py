"""Run a Plan: the only place where understanding meets I/O.

Independent steps run concurrently; steps that touch the same device run in
the order they were asked ("turn on the porch light and then turn it off").
Every call to a source runs under that source's deadline (from its own
YAML) and within the deadline of the whole answer. A source that is missing,
slow or raises becomes a part answer with status ``error`` and a sentence
that says so; it never hides the other parts.

A conditional asks its source to evaluate the condition now (true, false or
unknown; ``negate`` flips true and false), runs ``then`` or ``else``, and
says which. What is meant for later goes to the source that keeps such things
(`KeepsForLater`, the timers source): a part with a schedule ("in 5 minutes
turn off the porch light") is set there instead of run now, and a ``when``
condition becomes a watch there. Without such a source, neither runs now: the
answer says it cannot wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from mnemolis.core.origin import Origin
from mnemolis.core.plan import Conditional, Part, Plan, Step
from mnemolis.core.sentences import as_sentence, clause
from mnemolis.runtime.answer import PartResult, Role, StepResult
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.sources.base import (
    Evaluation,
    KeepsForLater,
    PartAnswer,
    Request,
    Source,
    Status,
    Truth,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The source whose parts name devices; two steps on one device keep their order.
DEVICE_SOURCE = "mqtt"
#: Sources whose parts act on devices they do not name (a routine): they keep their
#: order with every device step.
ANY_DEVICE_SOURCES = ("routines",)
#: Stands for "some device" when a device part names none (a room, or a question back).
ANY_DEVICE = "*"
#: A call with less time left than this is not started: it could only time out.
MIN_CALL_S = 0.05
FLIP = {Truth.TRUE: Truth.FALSE, Truth.FALSE: Truth.TRUE, Truth.UNKNOWN: Truth.UNKNOWN}


@dataclass
class Budget:
    """The deadline of the whole answer, on the event loop's clock."""

    deadline: float

    @classmethod
    def of(cls, seconds: float) -> Budget:
        return cls(asyncio.get_running_loop().time() + seconds)

    def remaining(self) -> float:
        return self.deadline - asyncio.get_running_loop().time()


@dataclass
class Turn:
    """What every step of one run shares."""

    budget: Budget
    session: str
    confirmed: bool = False  # the person said yes to these parts
    question: str | None = None  # understanding's clarifying question (`Plan.clarify`) ...
    asks: Part | None = None  # ... and the part it asks about
    origin: Origin = field(default_factory=Origin)  # who asked, from where


#: A step, ready to start: the devices it touches, and how to run it.
Job = tuple[set[str], Callable[[], Awaitable[StepResult]]]


def touched_devices(step: Step) -> set[str]:
    """The devices a step reads or changes; `ANY_DEVICE` when a device part names none."""
    parts = [step] if isinstance(step, Part) else [step.condition, *step.then, *step.otherwise]
    keys: set[str] = set()
    for part in parts:
        if part.source in ANY_DEVICE_SOURCES:
            keys.add(ANY_DEVICE)
        if part.source != DEVICE_SOURCE:
            continue
        device = part.slots.get("device")
        if isinstance(device, str):
            keys.add(device)
        elif isinstance(device, list) and device:
            keys.update(str(d) for d in device)
        else:
            keys.add(ANY_DEVICE)
    return keys


def _conflict(a: set[str], b: set[str]) -> bool:
    if not a or not b:
        return False
    return bool(a & b) or ANY_DEVICE in a or ANY_DEVICE in b


def needs_choice(part: Part) -> bool:
    """Understanding found several devices and asks which one (`Plan.clarify`)."""
    return bool(part.provenance.get("options")) and "device" not in part.slots


class Executor:
    """Runs plans against the sources; holds no conversation state."""

    def __init__(self, sources: Mapping[str, Source], settings: AssistantSettings) -> None:
        self.sources = dict(sources)
        self.settings = settings
        self.replies = settings.replies
        #: where parts meant for later go (the timers source), if it runs
        self.keeper = next((s for s in self.sources.values() if isinstance(s, KeepsForLater)), None)

    # ------------------------------------------------------------------ entry points

    async def run(
        self, plan: Plan, session: str = "default", origin: Origin | None = None
    ) -> list[StepResult]:
        """Every step of ``plan``, in the order asked, within the overall deadline."""
        asks = next((p for p in plan.parts() if needs_choice(p)), None)
        origin = origin or Origin(session=session)
        turn = Turn(Budget.of(self.settings.deadline_s), session, False, plan.clarify, asks, origin)
        return await self._in_order(
            [self._job(step, turn) for step in plan.steps], plan.steps, turn
        )

    async def carry_out(
        self,
        parts: Sequence[Part],
        session: str = "default",
        origin: Origin | None = None,
        confirmed: bool = True,
    ) -> list[StepResult]:
        """Parts the person confirmed with a yes (each source is called with confirmed=True),
        or, ``confirmed=False``, parts that came due without one (a plan)."""
        origin = origin or Origin(session=session)
        turn = Turn(Budget.of(self.settings.deadline_s), session, confirmed, origin=origin)
        return await self._in_order([self._job(part, turn) for part in parts], parts, turn)

    # ------------------------------------------------------------------ scheduling

    def _job(self, step: Step, turn: Turn) -> Job:
        if isinstance(step, Conditional):
            return touched_devices(step), lambda: self._conditional(step, turn)
        if needs_choice(step):
            question = turn.question if step is turn.asks else None
            return touched_devices(step), lambda: self._ask_back(step, question)

        async def job() -> StepResult:
            answer = await self._answer(step, turn)
            return StepResult(answer.text, [PartResult(step, answer)])

        return touched_devices(step), job

    async def _in_order(
        self, jobs: Sequence[Job], steps: Sequence[Step], turn: Turn
    ) -> list[StepResult]:
        """Start every job at once, except that a job waits for earlier ones on its devices;
        whatever is still running at the deadline is cancelled and said to have timed out."""
        tasks: list[asyncio.Task[StepResult]] = []
        for i, (keys, job) in enumerate(jobs):
            before = [tasks[j] for j in range(i) if _conflict(keys, jobs[j][0])]
            tasks.append(asyncio.ensure_future(self._after(before, job)))
        if not tasks:
            return []
        try:
            await asyncio.wait(
                tasks, timeout=max(0.0, turn.budget.remaining()) + self.settings.grace_s
            )
        finally:  # the deadline passed, or this run itself was cancelled: nothing runs on
            late = [task for task in tasks if not task.done()]
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
        results = []
        for task, step in zip(tasks, steps, strict=True):
            if task.cancelled():
                seconds = _seconds(self.settings.deadline_s)
                results.append(self._lost(step, "timeout", seconds=seconds))
            elif task.exception() is not None:
                log.error("a step failed", exc_info=task.exception())
                results.append(self._lost(step, "failed", reason=repr(task.exception())))
            else:
                results.append(task.result())
        return results

    @staticmethod
    async def _after(before: list[asyncio.Task[StepResult]], job: Callable[[], Awaitable[T]]) -> T:
        if before:
            await asyncio.wait(before)
        return await job()

    def _lost(self, step: Step, key: str, **fields: Any) -> StepResult:
        """A step that never finished: every one of its parts is an error."""
        parts = [step] if isinstance(step, Part) else [step.condition, *step.then, *step.otherwise]
        results = [PartResult(p, self._error(p, key, **fields)) for p in parts]
        return StepResult(results[0].answer.text, results)

    # ------------------------------------------------------------------ one part

    def _timeout(self, part: Part, turn: Turn) -> float | None:
        """The source's own deadline, cut to what is left of the answer's; None: no time left."""
        timeout = min(self.settings.timeout_for(part.source), turn.budget.remaining())
        return timeout if timeout >= MIN_CALL_S else None

    async def _answer(self, part: Part, turn: Turn) -> PartAnswer:
        if part.revert is not None:
            return await self._with_revert(part, part.revert, turn)
        if not part.in_scope:
            return self._out_of_scope(part)
        if part.schedule is not None and part.source != getattr(self.keeper, "name", None):
            if self.keeper is None:  # never run now what was asked for later
                return self._error(part, "cannot_wait")
            part = self.keeper.keep(part)
        source = self.sources.get(part.source or "")
        if source is None:
            return self._error(part, "no_source")
        timeout = self._timeout(part, turn)
        if timeout is None:
            return self._error(part, "out_of_time")
        request = Request(
            session=turn.session, confirmed=turn.confirmed, timeout_s=timeout, origin=turn.origin
        )
        started = time.perf_counter()
        answer = await self._guarded(source.answer(part, request), part, timeout)
        if not isinstance(answer, PartAnswer):
            log.error("the %s source answered %r with %r", part.source, part.text, answer)
            answer = self._error(part, "failed", reason=type(answer).__name__)
        answer.ms = (time.perf_counter() - started) * 1000
        answer.source = answer.source or source.name
        answer.text = as_sentence(answer.text) or as_sentence(
            self.replies.say("silent", source=part.source, request=part.text)
        )
        return answer

    async def _with_revert(self, part: Part, revert: Part, turn: Turn) -> PartAnswer:
        """ "Turn on the fan for 10 minutes": the action now and, once it is carried out,
        what puts it back, kept for then. Without a keeper neither runs."""
        if self.keeper is None:
            return self._error(part, "cannot_wait")
        answer = await self._answer(replace(part, revert=None), turn)
        if answer.status not in (Status.DONE, Status.NOT_CONFIRMED):
            return answer  # not done (asked which one, declined, failed): nothing to put back
        kept = await self._answer(revert, turn)
        answer.text = f"{answer.text} {kept.text}"
        answer.data = {**answer.data, "revert": kept.to_dict()}
        return answer

    async def _guarded(self, call: Awaitable[T], part: Part, timeout: float) -> T | PartAnswer:
        """``call`` under ``timeout`` (plus grace for the source's own sentence); a timeout
        or an exception becomes an error answer, logged."""
        try:
            return await asyncio.wait_for(call, timeout + self.settings.grace_s)
        except TimeoutError:
            log.warning("the %s source timed out on %r", part.source, part.text[:120])
            return self._error(part, "timeout", seconds=_seconds(timeout))
        except Exception as exc:
            log.exception("the %s source failed on %r", part.source, part.text[:120])
            return self._error(part, "failed", reason=f"{type(exc).__name__}: {exc}")

    def _out_of_scope(self, part: Part) -> PartAnswer:
        declined = part.provenance.get("declined")
        if declined:
            text = self.replies.declined(str(declined))
            return PartAnswer(as_sentence(text), Status.OUT_OF_SCOPE, None, {"declined": declined})
        text = self.replies.say("not_understood", request=part.text)
        return PartAnswer(as_sentence(text), Status.OUT_OF_SCOPE, None, {})

    def _error(self, part: Part, key: str, **fields: Any) -> PartAnswer:
        text = self.replies.say(key, source=part.source, request=part.text, **fields)
        return PartAnswer(as_sentence(text), Status.ERROR, part.source, {"problem": key})

    async def _ask_back(self, part: Part, question: str | None) -> StepResult:
        """A device part that named none of several: the clarifying question, held for
        the next turn by the conversation's context."""
        options = list(part.provenance.get("options") or [])
        text = question or self.replies.say("clarify_again", request=part.text)
        data = {"waiting_for": "choice", "options": options}
        answer = PartAnswer(as_sentence(text), Status.NEEDS_CONFIRMATION, part.source, data)
        return StepResult(answer.text, [PartResult(part, answer)])

    # ------------------------------------------------------------------ conditionals

    async def _evaluate(self, part: Part, turn: Turn) -> tuple[Evaluation, float]:
        started = time.perf_counter()
        source = self.sources.get(part.source or "")
        timeout = self._timeout(part, turn)
        if source is None or timeout is None:
            key = "no_source" if source is None else "out_of_time"
            return Evaluation(Truth.UNKNOWN, self._error(part, key).text), 0.0
        request = Request(session=turn.session, timeout_s=timeout, origin=turn.origin)
        found = await self._guarded(source.evaluate(part, request), part, timeout)
        if isinstance(found, PartAnswer):
            found = Evaluation(Truth.UNKNOWN, found.text, {"problem": found.data.get("problem")})
        elif not isinstance(found, Evaluation):
            log.error("the %s source evaluated %r to %r", part.source, part.text, found)
            found = Evaluation(Truth.UNKNOWN, self._error(part, "failed", reason="?").text)
        return found, (time.perf_counter() - started) * 1000

    async def _conditional(self, step: Conditional, turn: Turn) -> StepResult:
        cond = step.condition
        everything = [*step.then, *step.otherwise]
        requested = self._joined([p.text for p in everything])
        if step.is_future and cond.in_scope and self.keeper is not None:
            return await self._kept(step, turn)
        if step.is_future or not cond.in_scope:
            key = "condition.future" if step.is_future else "condition.cannot_check"
            text = as_sentence(self.replies.say(key, asked=cond.text, request=requested))
            declined = PartAnswer(text, Status.OUT_OF_SCOPE, cond.source, {"trigger": step.trigger})
            head = PartResult(cond, declined, Role.CONDITION, "none")
            return StepResult(text, [head, *self._not_run(step, "none")])
        evaluation, ms = await self._evaluate(cond, turn)
        truth = FLIP[evaluation.truth] if step.negate else evaluation.truth
        chosen, role = (
            (step.then, Role.THEN) if truth is Truth.TRUE else (step.otherwise, Role.ELSE)
        )
        branch = str(role) if truth is not Truth.UNKNOWN and chosen else "none"
        known = evaluation.truth is not Truth.UNKNOWN
        data = {
            **evaluation.data,
            "truth": str(evaluation.truth),
            "negate": step.negate,
            "trigger": step.trigger,
        }
        said = evaluation.text or cond.text
        cond_answer = PartAnswer(
            as_sentence(said), Status.OK if known else Status.ERROR, cond.source, data, ms=ms
        )
        head = PartResult(cond, cond_answer, Role.CONDITION, branch)
        if not known:
            text = self.replies.say("condition.unknown", asked=cond.text, request=requested)
            text = as_sentence(text) + (" " + as_sentence(said) if evaluation.text else "")
            return StepResult(text, [head, *self._not_run(step, branch)])
        if not chosen:
            text = as_sentence(self.replies.say("condition.skipped", condition=clause(said)))
            return StepResult(text, [head, *self._not_run(step, branch)])
        ran = await self._in_order([self._job(p, turn) for p in chosen], chosen, turn)
        results = [r for step_result in ran for r in step_result.parts]
        for result in results:
            result.role, result.branch = role, branch
        text = self._taken(cond, said, results)
        every = [*results, *self._not_run(step, branch, skip=chosen)]
        every.sort(key=lambda r: next(i for i, p in enumerate(everything) if p is r.part))
        return StepResult(text, [head, *every])

    async def _kept(self, step: Conditional, turn: Turn) -> StepResult:
        """A ``when`` conditional, handed to the keeper to wait for: its answer (set, or
        a question for a yes) stands for the step; the branch waits."""
        assert self.keeper is not None
        kept = self.keeper.keep(step)
        answer = await self._answer(kept, turn)
        head = PartResult(kept, answer, Role.CONDITION, "none")
        later = []
        for part in step.then:
            text = self.replies.say("condition.later", request=part.text, asked=step.condition.text)
            waits = PartAnswer(as_sentence(text), Status.OK, part.source, {"ran": False})
            later.append(PartResult(part, waits, Role.THEN, "none", ran=False))
        return StepResult(answer.text, [head, *later, *self._not_run(step, "none", step.then)])

    def _taken(self, cond: Part, said: str, results: list[PartResult]) -> str:
        """ "the back door is unlocked, so I locked it", then whatever did not go to plan."""
        did: list[str] = []
        other: list[str] = []
        for result in results:
            phrase = self._did(cond, result)
            if phrase is None:
                other.append(as_sentence(result.answer.text))
            else:
                did.append(phrase)
        if did:
            done = self._joined(did)
            first = self.replies.say("condition.taken", condition=clause(said), did=done)
        else:
            first = said
        return " ".join([as_sentence(first), *other])

    def _did(self, cond: Part, result: PartResult) -> str | None:
        """What an action did, in the words of `replies.did`; None to say its own sentence."""
        data = result.answer.data
        action, device = data.get("action"), data.get("device")
        if result.answer.status is not Status.DONE or not isinstance(device, str):
            return None
        key = f"did.{action}"
        if not self.replies.has(key):
            return None
        same = cond.slots.get("device") == device
        subject = self.replies.say("condition.it") if same else f"the {device}"
        return self.replies.say(key, subject=subject)

    def _not_run(
        self, step: Conditional, branch: str, skip: Sequence[Part] = ()
    ) -> list[PartResult]:
        out = []
        for role, parts in ((Role.THEN, step.then), (Role.ELSE, step.otherwise)):
            for part in parts:
                if any(part is s for s in skip):
                    continue
                text = as_sentence(self.replies.say("condition.not_run", request=part.text))
                answer = PartAnswer(text, Status.DECLINED, part.source, {"ran": False})
                out.append(PartResult(part, answer, role, branch, ran=False))
        return out

    def _joined(self, phrases: Sequence[str]) -> str:
        return f" {self.replies.say('condition.and')} ".join(phrases)


def _seconds(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")
