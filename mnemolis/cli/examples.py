"""Every intent example run as a test: what `mnemolis check` and `mnemolis doctor` report
(a shipped example over an owner's home as far as `example_scope` says), and examples two
intents match equally, where only the file order would choose."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mnemolis.cli.example_scope import HOME_SLOT_TYPES, HomeScope, Scope
from mnemolis.cli.example_why import why_intent, why_split, why_values
from mnemolis.config import Config
from mnemolis.config.intents import Example
from mnemolis.core.plan import Part
from mnemolis.understand import Understander


def _slot_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.lower() == actual.lower()
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    return bool(expected == actual)


@dataclass
class ExampleRun:
    """The failures, and how far the shipped examples were checked over this home."""

    failures: list[str] = field(default_factory=list)
    owner: int = 0  # the owner's own examples, checked in full
    scopes: Counter[Scope] = field(default_factory=Counter)  # the shipped ones, by scope

    @property
    def run(self) -> int:
        return self.owner + self.scopes[Scope.FULL] + self.scopes[Scope.INTENT]

    def summary(self) -> str:
        """The "200/214 examples pass" line; over an owner's home, how far shipped ones ran."""
        passed = f"{self.run - len(self.failures)}/{self.run} examples pass"
        if not self.owner and not self.scopes[Scope.INTENT] and not self.scopes[Scope.DEMO]:
            return passed
        shipped = ", ".join(
            f"{self.scopes[s]} {s.value}" for s in Scope if s is not Scope.OWNER or self.scopes[s]
        )
        return f"shipped examples over this home: {shipped}; {self.owner} the owner's; {passed}"


def run_examples(config: Config, understander: Understander) -> ExampleRun:
    """Every intent example as a test: the intent, and the slots it names (a shipped
    example over an owner's home as far as it does not depend on the home)."""
    home = HomeScope.of(config, understander.registry)
    out = ExampleRun()
    for intent in config.intents.values():
        for ex in intent.examples:
            spoken = understander.normalizer.normalize(ex.text).text
            scope = home.scope(ex, intent.path, spoken)
            if home.shipped(ex, intent.path) and home.given_up(intent.name, spoken):
                scope = Scope.OWNER
            if home.shipped(ex, intent.path):
                out.scopes[scope] += 1
            else:
                out.owner += 1
            if scope in (Scope.FULL, Scope.INTENT):
                out.failures += _failures(config, understander, ex, intent.path, scope)
    return out


def _failures(
    config: Config, understander: Understander, ex: Example, fallback: str, scope: Scope
) -> list[str]:
    plan = understander.understand(ex.text)
    parts = [s for s in plan.steps if isinstance(s, Part)]
    path = ex.path or fallback
    where = f"{path}:{ex.line}" if ex.line else path
    if len(plan.steps) != 1 or not parts:
        shape = f"{len(plan.steps)} steps" if len(plan.steps) != 1 else "a conditional"
        why = why_split(understander, ex.text)
        return [_explained(f"{where}: {ex.text!r} gave {shape}, expected one part", why)]
    part = parts[0]
    if part.intent != ex.intent:
        why = why_intent(understander, ex.text, ex.intent)
        return [_explained(f"{where}: {ex.text!r} -> {part.intent}, expected {ex.intent}", why)]
    failures = []
    for slot, value in ex.slots.items():
        spec = config.slots.get(slot)
        if scope is Scope.INTENT and spec is not None and spec.type in HOME_SLOT_TYPES:
            continue
        if not _slot_equal(value, part.slots.get(slot)):
            failures.append(
                f"{where}: {ex.text!r} slot {slot} = {part.slots.get(slot)!r}, expected {value!r}"
            )
    if failures:  # the value readings, once, under the first
        failures[0] = _explained(failures[0], why_values(plan))
    return failures


def _explained(failure: str, why: list[str]) -> str:
    """A failure with its reasons on the lines under it (the first line stands alone)."""
    return "\n".join([failure, *(f"    {line}" for line in why)])


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
