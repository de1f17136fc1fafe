"""Helpers for the `mnemolis eval` tests: small labelled files and hand-made plans."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from mnemolis.core.plan import Part, Plan

SAMPLE = Path(__file__).resolve().parent / "data" / "sample.jsonl"


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def part(
    text: str,
    source: str | None = None,
    intent: str | None = None,
    slots: dict[str, Any] | None = None,
    confidence: float = 1.0,
    **provenance: Any,
) -> Part:
    return Part(text, intent, source, dict(slots or {}), confidence, dict(provenance))


def plan(query: str, *steps: Any) -> Plan:
    return Plan(query=query, steps=list(steps), normalized=query)


#: Sentences written for these tests, in the HWU64 shape (text, intent, scenario,
#: fold): two per fold so that --holdout has folds 5 and 10 to set apart.
HWU_ROWS = [
    {"text": text, "intent": intent, "scenario": intent.split("_")[0], "fold": fold}
    for fold in range(1, 11)
    for text, intent in (
        ("switch the hall lights off", "iot_hue_lightoff"),
        ("set a timer for the pasta", "alarm_set"),
    )
]


@pytest.fixture
def hwu_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "hwu.jsonl", HWU_ROWS)
