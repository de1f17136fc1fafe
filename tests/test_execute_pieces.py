"""The pieces of execution on their own: merging replies, reading a yes or a no,
`sources/assistant.yaml`, and the executor's guard against a source that breaks
its own promise (hangs past its deadline, raises, answers nonsense)."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from mnemolis.cli.main import main
from mnemolis.config import Config, ConfigError, load_config
from mnemolis.core.plan import Conditional, Part, Plan
from mnemolis.core.sentences import as_sentence, split_sentences
from mnemolis.runtime.answer import Outcome, PartResult, StepResult
from mnemolis.runtime.conversation import YesNo
from mnemolis.runtime.execute import Executor
from mnemolis.runtime.merge import merge, spoken
from mnemolis.runtime.settings import AssistantSettings, source_timeouts
from mnemolis.sources.base import Evaluation, PartAnswer, Request, Status, Truth
from mnemolis.sources.clock.source import ClockSource
from tests.conftest import ROOT
from tests.support_time import FrozenClock
from tests.support_weather import WEDNESDAY_MORNING


def step(text: str, status: Status = Status.OK) -> StepResult:
    part = Part(text="asked", intent="clock.time", source="clock")
    return StepResult(text, [PartResult(part, PartAnswer(text, status, "clock"))])


# --------------------------------------------------------------------------- merging

SPOKEN = [
    # (step texts, max chars, reply)
    (
        ["done: the porch light is on", "it's 10:00"],
        500,
        "Done: the porch light is on. It's 10:00.",
    ),
    (["It's 10:00.", "it's 10:00"], 500, "It's 10:00."),  # the same fact once
    (
        [
            "Tomorrow: rain. The forecast is from 2 hours ago.",
            "Friday: sun. The forecast is from 2 hours ago.",
        ],
        500,
        "Tomorrow: rain. The forecast is from 2 hours ago. Friday: sun.",
    ),
    (
        [
            "Ada was a mathematician. She wrote notes. She died young.",
            "done: the porch light is on",
        ],
        70,  # "she died young" left out, and said to be
        "Ada was a mathematician. Done: the porch light is on. There is more.",
    ),
    (
        [
            "Ada was a mathematician. She wrote notes.",
            "It's 10:00.",
            "Tomorrow: rain all day long.",
        ],
        40,  # the note counts too: the reply stays within the limit
        "Ada was a mathematician. There is more.",
    ),
]


@pytest.mark.parametrize(("texts", "limit", "reply"), SPOKEN)
def test_the_reply_keeps_order_says_each_fact_once_and_stays_short(
    texts: list[str], limit: int, reply: str
) -> None:
    assert spoken([step(t) for t in texts], limit, "there is more") == reply


SENTENCES = [
    ("She worked on Mr. Babbage's engine. It was never built.", 2),
    ("J. R. R. Tolkien wrote it. It is long.", 2),
    ("It is 3.5 km away. Yes!", 2),
    ("done: the light is on", 1),
]


@pytest.mark.parametrize(("text", "count"), SENTENCES)
def test_sentences_split_at_their_ends_only(text: str, count: int) -> None:
    assert len(split_sentences(text)) == count
    assert " ".join(split_sentences(text)) == text


def test_merge_keeps_every_part_for_machines(config: Config) -> None:
    settings = AssistantSettings.from_config(config)
    answer = merge("q", [step("It's 10:00."), step("It's 10:00.")], settings, ms=3.0)
    assert answer.text == "It's 10:00."
    assert len(answer.parts) == 2
    assert answer.outcome is Outcome.ANSWERED
    empty = merge("", [], settings, empty="I didn't catch a request.")
    assert empty.text == "I didn't catch a request."
    assert empty.outcome is Outcome.NOT_UNDERSTOOD


OUTCOMES = [
    ([Status.OK, Status.DONE, Status.DECLINED], Outcome.ANSWERED),
    ([Status.OK, Status.ERROR], Outcome.PARTIAL),
    ([Status.DONE, Status.OUT_OF_SCOPE], Outcome.PARTIAL),
    ([Status.ERROR, Status.NOT_CONFIRMED], Outcome.FAILED),
    ([Status.OUT_OF_SCOPE], Outcome.NOT_UNDERSTOOD),
    ([Status.NEEDS_CONFIRMATION, Status.OK], Outcome.WAITING),
    ([Status.NEEDS_CONFIRMATION, Status.ERROR], Outcome.PARTIAL),
]


@pytest.mark.parametrize(("found", "outcome"), OUTCOMES)
def test_the_outcome_of_an_answer(config: Config, found: list[Status], outcome: Outcome) -> None:
    settings = AssistantSettings.from_config(config)
    assert merge("q", [step("x", s) for s in found], settings).outcome is outcome


# --------------------------------------------------------------------------- yes and no

YES_NO = [
    ("yes", True),
    ("yeah go ahead", True),
    ("ok", True),
    ("please do", True),
    ("no", False),
    ("do not", False),
    ("never mind", False),
    ("nope cancel", False),
    ("yes no", None),
    ("yes turn on the light", None),
    ("turn on the light", None),
    ("", None),
]


@pytest.mark.parametrize(("text", "meaning"), YES_NO)
def test_a_turn_of_only_yes_or_only_no_words(
    config: Config, text: str, meaning: bool | None
) -> None:
    reader = YesNo(config.language.yes_words, config.language.no_words)
    assert reader.read(text) is meaning


# --------------------------------------------------------------------------- sources/assistant.yaml


def test_each_source_has_the_deadline_its_own_yaml_names(config: Config) -> None:
    assert source_timeouts(config) == {
        "mqtt": 3.0,
        "kiwix": 3.0,
        "weather": 4.0,
        "routines": 7.0,
        "music": 3.0,
        "lists": 8.0,  # longer than its wait for another process's write
    }
    settings = AssistantSettings.from_config(config)
    assert settings.timeout_for("clock") == settings.source_timeout_s


def copied_config(tmp_path: Path, assistant_yaml: str) -> Path:
    for folder in ("intents", "sources"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "sources" / "assistant.yaml").write_text(assistant_yaml, encoding="utf-8")
    return tmp_path


BAD_SETTINGS = [
    ("deadline_s: 8\nmax_chars: -1\n", "assistant.yaml:2: max_chars must be a number"),
    ("deadline_s: soon\n", "assistant.yaml:1: deadline_s must be a number"),
    ("deadlines: 3\n", "assistant.yaml:1: unknown key 'deadlines'"),
    (
        "replies:\n  declined:\n    decline.musik: I can't\n",
        "assistant.yaml:3: 'decline.musik' is not a declined intent",
    ),
]


@pytest.mark.parametrize(("text", "error"), BAD_SETTINGS)
def test_a_wrong_setting_names_its_file_and_line(tmp_path: Path, text: str, error: str) -> None:
    folder = copied_config(tmp_path, text)
    with pytest.raises(ConfigError, match=error):
        AssistantSettings.from_config(load_config(folder))
    assert main(["--config", str(folder), "check"]) == 2


def test_an_owner_file_without_a_sentence_falls_back_to_the_shipped_one(tmp_path: Path) -> None:
    folder = copied_config(tmp_path, "replies:\n  refused: 'Fine, I left {request} alone'\n")
    settings = AssistantSettings.from_config(load_config(folder))
    assert settings.replies.say("refused", request="the door") == "Fine, I left the door alone"
    assert settings.replies.declined("decline.music") == "I can't play music"
    assert settings.deadline_s == 8.0


# --------------------------------------------------------------------------- a source that misbehaves


class Misbehaving:
    """A source that breaks the protocol's promises, the way a bug would."""

    def __init__(self, name: str, how: str) -> None:
        self.name = name
        self.how = how

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        return await self._misbehave()  # type: ignore[no-any-return]

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return await self._misbehave()  # type: ignore[no-any-return]

    async def _misbehave(self) -> Any:
        if self.how == "hang":
            await asyncio.sleep(60)
        if self.how == "raise":
            raise RuntimeError("the adapter has a bug")
        return {"not": "an answer"}


MISBEHAVIOUR = [
    ("hang", "The weather source took longer than 0.2 seconds, so I stopped waiting for it."),
    (
        "raise",
        'The weather source failed on "what is the weather tomorrow" (RuntimeError: the adapter has a bug).',
    ),
    ("nonsense", 'The weather source failed on "what is the weather tomorrow" (dict).'),
]


@pytest.mark.parametrize(("how", "reply"), MISBEHAVIOUR)
def test_a_misbehaving_source_fails_only_its_own_part(config: Config, how: str, reply: str) -> None:
    settings = dataclasses.replace(
        AssistantSettings.from_config(config), source_timeouts={"weather": 0.2}, grace_s=0.05
    )
    clock = ClockSource(config, now=FrozenClock(WEDNESDAY_MORNING))
    executor = Executor({"weather": Misbehaving("weather", how), "clock": clock}, settings)
    weather = Part(
        "what is the weather tomorrow", "weather.forecast", "weather", {"day": "tomorrow"}
    )
    time_part = Part("what time is it", "clock.time", "clock")
    condition = Part("it rains tomorrow", "weather.forecast", "weather", {"metric": "rain"})
    plan = Plan("q", [weather, time_part, Conditional(condition, [time_part])])
    first, second, third = asyncio.run(executor.run(plan))
    assert first.text == reply
    assert first.parts[0].status is Status.ERROR
    assert second.text == "It's 10:00."
    assert third.parts[0].answer.data["truth"] == str(Truth.UNKNOWN)
    assert third.text.startswith("I couldn't tell whether it rains tomorrow")


def test_a_part_for_a_source_that_is_not_running_says_so(config: Config) -> None:
    executor = Executor({}, AssistantSettings.from_config(config))
    part = Part("who was ada lovelace", "knowledge.lookup", "kiwix", {"topic": "ada lovelace"})
    (result,) = asyncio.run(executor.run(Plan("q", [part])))
    assert result.text == as_sentence(
        'The kiwix source is not running, so I couldn\'t answer "who was ada lovelace"'
    )
    assert result.parts[0].status is Status.ERROR
