"""What a routine says is honest (issue 26): a reply over `max_chars` says there is more,
and a template never says "None" for a value that is missing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.core.plan import Part
from mnemolis.runtime.answer import StepResult
from mnemolis.runtime.merge import spoken
from mnemolis.sources.base import Request, SourceContext, Status
from mnemolis.sources.routines import create
from mnemolis.understand import Understander, registry_from_config
from tests.support_routines import owner_config

MORE = "There is more"

WEATHER_SAY = """
intents:
  test.outside:
    phrases: [porch report routine]
    do:
      - say: "It is {{ sensor('outdoor temperature') }} degrees outside."
  test.outside_guarded:
    phrases: [porch check routine]
    do:
      - say: "{% if sensor('outdoor temperature') is none %}No reading yet.{% else %}Fine.{% endif %}"
"""


@pytest.fixture(scope="module", name="home")
def fixture_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Understander]:
    """The routines source with no source that reads sensors (nothing has a value)."""
    folder = tmp_path_factory.mktemp("routines")
    config = owner_config(folder, WEATHER_SAY)
    registry = registry_from_config(config)
    return create(SourceContext(config, registry, {}, folder)), Understander(config, registry)


def answer(home: tuple[Any, Understander], text: str) -> tuple[Status, str]:
    routines, understander = home
    (part,) = understander.understand(text).parts()
    assert isinstance(part, Part) and part.intent is not None, text

    async def run() -> tuple[Status, str]:
        found = await routines.answer(part, Request())
        return found.status, found.text

    return asyncio.run(run())


def test_a_sensor_without_a_value_is_named_never_said_as_none(
    home: tuple[Any, Understander],
) -> None:
    status, text = answer(home, "porch report routine")
    assert "None" not in text
    assert status is Status.ERROR
    assert "the outdoor temperature has no value yet" in text


def test_a_template_may_still_ask_whether_a_value_is_missing(
    home: tuple[Any, Understander],
) -> None:
    assert answer(home, "porch check routine") == (Status.OK, "No reading yet.")


def test_a_routine_reply_over_max_chars_says_there_is_more() -> None:
    """One step (a routine) of many sentences: its first fits, the rest did not."""
    routine = StepResult(
        "Good morning. It's 07:00. Today: sunny, 12°C to 17°C. The blinds are open.", []
    )
    said = spoken([routine], 72, "There is more; ask for one thing at a time")
    assert said == "Good morning. It's 07:00. There is more; ask for one thing at a time."


sentence = st.from_regex(r"[A-Z][a-z]{1,12}( [a-z]{1,10}){0,6}\.", fullmatch=True)


@given(
    st.lists(st.lists(sentence, min_size=1, max_size=5), min_size=1, max_size=4),
    st.integers(40, 300),
)
def test_a_reply_is_whole_or_says_there_is_more(steps: list[list[str]], limit: int) -> None:
    results = [StepResult(" ".join(sentences), []) for sentences in steps]
    said = spoken(results, limit, MORE)
    whole = spoken(results, 1_000_000, MORE)
    if said != whole:
        assert said.endswith(f"{MORE}."), f"left out without a word: {whole!r} -> {said!r}"
    assert len(said) <= limit or said == f"{MORE}.", "over the limit"
