"""Conditions on the weather evaluate for the day they name, not for any day
in the forecast: the recorded week has rain on Thursday, Saturday and
Tuesday, yet "if it rains on friday" is false."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Conditional, Part
from mnemolis.sources.base import Truth
from mnemolis.understand import Understander
from tests.support_open_meteo import OpenMeteoReplay, closed_port_url, open_meteo  # noqa: F401
from tests.support_weather import WEDNESDAY_MORNING, check, frozen, make_source


@dataclass(frozen=True)
class Condition:
    text: str
    slots: dict[str, str]
    truth: Truth
    says: str = ""  # a fragment of the evaluation's sentence
    changes: dict[str, object] = field(default_factory=dict)


CONDITIONS = [
    Condition("it rains tomorrow", {"metric": "rain", "day": "tomorrow"}, Truth.TRUE, "80% chance"),
    Condition("it rains on friday", {"metric": "rain", "day": "friday"}, Truth.FALSE, "30% chance"),
    Condition("it rains on saturday", {"metric": "rain", "day": "saturday"}, Truth.TRUE),
    Condition("it rains on sunday", {"metric": "rain", "day": "sunday"}, Truth.FALSE),
    Condition("it rains this weekend", {"metric": "rain", "day": "weekend"}, Truth.TRUE),
    Condition("it rains", {"metric": "rain"}, Truth.FALSE, "Today: 10% chance of rain."),
    Condition("it is raining", {"metric": "rain", "day": "now"}, Truth.FALSE),
    Condition("it snows this week", {"metric": "snow", "day": "week"}, Truth.FALSE),
    Condition("it is foggy on monday", {"metric": "fog", "day": "monday"}, Truth.TRUE),
    Condition("it is foggy tomorrow", {"metric": "fog", "day": "tomorrow"}, Truth.FALSE),
    Condition("it is windy on tuesday", {"metric": "wind", "day": "tuesday"}, Truth.TRUE),
    Condition("it is windy today", {"metric": "wind", "day": "today"}, Truth.FALSE),
    Condition("it is cold tonight", {"metric": "temperature", "day": "tonight"}, Truth.FALSE),
    Condition(
        "it is below 13 degrees tonight", {"metric": "temperature", "day": "tonight"}, Truth.TRUE
    ),
    Condition("it is hot on tuesday", {"metric": "temperature", "day": "tuesday"}, Truth.TRUE),
    Condition("it is sunny on sunday", {"metric": "sun", "day": "sunday"}, Truth.TRUE),
    Condition("it is cloudy tomorrow", {"metric": "cloud", "day": "tomorrow"}, Truth.TRUE),
    Condition("it is humid on sunday", {"metric": "humidity", "day": "sunday"}, Truth.FALSE),
    # thresholds are data: a stricter rain threshold turns Saturday's 70% into false
    Condition(
        "it rains on saturday",
        {"metric": "rain", "day": "saturday"},
        Truth.FALSE,
        changes={"thresholds": {"rain": {"probability": 75, "precipitation_mm": 5}}},
    ),
    Condition(
        "it snows in queenstown on saturday",
        {"metric": "snow", "day": "saturday", "location": "queenstown"},
        Truth.TRUE,
        "Saturday in Queenstown",
    ),
    # nothing to decide on: unknown, and the sentence says why
    Condition("the weather is nice", {}, Truth.UNKNOWN, "I can only check rain, snow"),
    Condition(
        "the temperature tomorrow",
        {"metric": "temperature", "day": "tomorrow"},
        Truth.UNKNOWN,
        "cold, hot, or below or above",
    ),
]


@pytest.mark.parametrize("condition", CONDITIONS, ids=[c.text for c in CONDITIONS])
def test_condition_is_judged_for_the_day_it_names(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
    condition: Condition,
) -> None:
    source = make_source(
        config, open_meteo.url, tmp_path, frozen(WEDNESDAY_MORNING), **condition.changes
    )
    part = Part(condition.text, "weather.forecast", "weather", condition.slots, 1.0)
    evaluation = check(source, part)
    assert evaluation.truth is condition.truth
    assert condition.says in evaluation.text


@pytest.mark.parametrize(
    ("sentence", "truth"),
    [
        ("if it rains tomorrow turn on the kitchen light", Truth.TRUE),
        ("if it rains on friday turn on the kitchen light", Truth.FALSE),
        ("if it is going to snow on saturday turn on the kitchen light", Truth.FALSE),
    ],
)
def test_understood_condition_evaluates(
    understander: Understander,
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
    sentence: str,
    truth: Truth,
) -> None:
    plan = understander.understand(sentence)
    [step] = plan.steps
    assert isinstance(step, Conditional)
    assert step.condition.source == "weather"
    source = make_source(config, open_meteo.url, tmp_path, frozen(WEDNESDAY_MORNING))
    assert check(source, step.condition).truth is truth


def test_condition_beyond_the_forecast_is_unknown(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    clock.advance(days=6)
    source = make_source(config, open_meteo.url, tmp_path, clock)
    part = Part(
        "it rains on thursday", "weather.forecast", "weather", {"metric": "rain", "day": "thursday"}
    )
    evaluation = check(source, part)
    assert evaluation.truth is Truth.UNKNOWN
    assert evaluation.text == "Thursday is beyond the forecast."


def test_condition_with_the_service_down_is_unknown(config: Config, tmp_path: Path) -> None:
    source = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING))
    part = Part(
        "it rains tomorrow", "weather.forecast", "weather", {"metric": "rain", "day": "tomorrow"}
    )
    evaluation = check(source, part)
    assert evaluation.truth is Truth.UNKNOWN
    assert evaluation.text.startswith("The weather is unavailable: the service cannot be reached")


def test_condition_from_saved_forecast_is_judged_and_dated(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    part = Part(
        "it rains tomorrow", "weather.forecast", "weather", {"metric": "rain", "day": "tomorrow"}
    )
    check(make_source(config, open_meteo.url, tmp_path, clock), part)
    clock.advance(minutes=40)
    evaluation = check(make_source(config, closed_port_url(), tmp_path, clock), part)
    assert evaluation.truth is Truth.TRUE
    assert evaluation.text.startswith("As of 40 minutes ago, tomorrow: 80% chance of rain")
