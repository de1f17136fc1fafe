"""The Plan: what understanding hands to execution.

A Plan is plain data. Every part carries its text, intent, source, slots and
confidence, and where each of them came from, so that `mnemolis parse` can
print it and tests can compare it without running anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SlotValue = Any


@dataclass
class When:
    """A time a request names, as spoken: after a duration ("in 5 minutes") or at a
    clock time on a day ("at 11 pm", "at 6:30 tomorrow"). Understanding cannot know
    the time now; the timers source turns this into an instant in the clock's zone."""

    after_s: float | None = None  # "in 5 minutes": 300
    hour: int | None = None  # 0-23
    minute: int = 0
    am_or_pm: bool = False  # "at 7": 7:00 or 19:00, whichever comes first
    day: str | None = None  # the day slot's value: "tomorrow", "monday" ...
    vague: str | None = None  # "at sunset", "this evening": a time no clock can place yet
    text: str = ""  # the words that said it

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.after_s is not None:
            out["after_s"] = self.after_s
        if self.hour is not None:
            out["hour"], out["minute"] = self.hour, self.minute
        if self.am_or_pm:
            out["am_or_pm"] = True
        if self.day is not None:
            out["day"] = self.day
        if self.vague is not None:
            out["vague"] = self.vague
        out["text"] = self.text
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> When:
        after, hour = data.get("after_s"), data.get("hour")
        day, vague = data.get("day"), data.get("vague")
        return cls(
            after_s=float(after) if isinstance(after, int | float) else None,
            hour=int(hour) if isinstance(hour, int) else None,
            minute=int(data.get("minute") or 0),
            am_or_pm=bool(data.get("am_or_pm", False)),
            day=str(day) if day is not None else None,
            vague=str(vague) if vague is not None else None,
            text=str(data.get("text") or ""),
        )


@dataclass
class Part:
    """One routed request: "turn off the kitchen light"."""

    text: str
    intent: str | None = None
    source: str | None = None
    slots: dict[str, SlotValue] = field(default_factory=dict)
    confidence: float = 0.0
    provenance: dict[str, Any] = field(default_factory=dict)
    schedule: When | None = None  # "... in 5 minutes": run it then, not now
    #: "turn on the fan for 10 minutes": what puts it back, scheduled, once this part is done
    revert: Part | None = None

    @property
    def in_scope(self) -> bool:
        return self.intent is not None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "text": self.text,
            "intent": self.intent,
            "source": self.source,
            "slots": dict(self.slots),
            "confidence": round(self.confidence, 3),
            "provenance": dict(self.provenance),
        }
        if self.schedule is not None:
            out["schedule"] = self.schedule.to_dict()
        if self.revert is not None:
            out["revert"] = self.revert.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Part:
        return cls(
            text=str(data.get("text", "")),
            intent=data.get("intent"),
            source=data.get("source"),
            slots=dict(data.get("slots") or {}),
            confidence=float(data.get("confidence", 0.0)),
            provenance=dict(data.get("provenance") or {}),
            schedule=When.from_dict(data["schedule"]) if data.get("schedule") else None,
            revert=Part.from_dict(data["revert"]) if data.get("revert") else None,
        )


@dataclass
class Conditional:
    """``if <condition> then <parts> else <parts>``.

    ``trigger`` is the word that opened the condition ("if", "unless",
    "should", "in case", "when"). ``when`` names a future trigger, which
    cannot be checked now; execution says so instead of pretending.
    """

    condition: Part
    then: list[Part] = field(default_factory=list)
    otherwise: list[Part] = field(default_factory=list)
    negate: bool = False
    trigger: str = "if"

    @property
    def is_future(self) -> bool:
        return self.trigger == "when"

    def to_dict(self) -> dict[str, Any]:
        return {
            "if": self.condition.to_dict(),
            "negate": self.negate,
            "then": [p.to_dict() for p in self.then],
            "else": [p.to_dict() for p in self.otherwise],
            "trigger": self.trigger,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Conditional:
        return cls(
            condition=Part.from_dict(data["if"]),
            then=[Part.from_dict(p) for p in data.get("then", [])],
            otherwise=[Part.from_dict(p) for p in data.get("else", [])],
            negate=bool(data.get("negate", False)),
            trigger=str(data.get("trigger", "if")),
        )


Step = Part | Conditional


def step_from_dict(data: dict[str, Any]) -> Step:
    return Conditional.from_dict(data) if "if" in data else Part.from_dict(data)


@dataclass
class Plan:
    """Everything understanding concluded about one query."""

    query: str
    steps: list[Step] = field(default_factory=list)
    clarify: str | None = None
    normalized: str = ""
    notes: list[str] = field(default_factory=list)

    def parts(self) -> list[Part]:
        """Every part in spoken order, conditions included."""
        out: list[Part] = []
        for step in self.steps:
            if isinstance(step, Conditional):
                out.append(step.condition)
                out.extend(step.then)
                out.extend(step.otherwise)
            else:
                out.append(step)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "steps": [s.to_dict() for s in self.steps],
            "clarify": self.clarify,
            "normalized": self.normalized,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Plan:
        return cls(
            query=str(data.get("query", "")),
            steps=[step_from_dict(s) for s in data.get("steps", [])],
            clarify=data.get("clarify"),
            normalized=str(data.get("normalized", "")),
            notes=list(data.get("notes") or []),
        )
