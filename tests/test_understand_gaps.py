"""A phrase's gap ("are ... closed") holds up to five words besides determiners: "are the
blinds in the living room closed" is six words between, four of them not "the". The
longer gap never ends inside a name said in it ("what's the battery of the front door
lock" says no state "lock")."""

from __future__ import annotations

import pytest

from mnemolis.config import Config
from mnemolis.understand import Understander
from tests.support_targets import clashing_understander, only_part, part_ids


@pytest.fixture(scope="module")
def home(config: Config) -> Understander:
    return clashing_understander(config)


@pytest.mark.parametrize(
    ("text", "ids", "state"),
    [
        ("are the blinds in the living room closed", ["cover_living_blinds"], "closed"),
        ("is the light in the kids room on", ["light_kids"], "on"),
    ],
)
def test_determiners_do_not_fill_a_gap(
    home: Understander, text: str, ids: list[str], state: str
) -> None:
    part = only_part(home.understand(text))
    assert part.intent == "device.state", part.to_dict()
    assert part_ids(home.registry, part) == ids, part.to_dict()
    assert part.slots["state"] == state


def test_six_words_that_are_not_determiners_are_too_many(home: Understander) -> None:
    part = only_part(home.understand("are my old blinds over in that big living room closed"))
    assert part.provenance.get("phrase") != "are ... {state}", part.to_dict()
