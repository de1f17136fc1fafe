"""A question's word order (issue 24).

A question's verb after a statement's subject states: "it's cold in the living room" is
how the room feels, the heating's business, not "is it cold" asked of a temperature
sensor; the question in the other word order, or after "if", still asks.
"""

from __future__ import annotations

import pytest

from mnemolis.understand import Understander
from tests.support_targets import only_part

HEATING = "device.set_temperature"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("it's cold in here", HEATING),
        ("it is cold in the bedroom", HEATING),
        ("brrr it's cold", HEATING),
        ("ugh it's freezing", HEATING),
    ],
)
def test_a_statement_is_not_a_question(understander: Understander, text: str, intent: str) -> None:
    part = only_part(understander.understand(text))
    assert part.intent == intent, part.to_dict()


@pytest.mark.parametrize(
    "text", ["is it cold in the bedroom", "is it on", "is the front door locked"]
)
def test_the_question_still_asks(understander: Understander, text: str) -> None:
    part = only_part(understander.understand(text))
    assert part.intent in ("device.state", "sensor.read"), part.to_dict()


def test_an_if_asks_in_a_statement_s_order(understander: Understander) -> None:
    analysis = understander.analyzer.analyze("tell me if it is on")
    assert any(m.rule.text.startswith("is ") for m in analysis.matches)
