"""Never act on a mishearing: the assistant asks back an action heard with doubt, and
acts on nothing it did not hear; on the simulated home over a real Mosquitto."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemolis.config import ConfigError
from mnemolis.core.heard import Heard
from mnemolis.runtime.answer import Answer, Outcome
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.sources.base import Status
from tests.support_assistant import House, World, fixture_world, running_assistant, statuses
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.support_routines import owner_config

__all__ = ["broker", "fixture_test_zims", "fixture_world", "open_meteo"]

T = TypeVar("T")
ON, OFF = '{"state": "ON"}', '{"state": "OFF"}'
UNLOCK = '{"state": "UNLOCK"}'
SURE, UNSURE = 0.95, 0.3
DEVICES = ("kitchen light", "front door", "garage door", "bedroom light", "living room lamp")


def heard(
    text: str, confidence: float = SURE, rejected: str | None = None, covered: float = 1.0
) -> Heard:
    return Heard(text, confidence, rejected=rejected, engine="test rows", covered=covered)


async def say(house: House, text: str, confidence: float = SURE, covered: float = 1.0) -> Answer:
    """A turn as a recogniser hands it over: the text, how sure it was, and how much of
    the speech its words lie over."""
    return await house.assistant.ask(text, "voice", heard=heard(text, confidence, None, covered))


def commands(house: House) -> dict[str, list[str]]:
    return {d: house.commands(d) for d in DEVICES if house.commands(d)}


# (heard, confidence, reply, outcome, commands the house received)
ONE_TURN = [
    (
        "turn off the kitchen light",
        UNSURE,
        "Did you say: turn off the kitchen light?",
        Outcome.WAITING,
        {},
    ),
    ("turn off the kitchen light", SURE, "Done: the kitchen light is off.", Outcome.ANSWERED, {"kitchen light": [OFF]}),
    ("what time is it", UNSURE, "It's 10:00.", Outcome.ANSWERED, {}),  # a question: answered
    ("is the back door locked", UNSURE, "Yes, the back door is locked.", Outcome.ANSWERED, {}),
    (
        "turn on the kitchen light and what time is it",
        UNSURE,
        "Did you say: turn on the kitchen light and what time is it?",
        Outcome.WAITING,
        {},
    ),
    ("unlock the front door", UNSURE, "Did you say: unlock the front door?", Outcome.WAITING, {}),
    ("set a timer for 5 minutes", UNSURE, "Did you say: set a timer for 5 minutes?", Outcome.WAITING, {}),
]


@pytest.mark.parametrize(("text", "confidence", "reply", "outcome", "sent"), ONE_TURN)
def test_an_action_heard_with_doubt_is_asked_back_and_a_question_answered(
    world: World,
    text: str,
    confidence: float,
    reply: str,
    outcome: Outcome,
    sent: dict[str, list[str]],
) -> None:
    async def scenario(house: House) -> None:
        answer = await say(house, text, confidence)
        assert (answer.text, answer.outcome) == (reply, outcome)
        assert commands(house) == sent
        if outcome is Outcome.WAITING:
            assert answer.parts[-1].answer.data["waiting_for"] == "heard"

    world.run(scenario)


# (heard with confidence, the share of the speech its words lie over, reply, outcome,
# commands the house received)
PARTLY_COVERED = [
    (
        "turn off the kitchen light",
        0.75,
        "Did you say: turn off the kitchen light?",
        Outcome.WAITING,
        {},
    ),
    ("turn off the kitchen light", 0.85, "Done: the kitchen light is off.", Outcome.ANSWERED, {"kitchen light": [OFF]}),
    ("what time is it", 0.5, "It's 10:00.", Outcome.ANSWERED, {}),  # a question: answered
]


@pytest.mark.parametrize(("text", "covered", "reply", "outcome", "sent"), PARTLY_COVERED)
def test_an_action_heard_over_part_of_the_speech_is_asked_back(
    world: World,
    text: str,
    covered: float,
    reply: str,
    outcome: Outcome,
    sent: dict[str, list[str]],
) -> None:
    """Sure of every word, but the words lie over too little of what was said."""

    async def scenario(house: House) -> None:
        answer = await say(house, text, SURE, covered)
        assert (answer.text, answer.outcome) == (reply, outcome)
        assert commands(house) == sent

    world.run(scenario)


def test_a_sure_yes_confirms_however_much_of_the_speech_it_covers(world: World) -> None:
    """A one-word answer's breath is most of its sound: a yes heard sure confirms both
    the "Did you say ...?" and a lock's own question."""

    async def scenario(house: House) -> None:
        asked = await say(house, "unlock the front door", SURE, 0.75)
        assert asked.text == "Did you say: unlock the front door?"
        assert (await say(house, "yes", SURE, 0.72)).text == (
            "Do you want me to unlock the front door?"
        )
        assert commands(house) == {}
        assert (await say(house, "yes", SURE, 0.72)).text == "Done: the front door is unlocked."
        assert commands(house) == {"front door": [UNLOCK]}

    world.run(scenario)


@pytest.mark.parametrize(
    ("rejected", "text"), [("silence", ""), ("not a request I know", ""), (None, "   ")]
)
def test_speech_the_recogniser_rejected_acts_on_nothing(
    world: World, rejected: str | None, text: str
) -> None:
    async def scenario(house: House) -> None:
        await house.ask("unlock the front door", "voice")  # waiting for its yes
        answer = await house.assistant.ask(text, "voice", heard=heard(text, 0.0, rejected))
        assert answer.text == "Sorry, I didn't catch that."
        assert answer.outcome is Outcome.NOT_UNDERSTOOD
        assert answer.parts[0].answer.data["reason"] == (rejected or "nothing heard")
        assert commands(house) == {}
        # the question it did not hear an answer to still waits
        assert (await say(house, "yes")).text == "Done: the front door is unlocked."

    world.run(scenario)


# (turns after "turn off the kitchen light" heard with doubt: text, confidence, reply),
# then the commands the kitchen light received
ANSWERS_BACK = [
    ([("yes", SURE, "Done: the kitchen light is off.")], [OFF]),
    ([("yeah go ahead", SURE, "Done: the kitchen light is off.")], [OFF]),
    ([("no", SURE, "All right, I did not turn off the kitchen light.")], []),
    ([("no", UNSURE, "All right, I did not turn off the kitchen light.")], []),  # a no never acts
    (
        [
            ("yes", UNSURE, "Sorry, I didn't catch that: please say yes or no."),
            ("yes", SURE, "Done: the kitchen light is off."),
        ],
        [OFF],
    ),
    ([("turn on the kitchen light", SURE, "Done: the kitchen light is on.")], [ON]),
    (
        [
            ("what time is it", SURE, "It's 10:00."),
            ("yes", SURE, "There is nothing waiting for a yes or a no."),
        ],
        [],
    ),
]


@pytest.mark.parametrize(("turns", "sent"), ANSWERS_BACK)
def test_a_yes_runs_what_was_asked_back_and_a_no_drops_it(
    world: World, turns: list[tuple[str, float, str]], sent: list[str]
) -> None:
    async def scenario(house: House) -> None:
        await say(house, "turn on the kitchen light")
        before = house.commands("kitchen light")
        asked = await say(house, "turn off the kitchen light", UNSURE)
        assert asked.outcome is Outcome.WAITING
        for text, confidence, reply in turns:
            assert (await say(house, text, confidence)).text == reply
        assert house.commands("kitchen light")[len(before) :] == sent

    world.run(scenario)


def test_an_unlock_heard_with_doubt_still_needs_its_own_spoken_yes(world: World) -> None:
    async def scenario(house: House) -> None:
        assert (await say(house, "unlock the front door", UNSURE)).text == (
            "Did you say: unlock the front door?"
        )
        asked = await say(house, "yes")
        assert asked.text == "Do you want me to unlock the front door?"
        assert statuses(asked) == [Status.NEEDS_CONFIRMATION]
        assert commands(house) == {}
        doubtful_yes = await say(house, "yes", UNSURE)  # a doubtful yes never unlocks
        assert doubtful_yes.text == "Sorry, I didn't catch that: please say yes or no."
        assert commands(house) == {}
        assert (await say(house, "yes")).text == "Done: the front door is unlocked."
        assert commands(house) == {"front door": [UNLOCK]}

    world.run(scenario)


def test_a_question_asked_back_expires(world: World) -> None:
    async def scenario(house: House) -> None:
        await say(house, "turn off the kitchen light", UNSURE)
        house.turns.advance(house.assistant.settings.confirm_expiry_s + 1)
        answer = await say(house, "yes")
        assert answer.text == (
            "That question has expired, so I did not turn off the kitchen light; "
            "ask again if you still want it."
        )
        assert commands(house) == {}

    world.run(scenario)


def test_typed_text_is_never_doubted(world: World) -> None:
    async def scenario(house: House) -> None:
        answer = await house.ask("turn off the kitchen light")
        assert answer.text == "Done: the kitchen light is off."

    world.run(scenario)


# --------------------------------------------------------------------------- the property


class HouseThread:
    """One running house for many hypothesis examples: its loop runs in a thread."""

    def __init__(self, world: World) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.context = running_assistant(
            world.config, world.broker, world.open_meteo.url, world.zims.main, world.folder / "w"
        )
        self.house: House = self.run(self.context.__aenter__())

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout=30)

    def close(self) -> None:
        self.run(self.context.__aexit__(None, None, None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture(name="house_thread")
def fixture_house_thread(
    config: Any, broker: Any, open_meteo: Any, test_zims: Any, tmp_path_factory: Any
) -> Iterator[HouseThread]:
    world = World(config, broker, open_meteo, test_zims, tmp_path_factory.mktemp("heard"))
    running = HouseThread(world)
    yield running
    running.close()


ACTIONS = [
    "turn off the kitchen light",
    "turn on the bedroom light",
    "unlock the front door",
    "open the garage door",
    "turn on the living room lamp and what time is it",
    "if the back door is locked turn on the kitchen light",
    "turn it off",
]
REPLIES = ["yes", "yeah go ahead", "sure", "no", "do it", "okay"]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    turns=st.lists(
        st.tuples(
            st.sampled_from(ACTIONS + REPLIES) | st.text(max_size=30),
            st.floats(min_value=0.0, max_value=0.59) | st.just(-1.0),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_doubtful_or_rejected_hearing_never_acts(
    house_thread: HouseThread, turns: list[tuple[str, float]]
) -> None:
    """Whatever is heard with doubt, or rejected (confidence -1 here: empty text), in any
    order and after any question, no device receives a command."""
    house = house_thread.house
    session = f"p{id(turns)}"
    before = {d: len(house.commands(d)) for d in DEVICES}
    for text, confidence in turns:
        hearing = heard("", 0.0, "silence") if confidence < 0 else heard(text, confidence)
        house_thread.run(house.assistant.ask(hearing.text, session, heard=hearing))
    house_thread.run(asyncio.sleep(0.05))  # a command sent would have reached the devices
    assert {d: len(house.commands(d)) for d in DEVICES} == before
    house.assistant.forget(session)


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("heard_yaml", "error"),
    [
        ("heard:\n  ask_back_below: 1.5\n", "ask_back_below must be a share from 0 to 1"),
        ("heard:\n  ask_back_below: yes\n", "ask_back_below must be a share from 0 to 1"),
        ("heard:\n  ask_back_covered: -0.1\n", "ask_back_covered must be a share from 0 to 1"),
        ("heard:\n  answer_directly: clock.*\n", "answer_directly must be a list of intent names"),
        ("heard:\n  ask_below: 0.5\n", "unknown key 'ask_below'"),
    ],
)
def test_heard_settings_are_checked_with_file_and_line(
    tmp_path: Path, heard_yaml: str, error: str
) -> None:
    config = owner_config(tmp_path, "intents: {}\n", assistant=heard_yaml)
    with pytest.raises(ConfigError) as raised:
        AssistantSettings.from_config(config)
    assert error in str(raised.value)
    assert str(raised.value).startswith(f"{tmp_path / 'sources' / 'assistant.yaml'}:2:")
