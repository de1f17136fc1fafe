"""Sentence rows for the sources that read a part's words themselves (music, lists).

A row says what understanding must make of a sentence (each part's intent
and slots, as `expect.P`) and what the source must read in each part (the
name to play and its kind, the volume, the items and the list), so one row
pins the whole request down, not only its routing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.understand import Understander
from tests.expect import P, plan_problems


@dataclass
class R:
    """An expected part, and what its source reads in it (``read``: a subset)."""

    intent: str | None
    read: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, Any] = field(default_factory=dict)

    def __init__(self, intent: str | None, read: dict[str, Any] | None = None, **slots: Any):
        self.intent = intent
        self.read = read or {}
        self.slots = slots


Reader = Callable[[Part], dict[str, Any]]


def row_problems(
    understander: Understander, query: str, expected: list[R], reader: Reader
) -> list[str]:
    plan = understander.understand(query)
    problems = plan_problems([P(e.intent, **e.slots) for e in expected], plan)
    if problems:
        return problems
    for n, (want, part) in enumerate(zip(expected, plan.parts(), strict=True), 1):
        got = reader(part) if want.read else {}
        for key, value in want.read.items():
            if got.get(key) != value:
                problems.append(
                    f"part {n} {part.text!r}: read {key}={got.get(key)!r}, "
                    f"expected {value!r} (all: {got})"
                )
    return problems


def unasked(config: Config, source: str, rows: list[tuple[str, list[R]]]) -> set[str]:
    """The intents of ``source`` that no row asks for."""
    asked = {r.intent for _, expected in rows for r in expected}
    return {n for n, spec in config.intents.items() if spec.source == source} - asked
