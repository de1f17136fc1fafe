"""Timers, alarms, reminders, scheduled actions and watches: the sentence table.

Each row is a request and the plan it must give: every step's intent and slots
(durations in seconds; clock times as spoken), and for every part its schedule
(``at``: after so many seconds, or at an hour and minute, maybe on a day) or none.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.core.plan import Conditional, Part, Plan
from mnemolis.understand import Understander
from tests.expect import C, P, plan_problems


class T(P):
    """An expected part and its schedule (None: it must have none)."""

    def __init__(self, intent: str | None, at: dict[str, Any] | None = None, **slots: Any) -> None:
        self.when = slots.pop("when", None)  # a time slot, compared without its words
        super().__init__(intent, **slots)
        self.at = at


def W(cond: T, *then: T) -> C:
    """A watch: "let me know when <cond>" (nothing to run), or "when <cond>, <then>"."""
    return C(cond, list(then), trigger="when")


def _said(value: Any) -> Any:
    return {k: v for k, v in value.items() if k != "text"} if isinstance(value, dict) else value


def schedule_problems(expected: list[P | C], plan: Plan) -> list[str]:
    wanted: list[P] = []
    for exp in expected:
        wanted += [exp] if isinstance(exp, P) else [exp.cond, *exp.then, *exp.otherwise]
    problems = []
    for exp, part in zip(wanted, plan.parts(), strict=False):
        want = getattr(exp, "at", None)
        got = _said(part.schedule.to_dict()) if part.schedule is not None else None
        if got != want:
            problems.append(f"{part.text!r}: schedule {got}, expected {want}")
        when = getattr(exp, "when", None)
        if _said(part.slots.get("when")) != when:
            problems.append(f"{part.text!r}: when {part.slots.get('when')}, expected {when}")
    return problems


# fmt: off
ROWS = [
    ("set a timer for 5 minutes", [T("timer.start", duration=300)]),
    ("set a timer for five minutes", [T("timer.start", duration=300)]),
    ("timer for 10 minutes", [T("timer.start", duration=600)]),
    ("start a timer for 30 seconds", [T("timer.start", duration=30)]),
    ("set a 15 minute timer", [T("timer.start", duration=900)]),
    ("start a 10 minute pasta timer", [T("timer.start", duration=600, timer_name="pasta")]),
    ("set a pasta timer for 12 minutes", [T("timer.start", duration=720, timer_name="pasta")]),
    ("set a timer for an hour", [T("timer.start", duration=3600)]),
    ("set a timer for an hour and a half", [T("timer.start", duration=5400)]),
    ("set a timer for one and a half hours", [T("timer.start", duration=5400)]),
    ("set a timer for 2 hours and 15 minutes", [T("timer.start", duration=8100)]),
    ("set a timer for half an hour", [T("timer.start", duration=1800)]),
    ("set a timer for a quarter of an hour", [T("timer.start", duration=900)]),
    ("set a timer for 90 seconds", [T("timer.start", duration=90)]),
    ("set a timer for 1 minute and 30 seconds", [T("timer.start", duration=90)]),
    ("can you set a timer for 20 minutes please", [T("timer.start", duration=1200)]),
    ("i need a timer for 8 minutes", [T("timer.start", duration=480)]),
    ("set a kitchen timer for 5 minutes", [T("timer.start", room="kitchen", duration=300)]),
    ("set a timer for 3 minutes called tea", [T("timer.start", duration=180, timer_name="tea")]),
    ("set a timer named eggs for 6 minutes", [T("timer.start", duration=360, timer_name="eggs")]),
    ("set an egg timer for 7 minutes", [T("timer.start", duration=420, timer_name="egg")]),
    ("countdown 60 seconds", [T("timer.start", duration=60)]),
    ("set a timer for three minutes for the tea", [T("timer.start", duration=180, timer_name="tea")]),
    ("set a timer for a couple of minutes", [T("timer.start", duration=120)]),
    ("start a 45 second timer", [T("timer.start", duration=45)]),
    ("set a timer for 25 minutes for the cake", [T("timer.start", duration=1500, timer_name="cake")]),
    ("set a timer for 2 hours", [T("timer.start", duration=7200)]),
    ("put a timer on for 4 minutes", [T("timer.start", duration=240)]),
    ("set a two minute timer", [T("timer.start", duration=120)]),
    ("make a timer for 10 minutes", [T("timer.start", duration=600)]),
    ("cancel the timer", [T("timer.cancel", kind="timer")]),
    ("cancel my timer", [T("timer.cancel", kind="timer")]),
    ("stop the timer", [T("timer.cancel", kind="timer")]),
    ("cancel the pasta timer", [T("timer.cancel", kind="timer", timer_name="pasta")]),
    ("cancel all timers", [T("timer.cancel", every="all", kind="timer")]),
    ("cancel all my timers", [T("timer.cancel", every="all", kind="timer")]),
    ("delete the tea timer", [T("timer.cancel", kind="timer", timer_name="tea")]),
    ("stop the 10 minute timer", [T("timer.cancel", kind="timer", duration=600)]),
    ("turn off the timer", [T("timer.cancel", kind="timer")]),
    ("cancel my alarm", [T("timer.cancel", kind="alarm")]),
    ("cancel the alarm for tomorrow", [T("timer.cancel", kind="alarm")]),
    ("delete all alarms", [T("timer.cancel", every="all", kind="alarm")]),
    ("cancel my reminder", [T("timer.cancel", kind="reminder")]),
    ("cancel all reminders", [T("timer.cancel", every="all", kind="reminder")]),
    ("never mind the timer", [T("timer.cancel", kind="timer")]),
    ("add two minutes", [T("timer.add", duration=120)]),
    ("add 5 minutes to the timer", [T("timer.add", kind="timer", duration=300)]),
    ("add 30 seconds to the pasta timer", [T("timer.add", kind="timer", duration=30, timer_name="pasta")]),
    ("add another minute", [T("timer.add", duration=60)]),
    ("extend the timer by 10 minutes", [T("timer.add", kind="timer", duration=600)]),
    ("take 1 minute off the timer", [T("timer.subtract", kind="timer", duration=60)]),
    ("remove 30 seconds from the tea timer", [T("timer.subtract", kind="timer", duration=30, timer_name="tea")]),
    ("take two minutes off", [T("timer.subtract", duration=120)]),
    ("snooze", [T("timer.add")]),
    ("snooze for 5 minutes", [T("timer.add", duration=300)]),
    ("pause the timer", [T("timer.pause", kind="timer")]),
    ("pause the pasta timer", [T("timer.pause", kind="timer", timer_name="pasta")]),
    ("pause all timers", [T("timer.pause", every="all", kind="timer")]),
    ("resume the timer", [T("timer.resume", kind="timer")]),
    ("continue the pasta timer", [T("timer.resume", kind="timer", timer_name="pasta")]),
    ("unpause the timer", [T("timer.resume", kind="timer")]),
    ("how much time is left", [T("timer.status")]),
    ("how much time is left on the timer", [T("timer.status", kind="timer")]),
    ("how much time is left on the pasta timer", [T("timer.status", kind="timer", timer_name="pasta")]),
    ("how long left on my timer", [T("timer.status", kind="timer")]),
    ("how long is left on the tea timer", [T("timer.status", kind="timer", timer_name="tea")]),
    ("how long is left on the 20 minute timer", [T("timer.status", kind="timer", duration=1200)]),
    ("set a timer for 1/2 an hour", [T("timer.start", duration=1800)]),
    ("set a timer for 3/4 of an hour", [T("timer.start", duration=2700)]),
    ("what timers do i have", [T("timer.status", kind="timer")]),
    ("what timers are running", [T("timer.status", kind="timer")]),
    ("do i have any timers", [T("timer.status", kind="timer")]),
    ("list my timers", [T("timer.status", kind="timer")]),
    ("what alarms do i have", [T("timer.status", kind="alarm")]),
    ("when is my alarm", [T("timer.status", kind="alarm")]),
    ("what time is my alarm set for tomorrow", [T("timer.status", kind="alarm")]),
    ("list all of my alarms", [T("timer.status", every="all", kind="alarm")]),
    ("what reminders do i have", [T("timer.status", kind="reminder")]),
    ("do i have any reminders", [T("timer.status", kind="reminder")]),
    ("wake me at 7", [T("alarm.set", when={"hour": 7, "minute": 0, "am_or_pm": True})]),
    ("wake me up at 6:30", [T("alarm.set", when={"hour": 6, "minute": 30, "am_or_pm": True})]),
    ("wake me up at 7 am", [T("alarm.set", when={"hour": 7, "minute": 0})]),
    ("set an alarm for 7", [T("alarm.set", when={"hour": 7, "minute": 0, "am_or_pm": True})]),
    ("set an alarm for 6:30 tomorrow", [T("alarm.set", when={"hour": 6, "minute": 30, "am_or_pm": True, "day": "tomorrow"})]),
    ("set an alarm for 7 30 am", [T("alarm.set", when={"hour": 7, "minute": 30})]),
    ("set an alarm for seven thirty am", [T("alarm.set", when={"hour": 7, "minute": 30})]),
    ("set an alarm for noon", [T("alarm.set", when={"hour": 12, "minute": 0})]),
    ("set an alarm at 5 pm", [T("alarm.set", when={"hour": 17, "minute": 0})]),
    ("wake me up tomorrow at 6", [T("alarm.set", when={"hour": 6, "minute": 0, "am_or_pm": True, "day": "tomorrow"})]),
    ("set an alarm for 8 on monday", [T("alarm.set", when={"hour": 8, "minute": 0, "am_or_pm": True, "day": "monday"})]),
    ("set an alarm in 30 minutes", [T("alarm.set", when={"after_s": 1800})]),
    ("set an alarm for half past 6", [T("alarm.set", when={"hour": 6, "minute": 30, "am_or_pm": True})]),
    ("wake me up at quarter to 7", [T("alarm.set", when={"hour": 6, "minute": 45, "am_or_pm": True})]),
    ("set an alarm for 07:15", [T("alarm.set", when={"hour": 7, "minute": 15})]),
    ("set an alarm for 23:00", [T("alarm.set", when={"hour": 23, "minute": 0})]),
    ("remind me to call mom at 5", [T("reminder.set", when={"hour": 5, "minute": 0, "am_or_pm": True}, message="call mom")]),
    ("remind me to take out the trash at 8 pm", [T("reminder.set", when={"hour": 20, "minute": 0}, message="take out the trash")]),
    ("remind me to water the plants tomorrow", [T("reminder.set", when={"day": "tomorrow"}, message="water the plants")]),
    ("remind me in 20 minutes to check the oven", [T("reminder.set", when={"after_s": 1200}, message="check the oven")]),
    ("in 20 minutes remind me to take the cake out", [T("reminder.set", when={"after_s": 1200}, message="take the cake out")]),
    ("remind me at 6 to feed the cat", [T("reminder.set", when={"hour": 6, "minute": 0, "am_or_pm": True}, message="feed the cat")]),
    ("remind me tomorrow at 9 to call the dentist", [T("reminder.set", when={"hour": 9, "minute": 0, "am_or_pm": True, "day": "tomorrow"}, message="call the dentist")]),
    ("remind me to stretch in an hour", [T("reminder.set", when={"after_s": 3600}, message="stretch")]),
    ("remind me about the meeting at 3 pm", [T("reminder.set", when={"hour": 15, "minute": 0}, message="the meeting")]),
    ("set a reminder for 4 pm to pick up the kids", [T("reminder.set", when={"hour": 16, "minute": 0}, message="pick up the kids")]),
    ("remind me to buy milk on friday", [T("reminder.set", when={"day": "friday"}, message="buy milk")]),
    ("remind me to move the car at 7:45 tomorrow", [T("reminder.set", when={"hour": 7, "minute": 45, "am_or_pm": True, "day": "tomorrow"}, message="move the car")]),
    ("don't let me forget to call grandma at 6", [T("reminder.set", when={"hour": 6, "minute": 0, "am_or_pm": True}, message="call grandma")]),
    ("remind me to check the laundry in 40 minutes", [T("reminder.set", when={"after_s": 2400}, message="check the laundry")]),
    ("remind me to turn off the oven in 15 minutes", [T("reminder.set", when={"after_s": 900}, message="turn off the oven")]),
    ("in 5 minutes turn off the porch light", [T("device.turn_off", at={"after_s": 300}, device="porch light")]),
    ("turn off the porch light in 5 minutes", [T("device.turn_off", at={"after_s": 300}, device="porch light")]),
    ("in 10 minutes turn on the kitchen light", [T("device.turn_on", at={"after_s": 600}, device="kitchen light")]),
    ("turn on the kitchen light in ten minutes", [T("device.turn_on", at={"after_s": 600}, device="kitchen light")]),
    ("turn off all the lights at 11 pm", [T("device.turn_off", at={"hour": 23, "minute": 0}, device=["bedroom light", "hallway light", "kitchen light", "living room lamp", "porch light"])]),
    ("at 11 pm turn off all the lights", [T("device.turn_off", at={"hour": 23, "minute": 0}, device=["bedroom light", "hallway light", "kitchen light", "living room lamp", "porch light"])]),
    ("open the garage door in 5 minutes", [T("device.open", at={"after_s": 300}, device="garage door")]),
    ("close the garage door in 10 minutes", [T("device.close", at={"after_s": 600}, device="garage door")]),
    ("lock the front door in 2 minutes", [T("device.lock", at={"after_s": 120}, device="front door")]),
    ("unlock the front door in 1 minute", [T("device.unlock", at={"after_s": 60}, device="front door")]),
    ("turn off the bedroom light at 10:30 pm", [T("device.turn_off", at={"hour": 22, "minute": 30}, device="bedroom light")]),
    ("turn on the coffee maker at 7 am", [T("device.turn_on", at={"hour": 7, "minute": 0}, device="coffee maker")]),
    ("at 6:30 tomorrow turn on the coffee maker", [T("device.turn_on", at={"hour": 6, "minute": 30, "am_or_pm": True, "day": "tomorrow"}, device="coffee maker")]),
    ("set the thermostat to 20 degrees at 6 am", [T("device.set_temperature", at={"hour": 6, "minute": 0}, device="thermostat", temperature=20)]),
    ("dim the living room lamp to 30 percent in 15 minutes", [T("device.set_brightness", at={"after_s": 900}, device="living room lamp", brightness=30)]),
    ("close the living room blinds at 9 pm", [T("device.close", at={"hour": 21, "minute": 0}, device="living room blinds")]),
    ("open the living room blinds tomorrow at 7", [T("device.open", at={"hour": 7, "minute": 0, "am_or_pm": True, "day": "tomorrow"}, device="living room blinds")]),
    ("turn off the kitchen light 10 minutes from now", [T("device.turn_off", at={"after_s": 600}, device="kitchen light")]),
    ("in an hour turn off the hallway light", [T("device.turn_off", at={"after_s": 3600}, device="hallway light")]),
    ("turn off the porch light and the hallway light in 5 minutes", [T("device.turn_off", at={"after_s": 300}, device="porch light"), T("device.turn_off", at={"after_s": 300}, device="hallway light")]),
    ("in 5 minutes turn off the porch light and the hallway light", [T("device.turn_off", at={"after_s": 300}, device="porch light"), T("device.turn_off", at={"after_s": 300}, device="hallway light")]),
    ("turn the porch light off in half an hour", [T("device.turn_off", at={"after_s": 1800}, device="porch light")]),
    ("start the robot vacuum at 10 am", [T("device.start", at={"hour": 10, "minute": 0}, device="robot vacuum")]),
    ("switch off the coffee maker in 20 minutes", [T("device.turn_off", at={"after_s": 1200}, device="coffee maker")]),
    ("set a timer for 10 minutes and turn on the oven light", [T("timer.start", duration=600), T("device.turn_on")]),
    ("set a timer for 10 minutes and turn on the kitchen light", [T("timer.start", duration=600), T("device.turn_on", device="kitchen light")]),
    ("turn on the kitchen light and set a timer for 5 minutes", [T("device.turn_on", device="kitchen light"), T("timer.start", duration=300)]),
    ("set a timer for 3 minutes and what's the weather tomorrow", [T("timer.start", duration=180), T("weather.forecast", day="tomorrow")]),
    ("what time is it and set an alarm for 7", [T("clock.time"), T("alarm.set", when={"hour": 7, "minute": 0, "am_or_pm": True})]),
    ("remind me to call mom at 5 and turn off the porch light", [T("reminder.set", when={"hour": 5, "minute": 0, "am_or_pm": True}, message="call mom"), T("device.turn_off", device="porch light")]),
    ("set a timer for 10 minutes and remind me to check the oven in 20 minutes", [T("timer.start", duration=600), T("reminder.set", when={"after_s": 1200}, message="check the oven")]),
    ("cancel the timer and turn off the kitchen light", [T("timer.cancel", kind="timer"), T("device.turn_off", device="kitchen light")]),
    ("turn off the porch light in 5 minutes and lock the front door", [T("device.turn_off", at={"after_s": 300}, device="porch light"), T("device.lock", device="front door")]),
    ("set an alarm for 6 and turn off all the lights", [T("alarm.set", when={"hour": 6, "minute": 0, "am_or_pm": True}), T("device.turn_off", device=["bedroom light", "hallway light", "kitchen light", "living room lamp", "porch light"])]),
    ("if the garage door is open close it in 5 minutes", [C(T("device.state", device="garage door", state="open"), [T("device.close", at={"after_s": 300}, device="garage door")])]),
    ("if the porch light is on turn it off in 10 minutes", [C(T("device.state", device="porch light", state="on"), [T("device.turn_off", at={"after_s": 600}, device="porch light")])]),
    ("if the back door is unlocked lock it in 1 minute", [C(T("device.state", device="back door", state="unlocked"), [T("device.lock", at={"after_s": 60}, device="back door")])]),
    ("if the garage door is open, close it at 11 pm", [C(T("device.state", device="garage door", state="open"), [T("device.close", at={"hour": 23, "minute": 0}, device="garage door")])]),
    ("unless the front door is locked lock it in 5 minutes", [C(T("device.state", device="front door", state="locked"), [T("device.lock", at={"after_s": 300}, device="front door")], negate=True, trigger="unless")]),
    ("let me know when the garage door opens", [W(T("device.changes", device="garage door", state="open"))]),
    ("tell me when the garage door closes", [W(T("device.changes", device="garage door", state="closed"))]),
    ("tell me when the front door is unlocked", [W(T("device.state", device="front door", state="unlocked"))]),
    ("notify me when the hallway motion turns on", [W(T("device.changes", device="hallway motion", state="on"))]),
    ("let me know when the porch light turns off", [W(T("device.changes", device="porch light", state="off"))]),
    ("alert me when the back door is unlocked", [W(T("device.state", device="back door", state="unlocked"))]),
    ("when the garage door opens let me know", [W(T("device.changes", device="garage door", state="open"))]),
    ("when the garage door opens turn on the porch light", [W(T("device.changes", device="garage door", state="open"), T("device.turn_on", device="porch light"))]),
    ("turn on the porch light when the garage door opens", [W(T("device.changes", device="garage door", state="open"), T("device.turn_on", device="porch light"))]),
    ("when the hallway motion turns on turn on the hallway light", [W(T("device.changes", device="hallway motion", state="on"), T("device.turn_on", device="hallway light"))]),
    ("let me know when the robot vacuum is done", [W(T("device.state", device="robot vacuum", state="off"))]),
    ("tell me when the coffee maker is on", [W(T("device.state", device="coffee maker", state="on"))]),
    ("when the front door is unlocked turn on the hallway light", [W(T("device.state", device="front door", state="unlocked"), T("device.turn_on", device="hallway light"))]),
    ("as soon as the garage door is closed tell me", [W(T("device.state", device="garage door", state="closed"))]),
    ("let me know once the garage door is open", [W(T("device.state", device="garage door", state="open"))]),
    ("what's the weather at 5 pm", [T("weather.forecast")]),
    ("what time is it", [T("clock.time")]),
    ("turn on the kitchen light", [T("device.turn_on", device="kitchen light")]),
    ("what is the weather tomorrow", [T("weather.forecast", day="tomorrow")]),
    ("is the garage door open", [T("device.state", device="garage door", state="open")]),
    ("who is the president", [T("knowledge.lookup", topic="president")]),
    ("turn on the porch light and the hallway light", [T("device.turn_on", device="porch light"), T("device.turn_on", device="hallway light")]),
    # a routine is an action too: run later, not now
    ("run the good night routine at 11 pm", [T("routine.good_night", at={"hour": 23, "minute": 0})]),
    ("good night in 10 minutes", [T("routine.good_night", at={"after_s": 600})]),
    ("in 5 minutes good night", [T("routine.good_night", at={"after_s": 300})]),
    # a "when" watch on a device that only the owner's house has
]
# fmt: on

#: A washing machine as Home Assistant's MQTT binary sensor with device class
#: ``running`` publishes it ("on" while it runs; HA docs, binary_sensor device classes).
WASHER = Device(
    name="washing machine",
    type="binary_sensor",
    room="kitchen",
    device_class="running",
    topics={"state": "home/washing_machine"},
    schema="json",
)
WASHER_ROWS = [
    (
        "tell me when the washing machine is done",
        [C(T("device.state", device="washing machine", state="off"), [], trigger="when")],
    ),
    (
        "let me know when the washing machine finishes",
        [C(T("device.changes", device="washing machine", state="off"), [], trigger="when")],
    ),
    (
        "when the washing machine is done turn off the kitchen light",
        [
            C(
                T("device.state", device="washing machine", state="off"),
                [T("device.turn_off", device="kitchen light")],
                trigger="when",
            )
        ],
    ),
    (
        "is the washing machine running",
        [T("device.state", device="washing machine", state="on")],
    ),
]


@pytest.mark.parametrize(("query", "expected"), ROWS, ids=[r[0][:60] for r in ROWS])
def test_sentence(understander: Understander, query: str, expected: list[P | C]) -> None:
    plan = understander.understand(query)
    assert plan_problems(expected, plan) + schedule_problems(expected, plan) == []


@pytest.fixture(scope="module")
def with_washer(config: Config) -> Understander:
    return Understander(dataclasses.replace(config, devices=[*config.devices, WASHER]))


@pytest.mark.parametrize(("query", "expected"), WASHER_ROWS, ids=[r[0] for r in WASHER_ROWS])
def test_watch_sentence(with_washer: Understander, query: str, expected: list[P | C]) -> None:
    plan = with_washer.understand(query)
    assert plan_problems(expected, plan) + schedule_problems(expected, plan) == []


def test_there_are_enough_rows() -> None:
    assert len(ROWS) + len(WASHER_ROWS) >= 150


#: "... for a while": the action now, and its undo kept for then (intent, after_s, text)
# fmt: off
REVERTS = [
    ("turn on the porch light for 10 minutes", "device.turn_on", ("device.turn_off", 600, "turn off the porch light")),
    ("turn the porch light on for an hour", "device.turn_on", ("device.turn_off", 3600, "turn off the porch light")),
    ("switch off the kitchen light for half an hour", "device.turn_off", ("device.turn_on", 1800, "turn on the kitchen light")),
    ("open the living room blinds for 20 minutes", "device.open", ("device.close", 1200, "close the living room blinds")),
    ("unlock the front door for 5 minutes", "device.unlock", ("device.lock", 300, "lock the front door")),
    ("start the robot vacuum for 15 minutes", "device.start", ("device.stop", 900, "stop the robot vacuum")),
    # nothing puts these back: the time is not taken for a value, and no undo is made up
    ("set the thermostat to 22 for an hour", "device.set_temperature", None),
    ("close the garage door for 10 minutes", "device.close", None),
    ("set a timer for 10 minutes", "timer.start", None),
]
#: times no clock places: the action is kept with a vague time, so it is not run now
VAGUE = [
    ("turn on the porch light at sunset", "device.turn_on", {"vague": "sunset"}),
    ("at dawn open the living room blinds", "device.open", {"vague": "sunrise"}),
    ("close the living room blinds in the evening", "device.close", {"vague": "evening"}),
    ("turn off the hallway light at night", "device.turn_off", {"vague": "night"}),
    ("turn off the hallway light tonight", "device.turn_off", {"day": "today", "vague": "tonight"}),
    ("turn on the coffee maker on saturday morning", "device.turn_on", {"day": "saturday", "vague": "morning"}),
    ("run the good night routine at bedtime", "routine.good_night", {"vague": "night"}),
    # no time here: said alone, the word is a name or a greeting
    ("good morning", "routine.good_morning", None),
    ("turn on the kitchen light today", "device.turn_on", None),
]
# fmt: on


@pytest.mark.parametrize(("query", "intent", "revert"), REVERTS)
def test_an_action_for_a_while_carries_what_puts_it_back(
    understander: Understander, query: str, intent: str, revert: tuple[str, int, str] | None
) -> None:
    (part,) = understander.understand(query).parts()
    assert part.intent == intent and part.schedule is None
    if revert is None:
        assert part.revert is None
        return
    assert part.revert is not None and part.revert.schedule is not None
    got = (part.revert.intent, part.revert.schedule.after_s, part.revert.text)
    assert got == revert
    assert part.revert.slots == part.slots  # the very devices, as resolved


@pytest.mark.parametrize(("query", "intent", "at"), VAGUE)
def test_a_time_no_clock_places_keeps_the_action_from_running_now(
    understander: Understander, query: str, intent: str, at: dict[str, Any] | None
) -> None:
    (part,) = understander.understand(query).parts()
    assert part.intent == intent
    assert (_said(part.schedule.to_dict()) if part.schedule else None) == at


PROTECTED = [
    "set a timer for an hour and a half",
    "set a timer for 2 hours and 30 minutes",
    "remind me in a minute and a half to stir",
]


@pytest.mark.parametrize("query", PROTECTED)
def test_a_duration_with_and_inside_is_never_split(understander: Understander, query: str) -> None:
    plan = understander.understand(query)
    assert len(plan.steps) == 1 and isinstance(plan.steps[0], Part)


def test_a_time_never_makes_a_question_scheduled(understander: Understander) -> None:
    for query in ("is the porch light on at 11 pm", "what is the weather in 5 days"):
        plan = understander.understand(query)
        assert all(p.schedule is None for p in plan.parts()), query


def test_a_watch_is_a_when_conditional_with_nothing_to_run(understander: Understander) -> None:
    (step,) = understander.understand("let me know when the garage door opens").steps
    assert isinstance(step, Conditional) and step.is_future and step.then == []
