"""Properties: a question never acts, and no part of a compound disappears.

Questions are generated over a large registry (a dozen areas, every kind of
device, binary sensors and sensors of many classes, a switch whose name ends
in "left" and a sensor called "light"): whatever frame, device, state or verb
they hold, no part gets an intent whose action changes a device. Compounds
are generated from requests that each route on their own: joined, every one
of them is still a part of its own, routed as it was alone.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander
from mnemolis.understand.questions import QuestionFrame
from tests.support_questions import question_understander

AREAS = [
    "kitchen",
    "living room",
    "bedroom",
    "hallway",
    "bathroom",
    "office",
    "garage",
    "porch",
    "garden",
    "utility room",
    "guest room",
    "nursery",
]
KINDS = [
    ("ceiling light", "light", None),
    ("lamp", "light", None),
    ("fan", "fan", None),
    ("plug", "switch", None),
    ("blinds", "cover", "blind"),
    ("window", "binary_sensor", "window"),
    ("motion", "binary_sensor", "motion"),
    ("temperature", "sensor", "temperature"),
    ("humidity", "sensor", "humidity"),
    ("door lock", "lock", None),
]


def big_registry() -> DeviceRegistry:
    devices = [
        Device(name=f"{area} {what}", type=kind, room=area, device_class=cls)
        for area in AREAS
        for what, kind, cls in KINDS
    ]
    devices += [
        Device(name="wall switch double left", type="switch", room="living room"),
        Device(name="light", type="binary_sensor", room="garden", device_class="light"),
        Device(name="thermostat", type="climate", room="hallway"),
        Device(name="robot vacuum", type="vacuum"),
        Device(name="garage door", type="cover", room="garage", device_class="garage"),
        Device(name="front door", type="lock", room="hallway"),
        Device(name="smoke detector", type="binary_sensor", room="kitchen", device_class="smoke"),
    ]
    registry = DeviceRegistry(devices)
    for area in AREAS:
        registry.add_room(area)
    return registry


_CACHE: dict[int, tuple[Understander, QuestionFrame]] = {}


def _big(config: Config) -> tuple[Understander, QuestionFrame]:
    key = id(config)
    if key not in _CACHE:
        understander = Understander(config, registry=big_registry())
        _CACHE[key] = (understander, understander.router.questions)
    return _CACHE[key]


NAMES = [f"{area} {what}" for area in AREAS for what, _, _ in KINDS] + [
    "wall switch double left",
    "light",
    "thermostat",
    "robot vacuum",
    "garage door",
    "front door",
    "smoke detector",
]
NOUNS = ["lights", "light", "lamps", "fans", "plugs", "blinds", "doors", "windows", "devices"]
FRAMES = [
    "is the {d} {s}",
    "are the {d} {s}",
    "is the {d} {v}",
    "are any {n} {s}",
    "are all the {n} {s}",
    "is anything {s}",
    "is everything {s}",
    "any {d} {s}?",
    "did i leave the {d} {s}",
    "how many {n} are {s}",
    "which {n} are {s}",
    "what {n} are {s}",
    "is there anything {s} in the {a}",
    "is the {d} still {s}",
    "was the {d} {v}",
    "tell me if the {d} is {s}",
    "do you know if the {d} is {s}",
    "is the {d} {s} in the {a}",
    "are any {n} {s} in the {a}",
    "has the {d} been {v}",
]
STATES = ["on", "off", "open", "closed", "locked", "unlocked", "running", "left on", "docked"]
VERBS = [
    "turned on",
    "switched off",
    "powered on",
    "opened",
    "closed",
    "locked",
    "unlocked",
    "dimmed",
    "set to 50 percent",
    "turned up",
    "started",
]
LEADS = ["", "hey ", "so ", "ok ", "please "]


@st.composite
def questions(draw: st.DrawFn) -> str:
    frame = draw(st.sampled_from(FRAMES))
    text = frame.format(
        d=draw(st.sampled_from(NAMES)),
        n=draw(st.sampled_from(NOUNS)),
        s=draw(st.sampled_from(STATES)),
        v=draw(st.sampled_from(VERBS)),
        a=draw(st.sampled_from(AREAS)),
    )
    return draw(st.sampled_from(LEADS)) + text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=questions())
def test_a_question_never_acts(config: Config, text: str) -> None:
    understander, frame = _big(config)
    plan = understander.understand(text)
    for part in plan.parts():
        intent = config.intent(part.intent)
        assert intent is None or not frame.acts(intent), (text, part.intent, part.slots)


def test_the_issue_s_questions_are_read(config: Config) -> None:
    understander, _ = _big(config)
    for text in (
        "is the wall switch double left on",
        "are any devices powered on?",
        "any living room blinds open?",
    ):
        (part,) = understander.understand(text).parts()
        assert part.intent == "device.state", (text, part.intent)


# ----------------------------------------------------------------------------- nothing dropped

REQUESTS = [
    "turn off the porch light",
    "lock the front door",
    "lock up",
    "close the garage door",
    "turn on the kitchen fan",
    "is the back door locked",
    "how many lights are on",
    "are any windows open",
    "what's the humidity in the bedroom",
    "start the robot vacuum",
    "switch on the tv plug",
    "is there a leak",
    "which doors are unlocked",
    "open the bedroom blinds",
    "what time is it",
]
JOINS = [" and ", " and then ", ", and ", " and also ", ", then "]


@st.composite
def compounds(draw: st.DrawFn) -> list[str]:
    return draw(st.lists(st.sampled_from(REQUESTS), min_size=2, max_size=3, unique=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=compounds(), joins=st.lists(st.sampled_from(JOINS), min_size=2, max_size=2))
def test_no_part_of_a_compound_disappears(
    config: Config, requests: list[str], joins: list[str]
) -> None:
    understander, _ = _small(config)
    alone = [[p.intent for p in understander.understand(r).parts()] for r in requests]
    text = requests[0]
    for join, request in zip(joins, requests[1:], strict=False):
        text += join + request
    parts = understander.understand(text).parts()
    assert [p.intent for p in parts] == [i for intents in alone for i in intents], (
        text,
        [(p.text, p.intent) for p in parts],
    )


_SMALL: dict[int, tuple[Understander, DeviceRegistry]] = {}


def _small(config: Config) -> tuple[Understander, DeviceRegistry]:
    if id(config) not in _SMALL:
        _SMALL[id(config)] = question_understander(config)
    return _SMALL[id(config)]


def test_lock_up_is_answered_not_dropped(config: Config) -> None:
    understander, _ = _small(config)
    parts = understander.understand("lock up and turn off the porch light").parts()
    assert [p.intent for p in parts] == ["device.lock", "device.turn_off"]
    assert sorted(parts[0].slots["device"]) == ["back door", "front door"]
    assert parts[1].slots["device"] == "porch light"
