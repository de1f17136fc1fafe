"""Why an example failed, in the owner's terms: which conjunction split it and why no
guard kept it whole, and which value won where words read two ways.

`mnemolis check` prints these under a failing example ("gave 2 steps, expected one
part" alone does not say what to change).
"""

from __future__ import annotations

from mnemolis.core.plan import Plan
from mnemolis.understand import Understander


def why_split(understander: Understander, text: str) -> list[str]:
    """Each conjunction or comma the example was split at, and why it was not protected."""
    norm = understander.normalizer.normalize(text).text
    if not any(ch.isalnum() for ch in norm):
        return []
    a = understander.analyzer.analyze(norm)
    end = len(a.tokens)
    dec = understander.decomposer.decompose(a, 0, end)
    if dec.chosen is None:
        return []
    undone = {(o.start, o.end) for o in dec.chosen.undone}
    judge = understander.guards.value_lists.judge
    lines = []
    for o in dec.chosen.points:
        if (o.start, o.end) in undone:
            continue
        before = a.span_text(max(0, o.start - 3), o.start)
        why = judge(a, 0, end, o, dec.occurrences).why
        lines.append(f"split at {a.span_text(o.start, o.end)!r} after {before!r}: {why}")
    return lines


def why_values(plan: Plan) -> list[str]:
    """Where words were a value of two slots, or inside a longer one: which won."""
    return [
        f"{part.text!r}: {reading}"
        for part in plan.parts()
        for reading in part.provenance.get("readings", [])
    ]


def why_intent(understander: Understander, text: str, expected: str | None) -> list[str]:
    """The intents that scored, best first, and where the expected one stood."""
    norm = understander.normalizer.normalize(text).text
    if not any(ch.isalnum() for ch in norm):
        return []
    a = understander.analyzer.analyze(norm)
    found = understander.router.candidates(a, 0, len(a.tokens))
    lines = [f"{c.intent.name} scored {c.score:.2f} via {c.match.rule.text!r}" for c in found[:2]]
    if expected is not None and not any(c.intent.name == expected for c in found[:2]):
        mine = next((c for c in found if c.intent.name == expected), None)
        lines.append(
            f"{expected} scored {mine.score:.2f} via {mine.match.rule.text!r}"
            if mine is not None
            else f"no phrase of {expected} is said"
        )
    return lines
