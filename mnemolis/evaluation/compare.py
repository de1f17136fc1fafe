"""One row at a time: what the router said, set against what the row expects.

How a plan is read:
- its parts are taken in *spoken* order: a conditional contributes its
  condition, its ``then`` parts and its ``else`` parts ordered by where they
  stand in the query ("lock the back door if it is unlocked" gives
  ["lock the back door", "it is unlocked"]);
- a part that inherited words from a neighbour ("... and also in Berlin" ->
  "the weather in Berlin") may be read either way: with the inherited words or
  with only what was spoken;
- when a row expects one part, the part scored for routing is the first one in
  scope (else the first one), so over-splitting a one-request sentence is
  judged on its split, not twice;
- when a row expects several parts, they are scored for routing one by one
  only if the split is exact; otherwise they are counted as not aligned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.plan import Conditional, Part, Plan
from mnemolis.evaluation.datasets import ExpectedPart, Row
from mnemolis.evaluation.metrics import PartKeyer, SplitOutcome, compare_split, slot_equal


@dataclass
class PredictedPart:
    """A part of the plan, flattened for comparison."""

    text: str
    spoken: str  # ``text`` without the words it inherited
    readings: list[str]  # ``text``, and ``text`` without some inherited words
    source: str | None
    intent: str | None
    declined: str | None  # the decline.* intent that recognised it, if any
    slots: dict[str, Any]
    confidence: float
    role: str = "part"  # part | if | then | else

    @classmethod
    def of(cls, part: Part, role: str = "part") -> PredictedPart:
        declined = part.provenance.get("declined")
        texts = readings(part)
        return cls(
            text=part.text,
            spoken=texts[-1],
            readings=texts,
            source=part.source,
            intent=part.intent,
            declined=declined if isinstance(declined, str) else None,
            slots=dict(part.slots),
            confidence=part.confidence,
            role=role,
        )


def readings(part: Part) -> list[str]:
    """The ways a part's text may be read: as it stands, and without some or all of
    the words it inherited ("the weather in berlin" from "... and also in berlin"
    reads as "in berlin" and "berlin" too). The last reading is the spoken one."""
    inherited = part.provenance.get("inherited")
    if not isinstance(inherited, list) or not inherited:
        return [part.text]
    toks = part.text.split()
    inh = [str(w).lower() for w in inherited]
    head = 0
    while head < len(inh) and head < len(toks) and toks[head].lower().strip(",;:") == inh[head]:
        head += 1
    rest = inh[head:]
    tail = 0
    if rest and len(toks) - head > len(rest) and [t.lower() for t in toks[-len(rest) :]] == rest:
        tail = len(rest)
    out = []
    for drop_tail in (0, tail) if tail else (0,):
        for start in range(head + 1):
            text = " ".join(toks[start : len(toks) - drop_tail])
            if text and text not in out:
                out.append(text)
    return out


def _spoken_order(block: list[PredictedPart], query: str) -> list[PredictedPart]:
    """Order a conditional's parts by where they stand in the normalised query;
    keep the plan's order when a part cannot be found there."""
    lowered = query.lower()
    positions = []
    for p in block:
        pos = lowered.find(p.spoken.lower()) if p.spoken else -1
        if pos < 0:
            return block
        positions.append(pos)
    return [p for _, _, p in sorted(zip(positions, range(len(block)), block, strict=True))]


def predicted_parts(plan: Plan) -> list[PredictedPart]:
    out: list[PredictedPart] = []
    query = plan.normalized or plan.query
    for step in plan.steps:
        if isinstance(step, Conditional):
            block = [PredictedPart.of(step.condition, "if")]
            block += [PredictedPart.of(p, "then") for p in step.then]
            block += [PredictedPart.of(p, "else") for p in step.otherwise]
            out.extend(_spoken_order(block, query))
        else:
            out.append(PredictedPart.of(step))
    return out


@dataclass
class PartCheck:
    """One expected part set against the predicted part it was aligned with."""

    index: int
    expected: ExpectedPart
    predicted: PredictedPart | None
    source_ok: bool | None = None  # None: not labelled
    intent_ok: bool | None = None
    slots_expected: int = 0
    slots_correct: int = 0
    slot_misses: list[str] = field(default_factory=list)
    entities_ok: bool | None = None  # None: not labelled
    entities_got: list[str] = field(default_factory=list)  # the ids the part names
    values_expected: int = 0
    values_correct: int = 0
    value_misses: list[str] = field(default_factory=list)

    @property
    def fully_right(self) -> bool:
        """Intent, entities and every value right (what is labelled of them)."""
        return (
            self.intent_ok is not False
            and self.entities_ok is not False
            and self.values_correct == self.values_expected
        )

    @property
    def predicted_source(self) -> str | None:
        return self.predicted.source if self.predicted else None

    @property
    def predicted_intent(self) -> str | None:
        if self.predicted is None:
            return None
        return self.predicted.intent or self.predicted.declined


@dataclass
class RowResult:
    row: Row
    predicted: list[PredictedPart]
    has_conditional: bool
    ms: float
    split: SplitOutcome | None = None
    checks: list[PartCheck] = field(default_factory=list)
    unaligned: int = 0  # labelled expected parts not scored because the split differed
    conditional_ok: bool | None = None
    clarify: str | None = None


def _intent_ok(expected: ExpectedPart, predicted: PredictedPart | None) -> bool:
    intent = predicted.intent if predicted else None
    declined = predicted.declined if predicted else None
    if expected.intent is None:
        return intent is None
    if expected.source is None:  # a decline.* intent: recognised, and declined by name
        return intent is None and declined == expected.intent
    return intent == expected.intent


#: Slot value -> device id (registry.get, then registry.by_name); see `entity_ids`.
IdsOf = Callable[[Any], list[str]]


def check_entities(check: PartCheck, ids_of: IdsOf) -> None:
    """The exact set of device ids, and each expected value, against the part's slots."""
    expected, predicted = check.expected, check.predicted
    slots = predicted.slots if predicted else {}
    if expected.entities is not None:
        check.entities_got = sorted(set(ids_of(slots.get("device"))))
        check.entities_ok = check.entities_got == sorted(set(expected.entities))
    for name, value in (expected.values or {}).items():
        check.values_expected += 1
        actual = slots.get(name)
        if actual is None if value is None else slot_equal(value, actual):
            check.values_correct += 1
        else:
            check.value_misses.append(f"{name}={actual!r}, expected {value!r}")


def check_part(
    index: int,
    expected: ExpectedPart,
    predicted: PredictedPart | None,
    ids_of: IdsOf | None = None,
) -> PartCheck:
    check = PartCheck(index=index, expected=expected, predicted=predicted)
    if ids_of is not None:
        check_entities(check, ids_of)
    if expected.source_known:
        check.source_ok = (predicted.source if predicted else None) == expected.source
    if expected.intent_known:
        check.intent_ok = _intent_ok(expected, predicted)
    for name, value in (expected.slots or {}).items():
        check.slots_expected += 1
        actual = predicted.slots.get(name) if predicted else None
        ok = actual is None if value is None else slot_equal(value, actual)
        if ok:
            check.slots_correct += 1
        else:
            check.slot_misses.append(f"{name}={actual!r}, expected {value!r}")
    return check


def _labelled(part: ExpectedPart) -> bool:
    return (
        part.source_known
        or part.intent_known
        or bool(part.slots)
        or part.entities is not None
        or part.values is not None
    )


def row_part(predicted: list[PredictedPart]) -> PredictedPart | None:
    """The part a one-request row is judged by: the first in scope, else the first."""
    for p in predicted:
        if p.source is not None:
            return p
    return predicted[0] if predicted else None


@dataclass
class RowScorer:
    keyer: PartKeyer
    ids_of: IdsOf | None = None  # entities and values are scored only with it

    def score(self, row: Row, plan: Plan, ms: float) -> RowResult:
        predicted = predicted_parts(plan)
        result = RowResult(
            row=row,
            predicted=predicted,
            has_conditional=any(isinstance(s, Conditional) for s in plan.steps),
            ms=ms,
            clarify=plan.clarify,
        )
        if row.split_known:
            expected_keys = [self.keyer.key(p.text or "") for p in row.parts]
            predicted_keys = [{self.keyer.key(t) for t in p.readings} for p in predicted]
            result.split = compare_split(expected_keys, predicted_keys)
        if row.conditional is not None:
            result.conditional_ok = result.has_conditional == row.conditional
        if len(row.parts) == 1:
            if _labelled(row.parts[0]):
                result.checks.append(check_part(0, row.parts[0], row_part(predicted), self.ids_of))
        elif result.split is not None and result.split.exact:
            for i, (exp, pred) in enumerate(zip(row.parts, predicted, strict=True)):
                if _labelled(exp):
                    result.checks.append(check_part(i, exp, pred, self.ids_of))
        else:
            result.unaligned = sum(1 for p in row.parts if _labelled(p))
        return result
