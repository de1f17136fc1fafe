"""Entity-level scores: the right devices and the right values, not only the intent.

A row may label, per part, ``entities`` (the exact set of device ids the part
acts on or asks about) and ``values`` (the value slots it must carry:
brightness, position, state, quantifier ...). A part's entities are the
values of its ``device`` slot, mapped to ids by `entity_ids`. Three rates:

- entity accuracy: labelled parts whose set of ids equals the expected set;
- value accuracy: expected values found with the expected value;
- fully right: parts with intent, entities and values all right; and rows
  with every labelled part fully right (and the split exact, when labelled).

A labelled part that was not scored because the split differed (a part
dropped or merged) counts as wrong in all three: nothing dropped is part of
being right.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mnemolis.core.devices import DeviceRegistry
from mnemolis.evaluation.compare import IdsOf, PartCheck, RowResult

#: The mark of a slot value that names no known device, as reported.
UNKNOWN = "?"


def entity_ids(registry: DeviceRegistry) -> IdsOf:
    """Slot value(s) -> device ids: ``registry.get(v)``, else ``registry.by_name(v)``;
    a value that is neither stays visible as ``?value``."""

    def one(value: Any) -> str:
        text = str(value)
        device = registry.get(text) or registry.by_name(text)
        return device.id if device is not None else UNKNOWN + text

    def ids_of(value: Any) -> list[str]:
        if value is None or value == "":
            return []
        if isinstance(value, list | tuple | set):
            return [one(v) for v in value if v is not None and v != ""]
        return [one(value)]

    return ids_of


def unknown_ids(expected: Iterable[str], registry: DeviceRegistry) -> list[str]:
    """Expected ids the registry does not have (a typo in a row)."""
    return sorted({i for i in expected if registry.get(i) is None})


@dataclass
class EntitySummary:
    parts: int  # parts labelled with entities or values
    entities_scored: int
    entities_correct: int
    values_scored: int
    values_correct: int
    parts_fully_right: int
    rows: int  # rows with at least one such part
    rows_fully_right: int
    dropped: int  # labelled parts not scored because the split differed

    @property
    def entity_accuracy(self) -> float:
        return self.entities_correct / self.entities_scored if self.entities_scored else 0.0

    @property
    def value_accuracy(self) -> float:
        return self.values_correct / self.values_scored if self.values_scored else 0.0

    @property
    def fully_right(self) -> float:
        return self.parts_fully_right / self.parts if self.parts else 0.0

    @property
    def rows_fully_right_rate(self) -> float:
        return self.rows_fully_right / self.rows if self.rows else 0.0


def _row_checks(r: RowResult) -> list[tuple[int, PartCheck | None]]:
    """Every entity-labelled expected part with its check (None: not aligned)."""
    by_index = {c.index: c for c in r.checks}
    return [
        (i, by_index.get(i))
        for i, p in enumerate(r.row.parts)
        if p.entities is not None or p.values is not None
    ]


def summarise_entities(results: Sequence[RowResult]) -> EntitySummary | None:
    s = EntitySummary(0, 0, 0, 0, 0, 0, 0, 0, 0)
    for r in results:
        labelled = _row_checks(r)
        if not labelled:
            continue
        s.rows += 1
        row_right = r.split is None or r.split.exact
        for i, check in labelled:
            part = r.row.parts[i]
            s.parts += 1
            n_values = len(part.values or {})
            if part.entities is not None:
                s.entities_scored += 1
            s.values_scored += n_values
            if check is None:
                s.dropped += 1
                row_right = False
                continue
            s.entities_correct += bool(check.entities_ok)
            s.values_correct += check.values_correct
            right = check.fully_right
            s.parts_fully_right += right
            row_right = row_right and right
        s.rows_fully_right += row_right
    return s if s.rows else None


def _f(x: float) -> str:
    return f"{x:.3f}"


def entity_lines(s: EntitySummary) -> list[str]:
    dropped = f"; {s.dropped} parts not scored (split differed) count as wrong" if s.dropped else ""
    lines = []
    if s.entities_scored:
        lines.append(
            f"entities: {_f(s.entity_accuracy)} ({s.entities_correct}/{s.entities_scored} parts "
            f"with exactly the expected devices){dropped}"
        )
    if s.values_scored:
        lines.append(f"values: {_f(s.value_accuracy)} ({s.values_correct}/{s.values_scored})")
    return [
        *lines,
        f"fully right (intent + entities + values): parts {_f(s.fully_right)} "
        f"({s.parts_fully_right}/{s.parts}), rows {_f(s.rows_fully_right_rate)} "
        f"({s.rows_fully_right}/{s.rows})",
    ]


def entity_mistakes(c: PartCheck) -> list[tuple[str, str, str]]:
    """(what, expected, got) for a part's entity and value misses."""
    out = []
    if c.entities_ok is False:
        expected = ", ".join(sorted(set(c.expected.entities or []))) or "none"
        out.append(("entities", expected, ", ".join(c.entities_got) or "none"))
    for miss in c.value_misses:
        got, _, expected = miss.partition(", expected ")
        out.append(("value", expected, got))
    return out
