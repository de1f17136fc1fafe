"""Every intent example run as a test: what `mnemolis check` and `mnemolis doctor` report."""

from __future__ import annotations

from typing import Any

from mnemolis.config import Config
from mnemolis.plan import Part
from mnemolis.understand import Understander


def _slot_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.lower() == actual.lower()
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    return bool(expected == actual)


def run_examples(config: Config, understander: Understander) -> list[str]:
    """Every intent example as a test: the intent, and the slots it names."""
    failures = []
    for intent in config.intents.values():
        for ex in intent.examples:
            plan = understander.understand(ex.text)
            parts = [s for s in plan.steps if isinstance(s, Part)]
            where = f"{intent.path}:{ex.line}" if ex.line else intent.path
            if len(plan.steps) != 1 or not parts:
                shape = f"{len(plan.steps)} steps" if len(plan.steps) != 1 else "a conditional"
                failures.append(f"{where}: {ex.text!r} gave {shape}, expected one part")
                continue
            part = parts[0]
            expected_intent = ex.intent if ex.intent is not None else None
            if part.intent != expected_intent:
                failures.append(
                    f"{where}: {ex.text!r} -> {part.intent}, expected {expected_intent}"
                )
                continue
            for slot, value in ex.slots.items():
                if not _slot_equal(value, part.slots.get(slot)):
                    failures.append(
                        f"{where}: {ex.text!r} slot {slot} = {part.slots.get(slot)!r}, "
                        f"expected {value!r}"
                    )
    return failures
