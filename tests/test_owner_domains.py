"""An owner's own domain in YAML works as well as the shipped intents: list slots of any
name, values of several words, words shared between slots (the longest value wins, then
the slot whose phrase context fits), several values of one slot, conjunctions between an
intent's own values never splitting it, and `check` saying why an example failed.

The two domains are `tests/data/takeaway` (ordering pizza) and `tests/data/garden` (an
irrigation controller); the sentences here are not their rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemolis.cli.main import main
from mnemolis.config import ConfigError, load_config
from mnemolis.core.plan import Part
from mnemolis.understand import Understander
from tests.support_routines import owner_dir
from tests.test_big_home import frozen_held_out, held_out

DATA = Path(__file__).parent / "data"
DOMAINS = ("takeaway", "garden")


@pytest.fixture(scope="module")
def understanders() -> dict[str, Understander]:
    return {name: Understander(load_config(DATA / name)) for name in DOMAINS}


def parts(u: Understander, text: str) -> list[tuple[str | None, dict[str, Any]]]:
    plan = u.understand(text)
    return [(p.intent, p.slots) for p in plan.steps if isinstance(p, Part)]


ORDER = "takeaway.order"

# (domain, request, the parts: intent and exactly these slots)
ROWS: list[tuple[str, str, list[tuple[str | None, dict[str, Any]]]]] = [
    # several values of one slot: one part, a list in spoken order
    (
        "takeaway",
        "order a small pizza with olives and spinach",
        [(ORDER, {"size": "small", "topping": ["olives", "spinach"]})],
    ),
    (
        "takeaway",
        "order a medium pizza with ham, olives and anchovies",
        [(ORDER, {"size": "medium", "topping": ["ham", "olives", "anchovies"]})],
    ),
    (
        "takeaway",
        "order a margherita with jalapenos and red onion and a lemonade",
        [
            (
                ORDER,
                {"pizza": "margherita", "topping": ["jalapenos", "red onion"], "drink": "lemonade"},
            )
        ],
    ),
    # a value of another slot after the conjunction: still the same request
    (
        "takeaway",
        "i want a large hawaiian and some onion rings",
        [(ORDER, {"size": "large", "pizza": "hawaiian", "side": "onion rings"})],
    ),
    # ", and" between values of one request
    (
        "takeaway",
        "order a small four cheese with spinach, and an iced tea",
        [
            (
                ORDER,
                {
                    "size": "small",
                    "pizza": "four cheese",
                    "topping": "spinach",
                    "drink": "iced tea",
                },
            )
        ],
    ),
    # a slot that takes one value a request, said again: a second request, the verb inherited
    (
        "takeaway",
        "order a small hawaiian and a large meat feast",
        [
            (ORDER, {"size": "small", "pizza": "hawaiian"}),
            (ORDER, {"size": "large", "pizza": "meat feast"}),
        ],
    ),
    # the longest value wins, whatever slot the shorter one is of
    (
        "takeaway",
        "order a medium barbecue chicken",
        [(ORDER, {"size": "medium", "pizza": "bbq chicken"})],
    ),
    ("takeaway", "get me some chicken wings", [(ORDER, {"side": "chicken wings"})]),
    (
        "takeaway",
        "order a cheese stuffed crust margherita",
        [(ORDER, {"crust": "stuffed crust", "pizza": "margherita"})],
    ),
    (
        "takeaway",
        "i'll have a cheese and tomato on a thin and crispy base",
        [(ORDER, {"pizza": "margherita", "crust": "thin"})],
    ),
    # words of two slots: a slot with no value yet, then the one it is listed with
    ("takeaway", "order a pepperoni", [(ORDER, {"pizza": "pepperoni"})]),
    (
        "takeaway",
        "order a margherita with pepperoni",
        [(ORDER, {"pizza": "margherita", "topping": "pepperoni"})],
    ),
    (
        "takeaway",
        "order a pizza with ham and pepperoni",
        [(ORDER, {"topping": ["ham", "pepperoni"]})],
    ),
    (
        "takeaway",
        "order a hawaiian and a pepperoni",
        [(ORDER, {"pizza": ["hawaiian", "pepperoni"]})],
    ),
    # ... unless the phrase captures its first words as a list of another slot's values
    # ("with {topping}": two toppings, not the pizza "ham and pineapple")
    (
        "takeaway",
        "order a pepperoni with ham and pineapple",
        [(ORDER, {"pizza": "pepperoni", "topping": ["ham", "pineapple"]})],
    ),
    ("takeaway", "order a ham and pineapple", [(ORDER, {"pizza": "hawaiian"})]),
    # a conjunction inside a value is the value's
    (
        "takeaway",
        "order a sweet chilli dip and a garlic and herb dip",
        [(ORDER, {"dip": ["sweet chilli", "garlic and herb"]})],
    ),
    # an owner's phrase as written is read as said ("we'll have" -> "we will have"), and
    # so is a value ("four cheese" -> "4 cheese")
    (
        "takeaway",
        "we'll have a family size four cheese",
        [(ORDER, {"size": "family", "pizza": "four cheese"})],
    ),
    # a gap holds the intent's own values of several words besides its five words
    (
        "takeaway",
        "take the red onion and the green peppers off the order",
        [("takeaway.remove", {"topping": ["red onion", "green peppers"]})],
    ),
    # a shipped decline gives up the words the owner's intents say
    ("takeaway", "order a pizza", [(ORDER, {})]),
    (
        "garden",
        "water the herbs, the hedge and the roses",
        [("garden.water", {"zone": ["herbs", "hedge", "roses"]})],
    ),
    (
        "garden",
        "water the veg beds and the fruit trees for 12 minutes",
        [("garden.water", {"zone": ["vegetable beds", "fruit trees"], "duration": 720})],
    ),
    # a number on both sides: two requests
    (
        "garden",
        "water the hedge for 3 minutes and the roses for 6 minutes",
        [
            ("garden.water", {"zone": "hedge", "duration": 180}),
            ("garden.water", {"zone": "roses", "duration": 360}),
        ],
    ),
    (
        "garden",
        "water the baskets on tuesdays and fridays",
        [
            (
                "garden.schedule",
                {
                    "zone": "hanging baskets",
                    "weekday": ["tuesday", "friday"],
                },
            )
        ],
    ),
    (
        "garden",
        "feed the back lawn with weed and feed",
        [("garden.feed", {"zone": "back lawn", "feed": "lawn feed"})],
    ),
    (
        "garden",
        "feed the roses with rose feed",
        [("garden.feed", {"zone": "roses", "feed": "rose feed"})],
    ),
    # a phrase word in the middle of a value is the value's: "water ... on" is no schedule
    ("garden", "water the pots on the patio", [("garden.water", {"zone": "patio pots"})]),
    # a part after the order, said with the head of the order's own phrase ("add ... to
    # the order") and the order's values, keeps to the order (domain_follow.py); alone,
    # or naming a list of its own, it is the list's
    (
        "takeaway",
        "take the mushrooms off and add a lemonade",
        [("takeaway.remove", {"topping": "mushrooms"}), (ORDER, {"drink": "lemonade"})],
    ),
    (
        "takeaway",
        "order a large pepperoni and add chicken wings",
        [(ORDER, {"size": "large", "pizza": "pepperoni"}), (ORDER, {"side": "chicken wings"})],
    ),
    ("takeaway", "add a lemonade", [("lists.add", {})]),
    # no phrase at all: the values of the intent marked values_alone
    (
        "takeaway",
        "a large stuffed crust meat feast please",
        [(ORDER, {"size": "large", "crust": "stuffed crust", "pizza": "meat feast"})],
    ),
    # how many is no word left over
    (
        "takeaway",
        "one large meat feast please",
        [(ORDER, {"size": "large", "pizza": "meat feast"})],
    ),
    ("takeaway", "2 garlic breads", [(ORDER, {"side": "garlic bread"})]),
    # a value said in the plural, which the lemmas do not know ("margheritas")
    ("takeaway", "order two margheritas", [(ORDER, {"pizza": "margherita"})]),
    ("takeaway", "order two large pepperonis", [(ORDER, {"size": "large", "pizza": "pepperoni"})]),
    # "my order" is a noun: of two intents as sure, the removal is the verb (route_ties.py)
    (
        "takeaway",
        "remove the garlic bread from my order",
        [("takeaway.remove", {"side": "garlic bread"})],
    ),
    # the values left say which of two intents whose phrases begin alike is meant: a
    # weekday is the schedule's ("water ... every"), not the watering's (domain_follow.py)
    (
        "garden",
        "water the herbs daily",
        [("garden.schedule", {"zone": "herbs", "weekday": "every day"})],
    ),
    ("garden", "water the herbs", [("garden.water", {"zone": "herbs"})]),
    # asking after the order is its status, not a new order
    ("takeaway", "what's happening with my order", [("takeaway.status", {})]),
    # an owner's request beside the home's
    (
        "garden",
        "water the roses and the herbs and turn on the patio light",
        [
            ("garden.water", {"zone": ["roses", "herbs"]}),
            ("device.turn_on", {"device": "patio light"}),
        ],
    ),
]


@pytest.mark.parametrize(("domain", "text", "expected"), ROWS, ids=[r[1] for r in ROWS])
def test_an_owner_domain_reads_its_values(
    understanders: dict[str, Understander],
    domain: str,
    text: str,
    expected: list[tuple[str | None, dict[str, Any]]],
) -> None:
    assert parts(understanders[domain], text) == expected


# the shipped single-valued slots keep splitting into requests, as before
SHIPPED = [
    (
        "what's the weather today and tomorrow",
        [("weather.forecast", {"day": "today"}), ("weather.forecast", {"day": "tomorrow"})],
    ),
    ("add milk and eggs to the shopping list", [("lists.add", {"list_name": "shopping"})]),
]


@pytest.mark.parametrize(("text", "expected"), SHIPPED, ids=[r[0] for r in SHIPPED])
def test_shipped_slots_that_take_one_value_still_split(
    text: str, expected: list[tuple[str | None, dict[str, Any]]]
) -> None:
    got = parts(Understander(load_config()), text)
    assert [
        (i, {k: v for k, v in s.items() if k in e})
        for (i, s), (_, e) in zip(got, expected, strict=True)
    ] == expected


def test_explain_says_which_value_won_and_why_a_conjunction_split(
    understanders: dict[str, Understander],
) -> None:
    u = understanders["takeaway"]
    plan = u.understand("order a pepperoni with extra cheese")
    assert plan.steps[0].provenance["readings"] == [
        "pizza 'pepperoni' (pizza had no value yet) over topping 'pepperoni'"
    ]
    from mnemolis.understand.trace import Trace

    trace = Trace()
    u.understand("order a small margherita and a large pepperoni", trace=trace)
    lines = [line for s in trace.stages if s.name == "decompose" for line in s.lines]
    assert lines[0] == (
        "'and' at token 4: split point "
        "(size takes one value a request (several: false), said on both sides)"
    )


OWNER = """
slots:
  size: {type: list, values: [small, medium, large], several: false}
  crust: {type: list, values: [thin crust, medium crust, deep pan]}
  topping: {type: list, values: [extra cheese, mushrooms, pepperoni]}
intents:
  food.order:
    source: external
    phrases: [order]
    slots: [size, crust, topping]
    say: ok
    examples:
      - text: order a large pizza with extra cheese and mushrooms
        slots: {size: large, topping: [extra cheese, mushrooms]}
      - text: order a large and a small
        slots: {size: large}
      - text: order a pizza with a medium crust
        slots: {size: medium}
"""


def test_check_explains_a_failing_owner_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = owner_dir(tmp_path, {"intents/en/food.yaml": OWNER})
    assert main(["--config", str(folder), "check"]) == 1
    out = capsys.readouterr().out.splitlines()
    path = folder / "intents" / "en" / "food.yaml"
    start = out.index(f"{path}:15: 'order a large and a small' gave 2 steps, expected one part")
    assert out[start : start + 4] == [
        f"{path}:15: 'order a large and a small' gave 2 steps, expected one part",
        "    split at 'and' after 'order a large': "
        "size takes one value a request (several: false), said on both sides",
        f"{path}:17: 'order a pizza with a medium crust' slot size = None, expected 'medium'",
        "    'order a pizza with a medium crust': crust 'medium crust' (longest) over size 'medium'",
    ]


@pytest.mark.parametrize(
    ("slots", "message"),
    [
        (
            "size: {type: list, values: [small], sevral: false}",
            "slot 'size': unknown key 'sevral' (sevral -> several?)",
        ),
        (
            "size: {type: list, values: [small], several: 1}",
            "slot 'size': several must be true or false",
        ),
        (
            "size: {type: number, several: true}",
            "slot 'size': several is for a list slot (a number slot takes one value)",
        ),
    ],
)
def test_a_slot_s_keys_are_checked(tmp_path: Path, slots: str, message: str) -> None:
    folder = owner_dir(tmp_path, {"intents/en/food.yaml": f"slots:\n  {slots}\n"})
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    assert message in str(caught.value)


def test_a_choice_of_several_words_is_a_configuration_error(tmp_path: Path) -> None:
    text = """
intents:
  food.status:
    source: external
    phrases: [when will the pizza (arrive|get here)]
    say: ok
"""
    with pytest.raises(ConfigError) as caught:
        load_config(owner_dir(tmp_path, {"intents/en/food.yaml": text}))
    assert "a choice (a|b) is of single words" in str(caught.value)


def test_a_shipped_decline_gives_up_only_the_owner_s_words() -> None:
    assert load_config(DATA / "takeaway").yielded["decline.shopping"] == [
        "order",
        "pizza",
        "food",
    ]
    assert load_config().yielded == {}


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_held_out_fold_is_the_one_frozen_when_it_was_written(domain: str) -> None:
    paths = sorted((DATA / domain / "sentences").glob("*.jsonl"))
    rows = [
        {**json.loads(line), "_file": path.stem}
        for path in paths
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert held_out(rows) == frozen_held_out(DATA / domain)
    assert 100 <= len(rows) <= 200 and {r["fold"] for r in rows} == {1, 2, 3, 4, 5}
