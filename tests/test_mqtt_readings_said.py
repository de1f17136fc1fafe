"""Readings said as real firmware reports them (issue 24): an energy counter keeps the
decimals it reports, as Home Assistant shows them; a cover that reports only its
position is open or closed from it, never "has not reported its state"."""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.replies import Phrasebook
from mnemolis.sources.mqtt.truth import state_matches
from mnemolis.sources.mqtt.wire import format_reading

ENERGY = Device(
    name="dryer energy", type="sensor", id="dryer_energy", device_class="energy", unit="kWh"
)
BLIND = Device(name="study blind", type="cover", id="study_blind", device_class="blind")

READINGS: list[tuple[float, str]] = [
    (0.456, "0.456"),
    (21.0, "21"),
    (21.5, "21.5"),
    (1234.5678, "1234.568"),
    (0.1, "0.1"),
]


@pytest.mark.parametrize(("value", "said"), READINGS)
def test_a_reading_keeps_the_decimals_it_reports(value: float, said: str) -> None:
    assert format_reading(value) == said


def test_an_energy_counter_is_said_with_its_precision() -> None:
    sentence = Phrasebook({}).describe(ENERGY, {"value": 0.456})
    assert sentence is not None and "0.456 kWh" in sentence


COVERS: list[tuple[dict[str, Any], str, bool]] = [
    ({"position": 40}, "open", True),
    ({"position": 0}, "open", False),
    ({"position": 0}, "closed", True),
    ({"position": 100}, "closed", False),
]


@pytest.mark.parametrize(("values", "wanted", "truth"), COVERS)
def test_a_cover_reporting_only_its_position_answers_is_it_open(
    values: dict[str, Any], wanted: str, truth: bool
) -> None:
    sentence = Phrasebook({}).describe(BLIND, values)
    assert sentence is not None and ("open" in sentence or "closed" in sentence)
    assert state_matches(BLIND, values, wanted) is truth
