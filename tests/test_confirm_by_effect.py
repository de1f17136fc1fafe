"""Nobody opens the house without a yes (issue 21): the attacks of a probe against a
running assistant, each played for real (the assistant with the timers and routines
sources, the default home simulated on a real Mosquitto, `support_confirm`), and the
command topics of every guarded device watched by a client of its own.

Whether a command waits for a yes is decided by what it does to the device
(`mnemolis.sources.mqtt.opening`), not by the intent that asked for it: "set the garage
door to 100 percent", "open it halfway", "open it a bit more", delayed, from a watch,
from a routine step, a toggle, a valve, an alarm panel. Each test here fails when that
check is taken out of `Commands.one` (or the timers source stops asking at creation).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import ConfigError
from mnemolis.core.devices import Device
from mnemolis.core.origin import Origin
from mnemolis.runtime.answer import Outcome
from mnemolis.sources.base import Status
from mnemolis.sources.mqtt.opening import ConfirmPolicy, effect_of, load_policy
from mnemolis.sources.mqtt.wire import Act
from tests.support_confirm import ConfirmHouse, Makings, fixture_makings, play_confirm, until
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker, part_for
from tests.support_open_meteo import open_meteo

__all__ = ["broker", "fixture_makings", "fixture_test_zims", "open_meteo"]

GARAGE = "garage door"


@pytest.fixture(name="play")
def fixture_play(makings: Makings) -> Any:
    """``play(scenario)``: the confirmation house for one scenario."""

    def play(scenario: Any) -> None:
        play_confirm(makings, scenario)

    return play


async def asks(home: ConfirmHouse, text: str, question: str, session: str = "default") -> None:
    """``text`` waits for a yes with ``question``, and nothing reaches a guarded device."""
    answer = await home.ask(text, session)
    assert answer.outcome is Outcome.WAITING, answer.text
    assert answer.text.endswith(question), answer.text
    assert await home.quiet(0.3) == [], f"{text!r} sent a command before any yes"


async def sent_by_now(home: ConfirmHouse, count: int) -> list[tuple[str, str]]:
    """What the guarded devices got, once ``count`` commands arrived (the watching client
    hears them a little after the device did), and a moment for any more to show."""
    await until(lambda: len(home.opened.sent()) >= count)
    return await home.quiet(0.1)


# --------------------------------------------------------------------------- the probe's sentences

GARAGE_SENTENCES = [
    (
        "set the garage door to 100 percent",
        "Do you want me to set the garage door to 100 %?",
        '{"position": 100}',
    ),
    (
        "open the garage door halfway",
        "Do you want me to set the garage door to 50 %?",
        '{"position": 50}',
    ),
    (
        "open the garage door a bit more",
        "Do you want me to set the garage door to 10 %?",
        '{"position": 10}',
    ),
    ("raise the garage door", "Do you want me to open the garage door?", '{"state": "OPEN"}'),
]


@pytest.mark.parametrize(("text", "question", "payload"), GARAGE_SENTENCES)
def test_every_way_of_opening_the_garage_door_waits_for_a_yes(
    play: Any, text: str, question: str, payload: str
) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, text, question)
        yes = await home.ask("yes")
        assert yes.outcome is Outcome.ANSWERED, yes.text
        assert await sent_by_now(home, 1) == [(GARAGE, payload)]

    play(scenario)


def test_a_yes_from_another_conversation_opens_nothing(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, "set the garage door to 100 percent", "100 %?", session="probe")
        elsewhere = await home.ask("yes", session="someone else")
        assert elsewhere.outcome is Outcome.NOT_UNDERSTOOD, elsewhere.text
        refused = await home.ask("no", session="probe")
        assert refused.text.startswith("All right, I did not"), refused.text
        late = await home.ask("yes", session="probe")  # the question is gone with the no
        assert late.outcome is Outcome.NOT_UNDERSTOOD, late.text
        assert await home.quiet(0.3) == []

    play(scenario)


def test_a_garage_door_going_down_or_closing_needs_no_yes(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await home.report(GARAGE, state="open", position=100)
        lower = await home.ask("set the garage door to 20 percent")
        assert lower.outcome is Outcome.ANSWERED, lower.text
        closed = await home.ask("close the garage door")
        assert closed.outcome is Outcome.ANSWERED, closed.text
        locked = await home.ask("lock the front door")
        assert locked.outcome is Outcome.ANSWERED, locked.text
        blinds = await home.ask("open the living room blinds")  # not a way in: no yes asked
        assert blinds.outcome is Outcome.ANSWERED, blinds.text
        assert await sent_by_now(home, 3) == [
            (GARAGE, '{"position": 20}'),
            (GARAGE, '{"state": "CLOSE"}'),
            ("front door", '{"state": "LOCK"}'),
        ]

    play(scenario)


# --------------------------------------------------------------------------- later: plans, watches

DELAYED = [
    (
        "in 1 second set the garage door to 100 percent",
        "Do you want me to set the garage door to 100 percent in 1 second?",
    ),
    (
        "in 1 second open the garage door halfway",
        "Do you want me to open the garage door halfway in 1 second?",
    ),
    (
        "in 1 second open the garage door a bit more",
        "Do you want me to open the garage door a bit more in 1 second?",
    ),
    (
        "in 1 second disarm the house alarm",
        "Do you want me to disarm the house alarm in 1 second?",
    ),
]


@pytest.mark.parametrize(("text", "question"), DELAYED)
def test_a_delayed_opening_asks_when_it_is_set_and_never_runs_without_a_yes(
    play: Any, text: str, question: str
) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, text, question)
        moved_on = await home.ask("what time is it")  # no yes: the request is dropped
        assert "I did not" in moved_on.text, moved_on.text
        assert await home.quiet(1.6) == []
        assert home.heard.spoken() == []

    play(scenario)


def test_a_delayed_opening_said_yes_to_runs_then_with_its_yes(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, "in 1 second open the garage door halfway", "halfway in 1 second?")
        yes = await home.ask("yes")
        assert yes.text == "I'll open the garage door halfway in 1 second.", yes.text
        await home.heard.next(timeout_s=5)
        assert await sent_by_now(home, 1) == [(GARAGE, '{"position": 50}')]

    play(scenario)


def test_a_watch_that_would_open_asks_when_it_is_set(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(
            home,
            "when the kitchen light turns on open the garage door halfway",
            "Do you want me to open the garage door halfway when the kitchen light turns on?",
        )
        await home.ask("no")
        # down from where it is now, but it may be closed by then: asked now all the same
        await home.report(GARAGE, state="open", position=100)
        await asks(
            home,
            "when the kitchen light turns on set the garage door to 50 percent",
            "when the kitchen light turns on?",
        )
        await home.ask("what time is it")
        await home.report(GARAGE, state="closed", position=0)
        await home.report("kitchen light", state="ON")
        assert await home.quiet(0.5) == []
        assert home.heard.spoken() == []

    play(scenario)


def test_a_watch_said_yes_to_opens_when_it_fires(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await home.ask("when the kitchen light turns on open the garage door halfway")
        yes = await home.ask("yes")
        assert yes.outcome is Outcome.ANSWERED, yes.text
        assert await home.quiet(0.2) == []
        await home.report("kitchen light", state="ON")
        await home.heard.next(timeout_s=5)
        assert await sent_by_now(home, 1) == [(GARAGE, '{"position": 50}')]

    play(scenario)


def test_a_conditional_asks_before_its_branch_opens(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(
            home,
            "if the kitchen light is off open the garage door halfway",
            "Do you want me to set the garage door to 50 %?",
        )
        await home.ask("yes")
        assert await sent_by_now(home, 1) == [(GARAGE, '{"position": 50}')]

    play(scenario)


def test_a_part_that_comes_due_without_its_yes_is_not_carried_out(play: Any) -> None:
    """The last line: whatever kept a part for later (a plan stored by an older version,
    a state nobody foresaw), it runs through the same gate and opens nothing."""

    async def scenario(home: ConfirmHouse) -> None:
        config = home.house.assistant.config
        parts = [
            part_for(config, "device.set_position", device=GARAGE, position=100),
            part_for(config, "device.set_position", device=GARAGE, step=30),
            part_for(config, "device.open", device=GARAGE),
            part_for(config, "device.unlock", device="front door"),
            part_for(config, "device.open", device="garden tap"),
            part_for(config, "alarm.disarm", device="house alarm"),
            part_for(config, "device.toggle", device=GARAGE),
            part_for(config, "device.toggle", device="front door"),
            part_for(config, "device.toggle", device="gate opener"),
        ]
        answers = await home.house.assistant.run_later(parts, Origin(session="later"), False)
        assert [a.status for a in answers] == [Status.NEEDS_CONFIRMATION] * 6 + [
            Status.OUT_OF_SCOPE,  # a cover does not toggle
            Status.OUT_OF_SCOPE,  # nor does a lock
            Status.NEEDS_CONFIRMATION,  # the gate opener is off: the toggle turns it on
        ]
        assert await home.quiet(0.3) == []

    play(scenario)


# --------------------------------------------------------------------------- routines, toggles

ROUTINE_ATTACKS = [
    (
        "open up the house",
        "Do you want me to set the garage door to 100 %?",
        [(GARAGE, '{"position": 100}')],
    ),
    (
        "garage airing",
        "Do you want me to set the garage door to 50 %?",
        [(GARAGE, '{"position": 50}')],
    ),
    (
        "send the garage message",
        "Do you want me to send the message to home/garage_door/set, which commands the "
        "garage door?",
        [(GARAGE, '{"position": 100}')],
    ),
    (
        "i am home now",
        "Do you want me to disarm the house alarm?",
        [("house alarm", "DISARM")],
    ),
]


@pytest.mark.parametrize(("text", "question", "sent"), ROUTINE_ATTACKS)
def test_a_routine_step_that_opens_asks_first(
    play: Any, text: str, question: str, sent: list[tuple[str, str]]
) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, text, question)
        await home.ask("yes")
        assert await sent_by_now(home, len(sent)) == sent

    play(scenario)


def test_a_routine_set_for_later_asks_when_it_is_set(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(
            home,
            "in 1 second open up the house",
            "Do you want me to open up the house in 1 second?",
        )
        await home.ask("no")
        assert await home.quiet(1.6) == []

    play(scenario)


def test_toggling_the_gate_opener_waits_for_a_yes(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, "toggle the gate opener", "Do you want me to turn on the gate opener?")
        await home.ask("yes")
        assert await sent_by_now(home, 1) == [("gate opener", '{"state": "ON"}')]
        await until(lambda: home.house.commands("gate opener") == ['{"state": "ON"}'])
        off = await home.ask("toggle the gate opener")  # turning it off lets nobody in
        assert off.outcome is Outcome.ANSWERED, off.text

    play(scenario)


# --------------------------------------------------------------------------- valves, the alarm

VALVES_AND_ALARM = [
    ("open the garden tap", "Do you want me to open the garden tap?", ("garden tap", "OPEN")),
    ("turn on the garden tap", "Do you want me to open the garden tap?", ("garden tap", "OPEN")),
    (
        "set the radiator valve to 40 percent",
        "Do you want me to set the radiator valve to 40 %?",
        ("radiator valve", '{"position": 40}'),
    ),
    (
        "disarm the house alarm",
        "Do you want me to disarm the house alarm?",
        ("house alarm", "DISARM"),
    ),
]


@pytest.mark.parametrize(("text", "question", "sent"), VALVES_AND_ALARM)
def test_valves_and_the_alarm_wait_for_a_yes(
    play: Any, text: str, question: str, sent: tuple[str, str]
) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        await asks(home, text, question)
        await home.ask("yes")
        assert await sent_by_now(home, 1) == [sent]

    play(scenario)


def test_closing_a_valve_needs_no_yes(play: Any) -> None:
    async def scenario(home: ConfirmHouse) -> None:
        answer = await home.ask("turn off the garden tap")
        assert answer.parts[0].status in (Status.DONE, Status.NOT_CONFIRMED), answer.text
        assert await sent_by_now(home, 1) == [("garden tap", "CLOSE")]
        await asyncio.sleep(0)

    play(scenario)


# --------------------------------------------------------------------------- the policy, alone


def _device(kind: str, name: str, device_class: str | None = None, **more: Any) -> Device:
    return Device(name=name, type=kind, device_class=device_class, **more)


@pytest.mark.parametrize(
    ("device", "act", "state", "effect"),
    [
        (_device("cover", "garage door", "garage"), Act("open"), {}, "open"),
        (_device("cover", "garage door", "garage"), Act("close"), {}, None),
        (_device("cover", "gate", "gate"), Act("set_position", position=1), {}, "open"),
        (_device("cover", "gate", "gate"), Act("set_position", position=0), {}, None),
        (
            _device("cover", "gate", "gate"),
            Act("set_position", position=40),
            {"position": 60},
            None,
        ),
        (
            _device("cover", "gate", "gate"),
            Act("set_position", position=60),
            {"position": 40},
            "open",
        ),
        (
            _device("cover", "gate", "gate"),
            Act("set_position", position=30),
            {"state": "closed"},
            "open",
        ),
        (
            _device("cover", "gate", "gate"),
            Act("set_position", position=30),
            {"state": "open"},
            "open",
        ),
        (_device("cover", "gate", "gate"), Act("set_tilt", tilt=30), {"tilt": 10}, "open"),
        (_device("valve", "tap"), Act("open"), {}, "open"),
        (_device("valve", "tap"), Act("close"), {}, None),
        (_device("lock", "front door"), Act("unlock"), {}, "unlock"),
        (_device("lock", "front door"), Act("open"), {}, "open"),
        (_device("lock", "front door"), Act("lock"), {}, None),
        (_device("alarm_control_panel", "alarm"), Act("disarm"), {}, "disarm"),
        (_device("alarm_control_panel", "alarm"), Act("arm_away"), {}, None),
        (_device("light", "lamp"), Act("turn_on"), {}, None),
    ],
)
def test_the_effect_of_a_command(
    device: Device, act: Act, state: dict[str, Any], effect: str | None
) -> None:
    assert effect_of(device, act, state) == effect


def test_which_devices_are_guarded_by_default_and_as_configured(tmp_path: Path) -> None:
    policy = ConfirmPolicy()
    guarded = [
        _device("cover", "garage door", "garage"),
        _device("cover", "front gate", "gate"),
        _device("cover", "patio door", "door"),
        _device("cover", "shed door"),  # no class: its name says it
        _device("cover", "driveway gate"),
        _device("valve", "garden tap"),
        _device("lock", "front door"),
        _device("alarm_control_panel", "house alarm"),
    ]
    free = [
        _device("cover", "living room blinds", "blind"),
        _device("cover", "awning"),
        _device("cover", "window shutter", "shutter"),
        _device("light", "garage light"),
    ]
    assert [d.name for d in guarded if not policy.guards(d)] == []
    assert [d.name for d in free if policy.guards(d)] == []
    path = tmp_path / "mqtt.yaml"
    path.write_text("confirm: {cover: [garage, blind], valve: [gas]}\n", encoding="utf-8")
    owner = load_policy({"cover": ["garage", "blind"], "valve": ["gas"]}, path)
    assert owner.guards(_device("cover", "living room blinds", "blind"))
    assert not owner.guards(_device("cover", "front gate", "gate"))
    assert owner.guards(_device("valve", "gas valve"))
    assert not owner.guards(_device("valve", "garden tap", "water"))
    assert owner.guards(_device("lock", "front door"))  # left out: the default
    assert not load_policy({"lock": "none"}, path).guards(_device("lock", "front door"))


def test_a_devices_own_confirm_list_means_the_effect() -> None:
    """``confirm: [unlock, open]`` of older owner files: now every way of doing it."""
    policy = ConfirmPolicy({})  # nothing guarded by type: only the device's own list
    blinds = _device("cover", "blinds", "blind", confirm=["open"])
    assert policy.waits(blinds, Act("set_position", position=30), {"position": 0}) == "open"
    assert policy.waits(blinds, Act("open"), {}) == "open"
    assert policy.waits(blinds, Act("close"), {}) is None
    lock = _device("lock", "shed lock", confirm=["unlock", "open"])
    assert policy.waits(lock, Act("unlock"), {}) == "unlock"
    coffee = _device("switch", "coffee maker", confirm=["start"])
    assert policy.waits(coffee, Act("start"), {}) == "start"
    assert policy.waits(coffee, Act("turn_on"), {}) is None


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "confirm: must map a device type"),
        ({"light": "all"}, "unknown device type 'light'"),
        ({"cover": 3}, "cover must be all, none or a list of device classes"),
    ],
)
def test_a_wrong_confirm_section_is_a_config_error(tmp_path: Path, data: Any, problem: str) -> None:
    path = tmp_path / "mqtt.yaml"
    path.write_text("confirm: x\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=problem):
        load_policy(data, path)
