"""Normalisation, row by row: what every later stage can rely on."""

from __future__ import annotations

import pytest

from mnemolis.config import Config
from mnemolis.understand.normalize import Normalizer

ROWS = [
    ("ok mnemolis, what's the weather please", "what is the weather"),
    ("Hey Mnemolis turn on the light", "turn on the light"),
    ("mnemolis", "mnemolis"),  # a wake word alone is kept: there is nothing else
    ("thank you, turn it off", "turn it off"),
    ("whats the time", "what is the time"),
    ("What's The Time", "What is The Time"),
    ("I'm cold", "I am cold"),
    # sayings (issue 24): the same request said another way, read plainly
    ("I'm off to bed", "I am going to bed"),
    ("night night", "good night"),
    ("I'm heading out", "I am going out"),
    ("just got home", "just i am home"),
    ("don't turn it off", "do not turn it off"),
    ("set it to twenty two degrees", "set it to 22 degrees"),
    ("twenty-five percent", "25 percent"),
    ("one hundred and five", "105"),
    ("the year two thousand twenty", "the year 2020"),
    ("seven thirty", "7 30"),
    ("lights five and six", "lights 5 and 6"),
    ("which one", "which one"),
    ("48 and a half weeks", "48.5 weeks"),
    ("how many days until december twenty fifth", "how many days until december 25th"),
    ("is there a holiday on fifth december", "is there a holiday on 5th december"),
    ("the twenty second of april", "the 22nd of april"),
    ("march the third", "march the 3rd"),
    ("the thirty first", "the 31st"),
    ("wait a second", "wait a second"),
    ("the first one", "the first one"),
    ("turn on\x00 the\u200b light\x07", "turn on the light"),
    ("  lots   of\tspace\n", "lots of space"),
    ("it’s “quoted”", 'it is "quoted"'),
]


@pytest.mark.parametrize(("query", "expected"), ROWS)
def test_normalize(config: Config, query: str, expected: str) -> None:
    assert Normalizer(config.language).normalize(query).text == expected


def test_changes_are_reported(config: Config) -> None:
    result = Normalizer(config.language).normalize("ok mnemolis what's twenty two")
    assert any("wake word" in c for c in result.changes)
    assert any("what's" in c for c in result.changes)
    assert any("22" in c for c in result.changes)
