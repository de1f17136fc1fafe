"""What one query comes to: per part what happened, and the reply to say.

`execute` fills `PartResult`s and `StepResult`s; `merge` turns them into an
`Answer`, whose `to_dict` is the structured result front-ends print
(`mnemolis ask --json`) or send (the daemon), and whose `outcome` is what an
exit status or an HTTP code is made of.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Status

#: Statuses that count as answered: a fact said, an action done, a refusal by rule
#: or by the person (a branch that did not run is declined too).
ANSWERED = frozenset({Status.OK, Status.DONE, Status.DECLINED})
#: Statuses of a part that went wrong in a source.
FAILED = frozenset({Status.ERROR, Status.NOT_CONFIRMED})


class Role(enum.StrEnum):
    """Where a part stands in a conditional step."""

    CONDITION = "if"
    THEN = "then"
    ELSE = "else"


class Outcome(enum.StrEnum):
    """The answer as a whole; `mnemolis ask` turns it into its exit status."""

    ANSWERED = "answered"  # every part answered
    PARTIAL = "partial"  # some parts answered, some failed or were out of scope
    FAILED = "failed"  # parts were understood, but none could be answered
    NOT_UNDERSTOOD = "not_understood"  # nothing Mnemolis serves was asked
    WAITING = "waiting"  # a yes or a choice is needed in the next turn


@dataclass
class PartResult:
    """One part of the plan and how it ended."""

    part: Part
    answer: PartAnswer
    role: Role | None = None  # set for the parts of a conditional
    branch: str | None = None  # the branch that ran: "then", "else" or "none"
    ran: bool = True  # False for a branch part that did not run

    @property
    def status(self) -> Status:
        return self.answer.status

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.answer.text,
            "asked": self.part.text,
            "intent": self.part.intent,
            "source": self.answer.source or self.part.source,
            "status": str(self.answer.status),
            "data": self.answer.data,
            "provenance": {
                "understanding": dict(self.part.provenance),
                "source": dict(self.answer.provenance),
            },
            "ms": round(self.answer.ms, 1),
        }
        if self.role is not None:
            out["role"] = str(self.role)
            out["branch"] = self.branch
            out["ran"] = self.ran
        return out


@dataclass
class StepResult:
    """One step of the plan (a part, or a whole conditional) and what to say for it."""

    text: str
    parts: list[PartResult]


@dataclass
class Answer:
    """The merged reply and the structured result behind it."""

    query: str
    text: str
    parts: list[PartResult] = field(default_factory=list)
    ms: float = 0.0
    notes: list[str] = field(default_factory=list)
    session: str = "default"

    @property
    def outcome(self) -> Outcome:
        statuses = [p.status for p in self.parts if p.ran]
        in_scope = [s for s in statuses if s is not Status.OUT_OF_SCOPE]
        if not in_scope:
            return Outcome.NOT_UNDERSTOOD
        answered = sum(s in ANSWERED for s in statuses)
        failed = sum(s in FAILED or s is Status.OUT_OF_SCOPE for s in statuses)
        if failed and not answered and Status.NEEDS_CONFIRMATION not in statuses:
            return Outcome.FAILED
        if failed:
            return Outcome.PARTIAL
        if Status.NEEDS_CONFIRMATION in statuses:
            return Outcome.WAITING
        return Outcome.ANSWERED

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "answer": self.text,
            "parts": [p.to_dict() for p in self.parts],
            "ms": round(self.ms, 1),
            "outcome": str(self.outcome),
            "notes": list(self.notes),
        }
