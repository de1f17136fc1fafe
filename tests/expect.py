"""Expected plans, written compactly for table-driven sentence tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.plan import Conditional, Part, Plan

ANY = object()


@dataclass
class P:
    """An expected part: its intent, the slots it must have, optionally its text."""

    intent: str | None
    slots: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    absent: tuple[str, ...] = ()  # slots that must not be there

    def __init__(
        self,
        intent: str | None,
        text: str | None = None,
        absent: tuple[str, ...] = (),
        **slots: Any,
    ) -> None:
        self.intent = intent
        self.text = text
        self.absent = absent
        self.slots = slots


@dataclass
class C:
    """An expected conditional."""

    cond: P
    then: list[P]
    otherwise: list[P] = field(default_factory=list)
    negate: bool = False
    trigger: str = "if"


def _same(expected: Any, actual: Any) -> bool:
    if expected is ANY:
        return actual is not None
    if isinstance(expected, list) and isinstance(actual, list):
        return sorted(map(str, expected)) == sorted(map(str, actual))
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.lower() == actual.lower()
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    return bool(expected == actual)


def part_problems(expected: P, part: Part, where: str) -> list[str]:
    problems = []
    if part.intent != expected.intent:
        problems.append(f"{where}: intent {part.intent!r}, expected {expected.intent!r}")
    if expected.text is not None and part.text.lower() != expected.text.lower():
        problems.append(f"{where}: text {part.text!r}, expected {expected.text!r}")
    for name, value in expected.slots.items():
        if not _same(value, part.slots.get(name)):
            problems.append(f"{where}: slot {name}={part.slots.get(name)!r}, expected {value!r}")
    for name in expected.absent:
        if name in part.slots:
            problems.append(f"{where}: slot {name}={part.slots[name]!r} should be absent")
    return problems


def plan_problems(expected: list[P | C], plan: Plan) -> list[str]:
    """Everything that differs between the expected steps and the plan."""
    if len(expected) != len(plan.steps):
        got = [s.to_dict() for s in plan.steps]
        return [f"{len(plan.steps)} steps, expected {len(expected)}: {got}"]
    problems: list[str] = []
    for n, (exp, step) in enumerate(zip(expected, plan.steps, strict=True), 1):
        if isinstance(exp, P):
            if not isinstance(step, Part):
                problems.append(f"step {n}: a conditional, expected a part")
                continue
            problems += part_problems(exp, step, f"step {n}")
            continue
        if not isinstance(step, Conditional):
            problems.append(f"step {n}: a part {step.to_dict()}, expected a conditional")
            continue
        problems += part_problems(exp.cond, step.condition, f"step {n} if")
        if step.negate != exp.negate:
            problems.append(f"step {n}: negate {step.negate}, expected {exp.negate}")
        if step.trigger != exp.trigger:
            problems.append(f"step {n}: trigger {step.trigger}, expected {exp.trigger}")
        for label, want, got in (
            ("then", exp.then, step.then),
            ("else", exp.otherwise, step.otherwise),
        ):
            if len(want) != len(got):
                problems.append(
                    f"step {n} {label}: {len(got)} parts, expected {len(want)}: "
                    f"{[p.to_dict() for p in got]}"
                )
                continue
            for k, (w, g) in enumerate(zip(want, got, strict=True), 1):
                problems += part_problems(w, g, f"step {n} {label} {k}")
    return problems
