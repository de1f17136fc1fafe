"""Properties that hold for any text: nothing lost, nothing invented, nothing raised."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemolis.config import Config
from mnemolis.core.plan import Plan
from mnemolis.understand import Context, Understander

CLAUSES = [
    "turn on the kitchen light",
    "lock the front door",
    "what's the weather tomorrow",
    "is the back door locked",
    "who wrote pride and prejudice",
    "what time is it",
    "the porch light",
    "in Berlin",
    "play some jazz",
    "Iran and Israel news",
    "compare python and rust",
    "check if the garage door is open",
    "if the back door is unlocked lock it",
    "if the front door is unlocked, lock it",
    "tell me about rock and roll",
    "dim the living room lamp to 40 percent",
    "what's the deal with mercury retrograde",
    "set the thermostat to twenty one degrees",
    "book a table for catalina and brandie",
    "is it on",
    "open spotify and play some jazz",
    "play some jazz and sort it by the newest first",
    "book a table for my mom and i",
    "find and play a concerto",
]
JOINERS = [
    " and ",
    " also ",
    " plus ",
    " as well as ",
    " in addition ",
    " and then ",
    ", ",
    ", and ",
]
WORDS = st.sampled_from(
    ["zebra", "quantum", "kitchen", "and", "light", "Paris", "if", "the", "lock", ",", "plus", "it"]
)


def _structure_words(config: Config) -> set[str]:
    """Words that shape a query rather than carry its content."""
    lang = config.language
    phrases = [
        *lang.conjunctions,
        *lang.polite_openers,
        *lang.condition_leads,
        *lang.condition_trailing,
        *lang.condition_then,
        *lang.condition_else,
        *lang.condition_report,
    ]
    return {w for p in phrases for w in p.split()} | lang.stop_words | lang.filler_words


def _words(understander: Understander, text: str) -> list[str]:
    return [w for w in understander.text.words(text) if any(ch.isalnum() for ch in w)]


def check_no_word_lost_or_invented(understander: Understander, config: Config, plan: Plan) -> None:
    structure = _structure_words(config)
    query_words = set(_words(understander, plan.normalized))
    placed: set[str] = set()
    for part in plan.parts():
        words = set(_words(understander, part.text))
        inherited = {w.lower() for w in part.provenance.get("inherited", [])}
        invented = words - query_words - inherited
        assert not invented, f"{part.text!r} adds {invented} to {plan.normalized!r}"
        placed |= words
    content = {w for w in query_words if w not in structure}
    lost = content - placed
    assert not lost, f"{sorted(lost)} of {plan.normalized!r} are in no part: {plan.to_dict()}"


compound = st.lists(st.sampled_from(CLAUSES), min_size=1, max_size=4).flatmap(
    lambda clauses: st.lists(
        st.sampled_from(JOINERS), min_size=len(clauses) - 1, max_size=len(clauses) - 1
    ).map(
        lambda joins: clauses[0] + "".join(j + c for j, c in zip(joins, clauses[1:], strict=True))
    )
)
mixed = st.lists(st.one_of(st.sampled_from(CLAUSES), WORDS), min_size=1, max_size=8).map(" ".join)

# example counts come from the profile in conftest.py (HYPOTHESIS_PROFILE=thorough for more)
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(query=compound)
def test_compound_requests_lose_and_invent_no_word(
    understander: Understander, config: Config, query: str
) -> None:
    check_no_word_lost_or_invented(understander, config, understander.understand(query))


@FAST
@given(query=st.one_of(mixed, compound.map(str.lower)))
def test_any_mix_loses_and_invents_no_word(
    understander: Understander, config: Config, query: str
) -> None:
    check_no_word_lost_or_invented(understander, config, understander.understand(query))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=10_000))
def test_arbitrary_text_never_raises(understander: Understander, query: str) -> None:
    plan = understander.understand(query)
    json.dumps(plan.to_dict())
    assert plan.query == query
    limit = understander.config.language.max_query_chars
    assert len(plan.normalized) <= limit


@FAST
@given(query=st.one_of(compound, mixed, st.text(max_size=300)))
def test_same_input_same_plan(understander: Understander, query: str) -> None:
    first = understander.understand(query, Context()).to_dict()
    second = understander.understand(query, Context()).to_dict()
    assert first == second
