"""Every intent example run as a test: what `mnemolis check` and `mnemolis doctor` report,
and examples two intents match equally, where only the file order would choose."""

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
            path = ex.path or intent.path
            where = f"{path}:{ex.line}" if ex.line else path
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


#: Scores closer than this are equal.
TIE = 1e-9


def ambiguous_examples(config: Config, understander: Understander) -> list[str]:
    """Examples whose best two intents score the same at the same priority: which one
    answers is decided by nothing but the order of the files. Two declined intents
    (source null) that tie do nothing either way, and are let be."""
    out = []
    router = understander.router
    for intent in config.intents.values():
        for ex in intent.examples:
            text = understander.normalizer.normalize(ex.text).text
            if not any(ch.isalnum() for ch in text):
                continue
            a = understander.analyzer.analyze(text)
            found = router.candidates(a, 0, len(a.tokens))
            if len(found) < 2 or found[0].score < router.floor:
                continue
            best, runner = found[0], found[1]
            if best.intent.source is None and runner.intent.source is None:
                continue
            if (
                abs(best.score - runner.score) > TIE
                or best.intent.priority != runner.intent.priority
            ):
                continue
            path = ex.path or intent.path
            where = f"{path}:{ex.line}" if ex.line else path
            other = runner.intent if best.intent.name == intent.name else best.intent
            other_at = f"{other.path}:{other.line}" if other.line else other.path
            out.append(
                f"{where}: {ex.text!r} is matched as well by {other.name} ({other_at}) as by "
                f"{intent.name if other is runner.intent else runner.intent.name}, at the same "
                "priority; give one a higher priority or a longer phrase"
            )
    return out
