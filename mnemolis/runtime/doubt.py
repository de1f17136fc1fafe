"""Never act on a mishearing: what was heard with doubt is asked back before it acts.

A spoken request carries what the recogniser heard (`core.heard.Heard`). When
its confidence is under ``heard.ask_back_below`` (`sources/assistant.yaml`) and
the plan would change something, the assistant holds the whole plan and asks
"Did you say: turn off the kitchen light?", exactly as it holds an action for a
confirmation; a yes heard with confidence runs it (a lock or a garage door then
still asks its own yes), a no drops it, a new request replaces it. A plan that
only reads (a question, the time, the weather) is answered at once. Speech the
recogniser rejected (empty text) acts on nothing. Typed text has no `Heard` and
is never doubted.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from mnemolis.config import At, Config
from mnemolis.core.heard import Heard
from mnemolis.core.plan import Part, Plan
from mnemolis.runtime.answer import PartResult, StepResult
from mnemolis.sources.base import PartAnswer, Status

#: Intents that only read, answered at once even when heard with doubt.
ANSWER_DIRECTLY = (
    "clock.*",
    "weather.*",
    "knowledge.*",
    "reply.*",
    "lists.read",
    "lists.count",
    "lists.which",
    "music.now_playing",
    "music.state",
    "timer.status",
)


@dataclass(frozen=True)
class HeardSettings:
    """`heard:` in `sources/assistant.yaml`."""

    #: an action heard with a confidence under this is asked back
    ask_back_below: float = 0.6
    #: an action whose words lie over less of the speech than this is asked back: the
    #: words' posteriors do not tell a request heard right (0.76 and more of the speech
    #: covered, over the recordings and renders measured) from speech that was no
    #: request heard as one (under 0.8), this does (`voice/recognise/coverage.py`)
    ask_back_covered: float = 0.8
    #: intent names (shell patterns) that only read; device intents whose action only
    #: reads (`questions.read_actions`) need no entry
    answer_directly: tuple[str, ...] = ANSWER_DIRECTLY

    @classmethod
    def read(cls, raw: Any, at: At) -> HeardSettings:
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise at.error(
                "heard must be a mapping (ask_back_below, ask_back_covered, answer_directly)"
            )
        known = {"ask_back_below", "ask_back_covered", "answer_directly"}
        for key in raw:
            if key not in known:
                raise (at / key).error(f"unknown key {key!r} (one of {', '.join(sorted(known))})")
        shares = {}
        for key in ("ask_back_below", "ask_back_covered"):
            value = raw.get(key, getattr(cls, key))
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise (at / key).error(f"{key} must be a share from 0 to 1, not {value!r}")
            shares[key] = float(value)
        direct = raw.get("answer_directly", list(ANSWER_DIRECTLY))
        if not isinstance(direct, list) or not all(isinstance(d, str) for d in direct):
            raise (at / "answer_directly").error("answer_directly must be a list of intent names")
        return cls(shares["ask_back_below"], shares["ask_back_covered"], tuple(direct))


@dataclass
class Doubted:
    """A plan heard with doubt, waiting for "yes, that is what I said"."""

    plan: Plan
    heard: Heard
    asked_at: float


class Doubt:
    """Which hearings are doubtful, and which plans would act on one."""

    def __init__(self, config: Config, settings: HeardSettings) -> None:
        self.config = config
        self.settings = settings
        self.read_actions = set(config.questions.read_actions) or {"state"}

    def doubtful(self, heard: Heard | None) -> bool:
        """Heard, and less sure than the owner asks, or over too little of the speech
        (typed text is never doubtful): an action heard so is asked back."""
        return self.unsure(heard) or (
            heard is not None and heard.covered < self.settings.ask_back_covered
        )

    def unsure(self, heard: Heard | None) -> bool:
        """Heard with less confidence than the owner asks: a yes heard so confirms
        nothing. (How much of the speech a one-word answer covers is no sign: "next",
        "resume" said alone and heard right covered 0.79-0.80, a word's own breath
        around it.)"""
        return heard is not None and heard.confidence < self.settings.ask_back_below

    @staticmethod
    def rejected(heard: Heard | None) -> bool:
        """Spoken, but nothing was heard (silence, noise, none of the known requests)."""
        return heard is not None and not heard.text.strip()

    def part_acts(self, part: Part) -> bool:
        """A part changes something unless its intent only reads; out of scope never acts."""
        if part.intent is None:
            return False
        if any(fnmatchcase(part.intent, pattern) for pattern in self.settings.answer_directly):
            return False
        spec = self.config.intents.get(part.intent)
        if spec is not None and spec.action is not None:
            return spec.action not in self.read_actions
        return spec is None or spec.source is not None

    def acts(self, plan: Plan) -> bool:
        return any(self.part_acts(part) for part in plan.parts())


def heard_step(text: str, said: str, status: Status, **data: Any) -> StepResult:
    """One sentence about what was heard: "Did you say: ...?", "Sorry, I didn't catch that"."""
    answer = PartAnswer(said, status, None, dict(data))
    return StepResult(said, [PartResult(Part(text=text), answer)])


def did_you_say(plan: Plan, heard: Heard, question: str) -> StepResult:
    """The question back, with what would be done once the person says yes."""
    intents = [p.intent for p in plan.parts() if p.intent]
    return heard_step(
        heard.text,
        question,
        Status.NEEDS_CONFIRMATION,
        waiting_for="heard",
        heard=heard.text,
        confidence=round(heard.confidence, 3),
        intents=intents,
    )
