"""A device's name said alone, and the heating of the room a request is said in (issue 24).

On the fifth home (tests/data/fifth_home): a flat with one wall thermostat in the hall
(called "the heating") and one radiator valve in the bedroom.
"""

from __future__ import annotations

import pytest

from mnemolis.config import load_config
from mnemolis.core.plan import Part
from mnemolis.understand import Context, Understander
from tests.conftest import ROOT

FLAT = ROOT / "tests" / "data" / "fifth_home"


@pytest.fixture(scope="module")
def flat() -> Understander:
    return Understander(load_config(FLAT))


def only_part(u: Understander, text: str, room: str | None = None) -> Part:
    parts = u.understand(text, room=room).parts()
    assert len(parts) == 1, parts
    return parts[0]


@pytest.mark.parametrize(
    ("text", "room", "intent", "device"),
    [
        ("bedside lamp", None, "device.toggle", "bedside lamp"),
        ("the big light", None, "device.toggle", "big light"),
        ("lights", "kitchen", "device.toggle", ["cupboard lights", "kitchen light"]),
        ("outside temperature", None, "sensor.read", "outside temperature"),
        ("cosy", None, "device.activate", "cosy"),
    ],
)
def test_a_name_alone_means_what_its_kind_is_for(
    flat: Understander, text: str, room: str | None, intent: str, device: object
) -> None:
    part = only_part(flat, text, room)
    assert part.intent == intent
    assert part.slots["device"] == device


@pytest.mark.parametrize("text", ["the kitchen", "the cellar light", "purple"])
def test_no_name_alone_acts_on_nothing_known(flat: Understander, text: str) -> None:
    part = only_part(flat, text)
    assert "device" not in part.slots


def test_a_name_alone_after_a_request_is_a_follow_up(flat: Understander) -> None:
    """ "turn on the hall light" then "kitchen light": the same request, not a toggle."""
    first = only_part(flat, "turn on the hall light")
    context = Context(intent=first.intent, slots=dict(first.slots))
    part = flat.understand("kitchen light", context=context).parts()[0]
    assert part.intent == "device.turn_on"
    assert part.slots["device"] == "kitchen light"


@pytest.mark.parametrize(
    ("text", "room", "device"),
    [
        # the room said in has its own climate device: that is its heating
        ("turn the heating up", "bedroom", "bedroom radiator"),
        ("turn the heating down", "bedroom", "bedroom radiator"),
        ("turn off the heating in the bedroom", None, "bedroom radiator"),
        # no climate device there: the home's thermostat
        ("turn the heating up", "kitchen", "thermostat"),
        ("turn the heating up", None, "thermostat"),
        # the home's thermostat by a room of its own
        ("turn the heating up in the hall", "bedroom", "thermostat"),
    ],
)
def test_the_heating_is_the_rooms_own_first(
    flat: Understander, text: str, room: str | None, device: str
) -> None:
    part = only_part(flat, text, room)
    assert part.slots["device"] == device


@pytest.mark.parametrize(
    ("text", "room", "intent", "device"),
    [
        ("how humid is it in the living room", None, "sensor.read", "living room humidity"),
        ("is it damp in the living room", None, "sensor.read", "living room humidity"),
        ("the bathroom is really humid", None, "device.turn_on", "extractor fan"),
        ("the bedroom is a bit chilly", None, "device.set_temperature", "bedroom radiator"),
    ],
)
def test_an_area_of_the_home_is_no_forecast(
    flat: Understander, text: str, room: str | None, intent: str, device: str
) -> None:
    part = only_part(flat, text, room)
    assert (part.intent, part.slots.get("device")) == (intent, device)


@pytest.mark.parametrize("text", ["is it humid in london", "how cold is it in paris today"])
def test_a_place_away_is_still_the_forecast(flat: Understander, text: str) -> None:
    assert only_part(flat, text).intent == "weather.forecast"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("lock the balcony door", "device.lock"),
        ("turn off the balcony thermometer", "device.turn_off"),
    ],
)
def test_a_command_never_goes_to_a_device_that_cannot_do_it(
    flat: Understander, text: str, intent: str
) -> None:
    part = only_part(flat, text)
    assert part.intent == intent
    assert "device" not in part.slots
    assert part.provenance.get("missing")


def test_a_value_of_another_kind_is_first_fitted_to_the_device(flat: Understander) -> None:
    """ "radiator up a bit": a step of the radiator's temperature, never dropped."""
    part = only_part(flat, "radiator up a bit")
    assert (part.intent, part.slots.get("device")) == ("device.set_temperature", "bedroom radiator")


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("I'm a bit cold", None),  # how one feels: the source's warmer words decide
        ("it's a bit hot in here", None),
        ("make it a bit colder", -1),  # the comparative is the change
        ("a bit warmer please", 1),
    ],
)
def test_a_feeling_is_no_change_word(flat: Understander, text: str, step: int | None) -> None:
    """ "colder" is a change down; "cold", its lemma, is not: "I'm a bit cold" never turns
    the heating down."""
    part = only_part(flat, text, "living room")
    assert part.intent == "device.set_temperature"
    assert part.slots.get("step") == step


def test_every_phrase_of_the_intent_says_which_slot() -> None:
    """ "i'd like ... with pepperoni": read by "i would like", and "with {topping}" still
    makes "pepperoni" (a pizza and a topping) the topping."""
    u = Understander(load_config(ROOT / "tests" / "data" / "takeaway"))
    part = only_part(u, "we'll have a large pizza with chicken")
    assert part.slots.get("topping") == "chicken"
    assert "pizza" not in part.slots


def test_a_question_with_no_phrase_of_its_own_never_toggles(flat: Understander) -> None:
    """The name-alone reading comes only where no phrase was said at all."""
    part = only_part(flat, "is the kitchen light")
    assert part.intent != "device.toggle"


def test_a_phrase_word_that_ends_a_name_is_the_phrase() -> None:
    """ "warmer" ends the name "Towel Warmer" (a switch) in the third home: said as the
    temperature's phrase it is the phrase; the towel warmer is still named whole."""
    u = Understander(load_config(ROOT / "tests" / "data" / "third_home"))
    part = only_part(u, "make it warmer in the nursery")
    assert (part.intent, part.slots.get("device")) == ("device.set_temperature", "nursery radiator")
    part = only_part(u, "turn on the towel warmer")
    assert (part.intent, part.slots.get("device")) == ("device.turn_on", "towel warmer")


def test_a_change_word_that_ends_a_name_still_says_the_step() -> None:
    """ "a bit warmer" in the nursery: +1 degree, though "warmer" ends "Towel Warmer"."""
    u = Understander(load_config(ROOT / "tests" / "data" / "third_home"))
    part = only_part(u, "could you make the nursery a bit warmer")
    assert part.slots.get("step") == 1
