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
class Part:
    """One routed request: "turn off the kitchen light"."""

    text: str
    intent: str | None = None
    source: str | None = None
    slots: dict[str, SlotValue] = field(default_factory=dict)
    confidence: float = 0.0
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def in_scope(self) -> bool:
        return self.intent is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "intent": self.intent,
            "source": self.source,
            "slots": dict(self.slots),
            "confidence": round(self.confidence, 3),
            "provenance": dict(self.provenance),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Part:
        return cls(
            text=str(data.get("text", "")),
            intent=data.get("intent"),
            source=data.get("source"),
            slots=dict(data.get("slots") or {}),
            confidence=float(data.get("confidence", 0.0)),
            provenance=dict(data.get("provenance") or {}),
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
