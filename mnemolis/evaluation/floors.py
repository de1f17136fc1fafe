"""The ``--min-*`` floors of `mnemolis eval`: which figure each gates, and the check."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mnemolis.evaluation.datasets import DataError
from mnemolis.evaluation.report import SliceSummary
from mnemolis.evaluation.wrong_device import WrongDevice


@dataclass
class Floor:
    option: str
    name: str
    value: Callable[[SliceSummary], float | None]
    needs: str


def _class_score(s: SliceSummary, attr: str) -> float | None:
    return getattr(s.routing.score("null"), attr) if s.routing else None


FLOORS = (
    Floor(
        "min_macro_f1",
        "source macro-F1",
        lambda s: s.routing.macro_f1 if s.routing else None,
        "labelled sources",
    ),
    Floor(
        "min_exact",
        "exact split",
        lambda s: s.split.exact_rate if s.split else None,
        "labelled parts",
    ),
    Floor(
        "min_intent_accuracy",
        "intent accuracy",
        lambda s: s.intents.rate if s.intents else None,
        "labelled intents",
    ),
    Floor(
        "min_slot_accuracy",
        "slot accuracy",
        lambda s: s.slots.rate if s.slots else None,
        "labelled slots",
    ),
    Floor(
        "min_entity_accuracy",
        "entity accuracy",
        lambda s: s.entities.entity_accuracy if s.entities and s.entities.entities_scored else None,
        "labelled entities",
    ),
    Floor(
        "min_value_accuracy",
        "value accuracy",
        lambda s: s.entities.value_accuracy if s.entities and s.entities.values_scored else None,
        "labelled values",
    ),
    Floor(
        "min_fully_right",
        "fully right parts",
        lambda s: s.entities.fully_right if s.entities else None,
        "labelled entities or values",
    ),
    Floor(
        "min_oos_precision",
        "out-of-scope precision",
        lambda s: _class_score(s, "precision"),
        "labelled sources",
    ),
    Floor(
        "min_oos_recall",
        "out-of-scope recall",
        lambda s: _class_score(s, "recall"),
        "labelled sources",
    ),
)


@dataclass
class FloorCheck:
    name: str
    floor: float
    value: float
    passed: bool
    bound: str = ">="  # the value is at least the floor; "<=": at most (a count)

    def line(self) -> str:
        verdict = "ok" if self.passed else "MISSED"
        if self.bound == "<=":
            return f"floor {self.name}: {self.value:.0f} <= {self.floor:.0f} {verdict}"
        return f"floor {self.name}: {self.value:.3f} >= {self.floor:.3f} {verdict}"


def check_floors(summary: SliceSummary, args: argparse.Namespace) -> list[FloorCheck]:
    """Compare the figures with the floors asked for; a floor whose figure this
    data cannot give is an input error, not a pass."""
    checks = []
    for f in FLOORS:
        floor = getattr(args, f.option, None)
        if floor is None:
            continue
        value = f.value(summary)
        if value is None:
            flag = "--" + f.option.replace("_", "-")
            where = ", ".join(args.files)
            raise DataError(where, None, f"{flag} needs {f.needs}, and this data has none")
        checks.append(FloorCheck(f.name, floor, value, value >= floor))
    return checks


# --------------------------------------------------------------------------- options


def wrong_device_floor(
    found: Sequence[WrongDevice] | None, args: argparse.Namespace
) -> list[FloorCheck]:
    """``--max-wrong-device N``: at most N wrong-device actions (`wrong_device`); shown as
    a floor whose value is the count and whose bound is N."""
    bound = getattr(args, "max_wrong_device", None)
    if bound is None:
        return []
    if found is None:
        where = ", ".join(args.files)
        raise DataError(
            where, None, "--max-wrong-device needs labelled entities, and this data has none"
        )
    actions = sum(w.acts for w in found)
    return [
        FloorCheck("wrong-device actions", float(bound), float(actions), actions <= bound, "<=")
    ]
