"""A conditional inside a compound request: one conditional beside the other requests.

"what's the weather and if the front door is unlocked, lock it" is two requests,
the second conditional; the comma that closes its condition does not split it
(`guards._condition_close`). A question joined after a consequence ("if X, lock it
and what time is it") is asked whatever the condition (`ConditionSplit.after`).
"""

from __future__ import annotations

import pytest

from mnemolis.understand import Understander
from tests.expect import C, P, plan_problems

DOOR_UNLOCKED = P("device.state", device="front door", state="unlocked")
BACK_OPEN = P("device.state", device="back door", state="open")

ROWS: list[tuple[str, list[P | C]]] = [
    # ---- a conditional after "and" / "and then" / a comma, its consequent after a comma
    (
        "what's the weather and if the front door is unlocked, lock it",
        [P("weather.forecast"), C(DOOR_UNLOCKED, [P("device.lock", device="front door")])],
    ),
    (
        "turn on the kitchen light and then if the back door is open, close it",
        [
            P("device.turn_on", device="kitchen light"),
            C(BACK_OPEN, [P("device.close", device="back door")]),
        ],
    ),
    (
        "what time is it, and if the porch light is on, switch it off",
        [
            P("clock.time"),
            C(
                P("device.state", device="porch light", state="on"),
                [P("device.turn_off", device="porch light")],
            ),
        ],
    ),
    # ---- other condition words after a split point, "then" alone as the split point
    (
        "lock the front door, and if the garage door is open, close it",
        [
            P("device.lock", device="front door"),
            C(
                P("device.state", device="garage door", state="open"),
                [P("device.close", device="garage door")],
            ),
        ],
    ),
    (
        "turn off the kitchen light and unless the back door is locked, lock it",
        [
            P("device.turn_off", device="kitchen light"),
            C(
                P("device.state", device="back door", state="locked"),
                [P("device.lock", device="back door")],
                negate=True,
                trigger="unless",
            ),
        ],
    ),
    (
        "turn on the kitchen light then if the back door is open, close it",
        [
            P("device.turn_on", device="kitchen light"),
            C(BACK_OPEN, [P("device.close", device="back door")]),
        ],
    ),
    # ---- "then" closes the condition instead of a comma
    (
        "what time is it and if the back door is open then close it",
        [P("clock.time"), C(BACK_OPEN, [P("device.close", device="back door")])],
    ),
    # ---- a question after the consequence is a request of its own
    (
        "if the front door is unlocked, lock it and what's the weather",
        [C(DOOR_UNLOCKED, [P("device.lock", device="front door")]), P("weather.forecast")],
    ),
    (
        "if the garage door is open, close it and what time is it",
        [
            C(
                P("device.state", device="garage door", state="open"),
                [P("device.close", device="garage door")],
            ),
            P("clock.time"),
        ],
    ),
    (
        "if the front door is unlocked lock it and then what's the weather tomorrow",
        [
            C(DOOR_UNLOCKED, [P("device.lock", device="front door")]),
            P("weather.forecast", day="tomorrow"),
        ],
    ),
    # ---- an action after the consequence stays conditioned (kept)
    (
        "if the back door is unlocked, lock it and turn on the porch light",
        [
            C(
                P("device.state", device="back door", state="unlocked"),
                [P("device.lock", device="back door"), P("device.turn_on", device="porch light")],
            )
        ],
    ),
    # ---- a question opened by "if" after "and" stays a question (kept)
    (
        "turn off the kitchen light and check if the garage door is open",
        [
            P("device.turn_off", device="kitchen light"),
            P("device.state", device="garage door", state="open"),
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_conditional_in_compound(
    understander: Understander, text: str, expected: list[P | C]
) -> None:
    plan = understander.understand(text)
    assert plan_problems(expected, plan) == []
