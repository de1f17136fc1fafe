"""The routines source: answers intents with `do:` steps and reply-only intents.

A reply-only intent ("who are you") is answered with its `say:` and status
``ok``. A routine runs its steps (`run.RoutineRun`) and answers with one
sentence: what its `say:` steps said plus what did not go to plan, or, when
it says nothing itself, every step's own sentence. Each step's status is in
``data.steps``. A routine paused on a step that needs a yes answers
``needs_confirmation``; the assistant holds the part and, on a yes, calls
again with ``confirmed``, and the run goes on from that step.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.core.sentences import as_sentence
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, Source, Status, Truth
from mnemolis.sources.routines.run import Numbered, RoutineRun, StepReport, Tools, numbered
from mnemolis.sources.routines.settings import RoutineSettings
from mnemolis.sources.routines.waits import waits

log = logging.getLogger(__name__)

SOURCE = "routines"
#: Worst first: a routine takes the worst status among the steps that ran.
SEVERITY = (Status.ERROR, Status.NOT_CONFIRMED, Status.DECLINED, Status.DONE, Status.OK)
#: Steps whose sentence is said even when all went well (a say: says it).
SAID_WHEN_WELL = (Status.OK, Status.DONE)


@dataclass
class Paused:
    """A run waiting for a yes: the part the assistant holds, and what is left."""

    part: Part
    left: list[Numbered]
    asked: set[int]


class RoutinesSource:
    """Routines and replies written in YAML."""

    name = SOURCE

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry,
        peers: Mapping[str, Source],
        settings: RoutineSettings,
    ) -> None:
        self.config = config
        self.tools = Tools(config, registry, peers, settings)
        self.settings = settings
        self._paused: OrderedDict[str, list[Paused]] = OrderedDict()

    async def start(self) -> None:
        """Nothing to connect: the steps use the other sources."""

    async def close(self) -> None:
        self._paused.clear()

    def waits_for_yes(self, part: Part) -> list[str]:
        """`base.WaitsForYes`: what of this routine would wait for a yes when it runs
        (a plan or a watch asks for it when it is set: `waits`)."""
        spec = self.config.intent(part.intent)
        return waits(self.tools, spec.steps) if spec is not None and spec.steps else []

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return Evaluation(Truth.UNKNOWN, f"{part.text} is not something I can check")

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`: what the routines use is there and reachable."""
        from mnemolis.sources.routines import doctor

        return await doctor.diagnose(self)

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        started = time.perf_counter()
        spec = self.config.intent(part.intent)
        if spec is None or spec.steps is None:
            text = f"{part.intent} is not a routine"
            return PartAnswer(text, Status.ERROR, SOURCE, {"problem": "not_a_routine"})
        paused = self._take(request.session, part) if request.confirmed else None
        if paused is not None:
            run = RoutineRun(spec, part, request, self.tools, confirmed=paused.asked)
            steps = paused.left
        else:
            run = RoutineRun(spec, part, request, self.tools)
            steps = numbered(spec.steps)
        try:
            left = await run.run(steps)
        except Exception:  # a bug in a step must not lose the steps that ran
            log.exception("the routine %s failed", spec.name)
            left = None
            run.reports.append(
                StepReport("?", "?", Status.ERROR, f"the routine {spec.name} failed")
            )
        if left is not None:
            self._keep(request.session, Paused(part, left, run.asked))
        answer = self._compose(spec.name, run.reports, waiting=left is not None)
        answer.ms = (time.perf_counter() - started) * 1000
        return answer

    def _take(self, session: str, part: Part) -> Paused | None:
        """The paused run of this very part (the one the assistant held), if any."""
        waiting = self._paused.get(session, [])
        found = next((p for p in waiting if p.part is part), None)
        if found is not None:
            waiting.remove(found)
        return found

    def _keep(self, session: str, paused: Paused) -> None:
        """Keep a paused run (several per conversation: "welcome home and party time")."""
        self._paused.setdefault(session, []).append(paused)
        self._paused.move_to_end(session)
        while sum(len(v) for v in self._paused.values()) > self.settings.paused_max:
            oldest = next(iter(self._paused))
            self._paused[oldest].pop(0)
            if not self._paused[oldest]:
                del self._paused[oldest]

    def _compose(self, name: str, reports: list[StepReport], waiting: bool) -> PartAnswer:
        """One answer: what was said, then what did not go to plan, in step order."""
        speaks = any(r.spoken for r in reports)
        texts = [
            r.text
            for r in reports
            if r.text and (not speaks or r.spoken or r.status not in SAID_WHEN_WELL)
        ]
        text = " ".join(as_sentence(t) for t in texts) or self.settings.say("silent_reply")
        if waiting:
            status = Status.NEEDS_CONFIRMATION
        elif reports:
            status = min((r.status for r in reports), key=_severity)
        else:
            status = Status.OK
        data: dict[str, Any] = {"routine": name, "steps": [r.to_dict() for r in reports]}
        if waiting:
            data["waiting_at"] = next(
                (r.step for r in reports if r.status is Status.NEEDS_CONFIRMATION), None
            )
        return PartAnswer(text, status, SOURCE, data, {"routine": name})


def _severity(status: Status) -> int:
    return SEVERITY.index(status) if status in SEVERITY else 0
