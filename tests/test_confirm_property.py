"""A property (issue 21): over generated commands, a publish that opens, raises, unlocks
or disarms a guarded device only ever follows a yes in the same conversation.

One house runs for the whole property (`support_confirm.house_in_a_thread`: the
assistant with the timers and routines sources on a real Mosquitto, a device of every
type, the default home simulated). Each example is one conversation of its own: a
command, generated over every device intent of `intents/en/*.yaml` (and the owner's
``alarm.disarm``), every device, values (a position, a step up or down, words such as
"a bit more"), and a way of asking (now, in an ``if``, delayed, in a ``when`` watch,
as a routine step), handed to the assistant as the plan understanding would make of
it; then nothing, a yes, a no, or a yes said in another conversation. What reached the
guarded devices' command topics is judged by its own reading of the payloads (never by
the code under test): "OPEN", "UNLOCK", "DISARM", the gate opener's "ON", a position
above where the device last reported (any position above 0 where it never did).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemolis.config import Config
from mnemolis.core.plan import Conditional, Part, Plan, When
from mnemolis.sources.timers.source import TimersSource
from tests.support_confirm import (
    EVERY_TYPE,
    GUARDED_TOPICS,
    ConfirmHouse,
    Makings,
    fixture_makings,
    house_in_a_thread,
)
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo

__all__ = ["broker", "fixture_makings", "fixture_test_zims", "open_meteo"]

#: Guarded devices, and how the judge reads a command to each: does it let anyone in?
GUARDED = {
    "garage door": "position",
    "front door": "lock",
    "back door": "lock",
    "shed": "lock",
    "gate opener": "relay",
    "garden tap": "valve",
    "radiator valve": "position",
    "house alarm": "alarm",
}
ROUTINES = [
    "routine.open_up",
    "routine.garage_by_intent",
    "routine.garage_message",
    "routine.disarm_on_arrival",
    "routine.prop_position",
]
WORDS = ["", "a bit more", "up", "higher", "wider", "down", "a bit less", "halfway", "all the way"]
WAYS = ["now", "if", "later", "when", "routine"]
REPLIES = ["nothing", "yes", "no", "yes elsewhere"]
_sessions = itertools.count()
WAITED: list[Example] = []  # the examples that were asked for a yes (the property is not idle)


def opens(kind: str, payload: str, before: float | None) -> tuple[bool, float | None]:
    """The judge: whether ``payload`` opens, raises, unlocks or disarms; and the position
    the device is at after it (for the next command of the same example)."""
    try:
        body = json.loads(payload)
    except ValueError:
        body = payload
    text = payload.upper()
    if kind in ("lock", "valve"):
        return ("UNLOCK" in text or "OPEN" in text), before
    if kind == "alarm":
        return "DISARM" in text, before
    if kind == "relay":
        return '"ON"' in text or text.strip() == "ON", before
    if isinstance(body, dict) and isinstance(body.get("position"), int | float):
        target = float(body["position"])
        raised = target > before if before is not None else target > 0
        return raised, target
    return "OPEN" in text, before


@dataclass
class Example:
    intent: str
    device: str
    slots: dict[str, Any]
    words: str
    way: str
    routine: str
    reply: str

    def part(self, config: Config) -> Part:
        spec = config.intents[self.intent]
        text = f"{self.intent} {self.device} {self.words}".strip()
        return Part(text, self.intent, spec.source, {"device": self.device, **self.slots}, 1.0)


def device_intents(config: Config) -> list[str]:
    return sorted(
        name
        for name, spec in config.intents.items()
        if spec.source == "mqtt" and spec.action and spec.action != "state"
    )


def examples(config: Config, names: list[str]) -> st.SearchStrategy[Example]:
    values = st.fixed_dictionaries(
        {},
        optional={
            "position": st.integers(0, 100),
            "step": st.integers(-40, 40),
            "brightness": st.integers(0, 100),
            "percentage": st.integers(0, 100),
            "temperature": st.integers(5, 30),
            "state": st.sampled_from(["on", "off", "open", "closed", "locked", "unlocked"]),
        },
    )
    return st.builds(
        Example,
        intent=st.sampled_from(device_intents(config)),
        device=st.one_of(st.sampled_from(sorted(GUARDED)), st.sampled_from(names)),
        slots=values,
        words=st.sampled_from(WORDS),
        way=st.sampled_from(WAYS),
        routine=st.sampled_from(ROUTINES),
        reply=st.sampled_from(REPLIES),
    )


def step_for(example: Example, config: Config) -> Conditional | Part:
    part = example.part(config)
    if example.way == "routine":
        spec = config.intents[example.routine]
        slots = {"device": example.device, "position": example.slots.get("position")}
        return Part(example.routine, spec.name, spec.source, slots, 1.0)
    if example.way == "later":
        part.schedule = When(after_s=0.3, text="in 0.3 seconds")
        return part
    if example.way in ("if", "when"):
        state = "off" if example.way == "if" else "on"
        intent = "device.state" if example.way == "if" else "device.changes"
        condition = Part(
            f"the porch light is {state}",
            intent,
            "mqtt",
            {"device": "porch light" if example.way == "if" else "kitchen light", "state": state},
            1.0,
        )
        return Conditional(condition, [part], trigger=example.way)
    return part


async def play(home: ConfirmHouse, example: Example, session: str) -> list[str]:
    """One conversation; the commands that let someone in without a yes in it."""
    assistant = home.house.assistant
    config = assistant.config
    simulated = {"garage door": home.house.simulator.state("garage door").get("position")}
    if example.way == "when":
        await home.report("kitchen light", state="OFF")
    mark = home.opened.mark()
    plan = Plan(query=f"example {session}", steps=[step_for(example, config)])
    understood = assistant.understander.understand

    def understand(text: str, *args: Any, **kwargs: Any) -> Plan:
        return plan if text == plan.query else understood(text, *args, **kwargs)

    assistant.understander.understand = understand  # type: ignore[method-assign]
    try:
        asked = await home.ask(plan.query, session)
    finally:
        assistant.understander.understand = understood  # type: ignore[method-assign]
    yes_here = False
    if example.reply == "yes":
        yes_here = (await home.ask("yes", session)).outcome.value != "not_understood"
    elif example.reply == "no":
        await home.ask("no", session)
    elif example.reply == "yes elsewhere":
        await home.ask("yes", f"{session}-elsewhere")
    if example.way == "when":
        await home.report("kitchen light", state="ON")
    await asyncio.sleep(0.45 if example.way in ("later", "when") else 0.1)
    await forget_kept(home)
    if asked.outcome.value == "waiting":
        WAITED.append(example)
    if yes_here:
        await asyncio.sleep(0.3)  # what the yes sent is heard within this example
        return []
    unsaid: list[str] = []
    before = dict(simulated)
    for message in home.opened.messages(mark):
        device = _device_of(message.topic)
        kind = GUARDED.get(device, "")
        let_in, after = opens(kind, message.payload.decode(), before.get(device))
        before[device] = after
        if let_in:
            unsaid.append(f"{device}: {message.payload.decode()}")
    return unsaid


def _device_of(topic: str) -> str:
    return GUARDED_TOPICS[topic]


async def forget_kept(home: ConfirmHouse) -> None:
    """End whatever the example left waiting (a watch that did not fire), so it cannot
    fire in a later example's conversation."""
    timers = home.house.assistant.source_of(TimersSource)
    assert timers is not None
    for item in list(timers.items.values()):
        timers.end(item, "cancelled")


def test_nothing_opens_without_a_yes_in_the_same_conversation(makings: Makings) -> None:
    with house_in_a_thread(makings, EVERY_TYPE) as (home, run):
        names = sorted(d.name for d in home.house.assistant.registry.devices())
        checked: list[Example] = []

        @settings(
            max_examples=60,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(example=examples(makings.config, names))
        def property_(example: Example) -> None:
            session = f"p{next(_sessions)}"
            unsaid = run(play(home, example, session))
            checked.append(example)
            assert unsaid == [], f"{example}: sent without a yes in {session}: {unsaid}"

        WAITED.clear()
        property_()
        assert len(checked) >= 20
        assert len(WAITED) >= 3, "hardly any example reached a command that waits for a yes"
