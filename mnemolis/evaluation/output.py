"""What `mnemolis eval` writes besides its report: ``--json`` figures, ``--dump`` rows."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, TextIO

from mnemolis.evaluation.compare import RowResult
from mnemolis.evaluation.datasets import DataError


def jsonable(obj: Any) -> Any:
    """Dataclasses to dicts, with the derived rates their properties compute."""
    if is_dataclass(obj) and not isinstance(obj, type):
        out = {f.name: jsonable(getattr(obj, f.name)) for f in fields(obj)}
        for derived in (
            "rate",
            "exact_rate",
            "wer",
            "entity_accuracy",
            "value_accuracy",
            "fully_right",
            "rows_fully_right_rate",
        ):
            if isinstance(getattr(type(obj), derived, None), property):
                out[derived] = jsonable(getattr(obj, derived))
        return out
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 6) if math.isfinite(obj) else None
    return obj


def dump_row(r: RowResult, timing: bool) -> dict[str, Any]:
    row = r.row
    out: dict[str, Any] = {
        "file": row.file,
        "line": row.line,
        "text": row.text,
        "fold": row.fold,
        "expected": {
            "parts": [p.text for p in row.parts] if row.split_known else None,
            "labels": [p.label for p in row.parts],
            "sources": [p.source if p.source_known else "?" for p in row.parts],
            "intents": [p.intent if p.intent_known else "?" for p in row.parts],
            "slots": [p.slots for p in row.parts],
            "conditional": row.conditional,
            "entities": [p.entities for p in row.parts],
            "values": [p.values for p in row.parts],
            "room": row.room,
        },
        "predicted": {
            "parts": [
                {
                    "text": p.text,
                    "role": p.role,
                    "source": p.source,
                    "intent": p.intent,
                    "declined": p.declined,
                    "slots": p.slots,
                    "confidence": round(p.confidence, 3),
                }
                for p in r.predicted
            ],
            "conditional": r.has_conditional,
            "clarify": r.clarify,
        },
        "checks": [
            {
                "part": c.index,
                "source_ok": c.source_ok,
                "intent_ok": c.intent_ok,
                "slot_misses": c.slot_misses,
                "entities_ok": c.entities_ok,
                "entities": c.entities_got,
                "value_misses": c.value_misses,
                "compared_with": c.predicted.text if c.predicted else None,
            }
            for c in r.checks
        ],
        "split": r.split.kind if r.split else None,
        "unaligned": r.unaligned,
        "conditional_ok": r.conditional_ok,
    }
    if timing:
        out["ms"] = round(r.ms, 4)
    return out


def write_file(path: str, writer: Callable[[TextIO], object]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            writer(handle)
    except OSError as exc:
        raise DataError(path, None, f"cannot write: {exc.strerror or exc}") from exc
