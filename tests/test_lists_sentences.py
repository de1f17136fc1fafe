"""List requests in, plans out: the intent, and the list and items the lists source reads.

``read`` is what `mnemolis.sources.lists.items` makes of the part: ``list``
(None when the sentence names none: the default, or the list used last)
and ``items``, in the order said. "Add milk, eggs and bread to the shopping
list" is one part with three items: the item-list guard keeps its "and"
and comma from splitting the request, and only those.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.sources.lists.source import ListsSource
from mnemolis.understand import Understander
from tests.support_sentences import R, row_problems, unasked

LIGHTS = ["bedroom light", "hallway light", "kitchen light", "living room lamp", "porch light"]


def got(items: list[str], list_name: str | None = "shopping") -> dict[str, Any]:
    return {"items": items, "list": list_name}


SHOP = {"list_name": "shopping"}
TODO = {"list_name": "to do"}

ROWS: list[tuple[str, list[R]]] = [
    # ---- add: one item, several, typed and spoken
    ("add milk to the shopping list", [R("lists.add", got(["milk"]), **SHOP)]),
    ("add bananas to my shopping list", [R("lists.add", got(["bananas"]), **SHOP)]),
    (
        "add milk, eggs and bread to the shopping list",
        [R("lists.add", got(["milk", "eggs", "bread"]), **SHOP)],
    ),
    (
        "add milk eggs and bread to the shopping list",
        [R("lists.add", got(["milk", "eggs", "bread"]), **SHOP)],
    ),
    (
        "Add milk, eggs, and bread to my shopping list.",
        [R("lists.add", got(["milk", "eggs", "bread"]), **SHOP)],
    ),
    (
        "add apples oranges and bananas to the shopping list",
        [R("lists.add", got(["apples", "oranges", "bananas"]), **SHOP)],
    ),
    (
        "add olive oil, pasta and tomatoes to the shopping list",
        [R("lists.add", got(["olive oil", "pasta", "tomatoes"]), **SHOP)],
    ),
    (
        "put peanut butter and orange juice on the grocery list",
        [R("lists.add", got(["peanut butter", "orange juice"]), **SHOP)],
    ),
    (
        "add milk and cookies to the grocery list",
        [R("lists.add", got(["milk", "cookies"]), **SHOP)],
    ),
    (
        "add cheese and crackers to the shopping list",
        [R("lists.add", got(["cheese", "crackers"]), **SHOP)],
    ),
    ("add a loaf of bread to the shopping list", [R("lists.add", got(["loaf of bread"]), **SHOP)]),
    ("add some milk to the shopping list", [R("lists.add", got(["milk"]), **SHOP)]),
    (
        "add two pints of milk to the shopping list",
        [R("lists.add", got(["2 pints of milk"]), **SHOP)],
    ),
    (
        "add toilet paper and paper towels to the shopping list",
        [R("lists.add", got(["toilet paper", "paper towels"]), **SHOP)],
    ),
    ("add dish soap to the grocery list", [R("lists.add", got(["dish soap"]), **SHOP)]),
    ("add fish and chips to the shopping list", [R("lists.add", got(["fish and chips"]), **SHOP)]),
    ("add to my shopping list eggs and butter", [R("lists.add", got(["eggs", "butter"]), **SHOP)]),
    (
        "add to the shopping list apples bananas and grapes",
        [R("lists.add", got(["apples", "bananas", "grapes"]), **SHOP)],
    ),
    ("put milk on the list", [R("lists.add", got(["milk"], None))]),
    ("add eggs to my list", [R("lists.add", got(["eggs"], None))]),
    ("add batteries", [R("lists.add", got(["batteries"], None))]),
    ("please add coffee to the shopping list", [R("lists.add", got(["coffee"]), **SHOP)]),
    ("i need to buy batteries", [R("lists.add", got(["batteries"], None))]),
    ("i need to buy milk and eggs", [R("lists.add", got(["milk", "eggs"], None))]),
    ("we need milk", [R("lists.add", got(["milk"], None))]),
    ("we ran out of sugar", [R("lists.add", got(["sugar"], None))]),
    ("we are out of milk and butter", [R("lists.add", got(["milk", "butter"], None))]),
    ("remember to buy eggs", [R("lists.add", got(["eggs"], None))]),
    ("add milk to my groceries", [R("lists.add", got(["milk"]), **SHOP)]),
    # ---- add to the to-do list and to lists the person names
    ("add buy stamps to my to do list", [R("lists.add", got(["buy stamps"], "to do"), **TODO)]),
    ("put call mum on my to do list", [R("lists.add", got(["call mum"], "to do"), **TODO)]),
    (
        "add wash the car to the to do list",
        [R("lists.add", got(["wash the car"], "to do"), **TODO)],
    ),
    (
        "add call the plumber and pay the bills to my to do list",
        [R("lists.add", got(["call the plumber and pay the bills"], "to do"), **TODO)],
    ),
    (
        "add water the plants to my todo list",
        [R("lists.add", got(["water the plants"], "to do"), **TODO)],
    ),
    ("add sunscreen to my packing list", [R("lists.add", got(["sunscreen"], "packing"))]),
    (
        "add sunscreen and a hat to the packing list",
        [R("lists.add", got(["sunscreen", "hat"], "packing"))],
    ),
    (
        "put a tent and sleeping bags on the camping list",
        [R("lists.add", got(["tent", "sleeping bags"], "camping"))],
    ),
    ("add tent to the camping gear list", [R("lists.add", got(["tent"], "camping gear"))]),
    # ---- remove and check off
    ("remove milk from the shopping list", [R("lists.remove", got(["milk"]), **SHOP)]),
    ("remove bread from the shopping list", [R("lists.remove", got(["bread"]), **SHOP)]),
    ("take milk off my shopping list", [R("lists.remove", got(["milk"]), **SHOP)]),
    ("take eggs and butter off the list", [R("lists.remove", got(["eggs", "butter"], None))]),
    ("delete eggs from the list", [R("lists.remove", got(["eggs"], None))]),
    ("remove sunscreen from the packing list", [R("lists.remove", got(["sunscreen"], "packing"))]),
    ("i no longer need butter", [R("lists.remove", got(["butter"], None))]),
    ("remove call mum from my to do list", [R("lists.remove", got(["call mum"], "to do"), **TODO)]),
    ("cross milk off the list", [R("lists.check_off", got(["milk"], None))]),
    # completing or removing an item is never adding it (issue 24)
    ("complete bananas on my grocery list", [R("lists.check_off", got(["bananas"]), **SHOP)]),
    ("cross off eggs", [R("lists.check_off", got(["eggs"], None))]),
    ("strike butter off the shopping list", [R("lists.check_off", got(["butter"]), **SHOP)]),
    ("delete the batteries from the list", [R("lists.remove", got(["batteries"], None))]),
    ("check eggs off the shopping list", [R("lists.check_off", got(["eggs"]), **SHOP)]),
    ("check off bread from my shopping list", [R("lists.check_off", got(["bread"]), **SHOP)]),
    ("tick off eggs", [R("lists.check_off", got(["eggs"], None))]),
    ("cross off milk and bread", [R("lists.check_off", got(["milk", "bread"], None))]),
    ("i bought the milk", [R("lists.check_off", got(["milk"], None))]),
    ("mark wash the car as done", [R("lists.check_off", got(["wash the car"], None))]),
    (
        "mark call mum as done on my to do list",
        [R("lists.check_off", got(["call mum"], "to do"), **TODO)],
    ),
    # ---- read, ask, count
    ("what's on my shopping list", [R("lists.read", got([]), **SHOP)]),
    ("whats on the shopping list", [R("lists.read", got([]), **SHOP)]),
    ("what's on the list", [R("lists.read", got([], None))]),
    ("read me my shopping list", [R("lists.read", got([]), **SHOP)]),
    ("read my to do list", [R("lists.read", got([], "to do"), **TODO)]),
    ("show me my to do list", [R("lists.read", got([], "to do"), **TODO)]),
    ("what do i need to buy", [R("lists.read", got([], None))]),
    ("what do we need from the store", [R("lists.read", got([], None))]),
    ("what do i have to do today", [R("lists.read", **TODO)]),
    ("what's on my packing list", [R("lists.read", got([], "packing"))]),
    ("is bread on my shopping list", [R("lists.read", got(["bread"]), **SHOP)]),
    ("is milk on the shopping list", [R("lists.read", got(["milk"]), **SHOP)]),
    ("are eggs on the list", [R("lists.read", got(["eggs"], None))]),
    ("do we have eggs on the shopping list", [R("lists.read", got(["eggs"]), **SHOP)]),
    ("how many items are on my shopping list", [R("lists.count", got([]), **SHOP)]),
    ("how many things are on the shopping list", [R("lists.count", got([]), **SHOP)]),
    ("how many things are on it", [R("lists.count", got([], None))]),
    ("how many things do i have to do", [R("lists.count", **TODO)]),
    ("how many items are on my to do list", [R("lists.count", got([], "to do"), **TODO)]),
    # ---- clear, create, delete, which
    ("clear my shopping list", [R("lists.clear", got([]), **SHOP)]),
    ("clear the shopping list", [R("lists.clear", got([]), **SHOP)]),
    ("empty the to do list", [R("lists.clear", got([], "to do"), **TODO)]),
    ("remove everything from the shopping list", [R("lists.clear", got([]), **SHOP)]),
    ("clear the packing list", [R("lists.clear", got([], "packing"))]),
    ("create a packing list", [R("lists.create", got([], "packing"))]),
    ("make a packing list", [R("lists.create", got([], "packing"))]),
    ("create a new list called camping", [R("lists.create", got([], "camping"))]),
    ("make a new list called camping gear", [R("lists.create", got([], "camping gear"))]),
    ("start a list for the party", [R("lists.create", got([], "party"))]),
    ("create a shopping list", [R("lists.create", got([]), **SHOP)]),
    ("delete the packing list", [R("lists.delete", got([], "packing"))]),
    ("delete the shopping list", [R("lists.delete", got([]), **SHOP)]),
    ("what lists do i have", [R("lists.which")]),
    ("which lists do we have", [R("lists.which")]),
    # ---- compound: the items' "and" stays, the requests' "and" splits
    (
        "add milk, eggs and bread to the shopping list and turn on the kitchen light",
        [
            R("lists.add", got(["milk", "eggs", "bread"]), **SHOP),
            R("device.turn_on", device="kitchen light"),
        ],
    ),
    (
        "add milk and eggs to the shopping list and turn on the kitchen light",
        [
            R("lists.add", got(["milk", "eggs"]), **SHOP),
            R("device.turn_on", device="kitchen light"),
        ],
    ),
    (
        "turn off the lights and add milk to the shopping list",
        [R("device.turn_off", device=LIGHTS), R("lists.add", got(["milk"]), **SHOP)],
    ),
    (
        "turn on the kitchen light and add milk and eggs to the shopping list",
        [
            R("device.turn_on", device="kitchen light"),
            R("lists.add", got(["milk", "eggs"]), **SHOP),
        ],
    ),
    (
        "add to my shopping list milk eggs and bread and what's the weather",
        [R("lists.add", got(["milk", "eggs", "bread"]), **SHOP), R("weather.forecast")],
    ),
    (
        "what's on my shopping list and what's the weather tomorrow",
        [R("lists.read", got([]), **SHOP), R("weather.forecast", day="tomorrow")],
    ),
    (
        "add coffee to the shopping list and play some jazz",
        [R("lists.add", got(["coffee"]), **SHOP), R("music.play")],
    ),
    (
        "pause the music and add batteries to the shopping list",
        [R("music.pause"), R("lists.add", got(["batteries"]), **SHOP)],
    ),
    (
        "add eggs and milk to the shopping list and what time is it",
        [R("lists.add", got(["eggs", "milk"]), **SHOP), R("clock.time")],
    ),
    (
        "add milk to the shopping list and add call mum to my to do list",
        [R("lists.add", got(["milk"]), **SHOP), R("lists.add", got(["call mum"], "to do"), **TODO)],
    ),
    (
        "put the kettle on and what's on the shopping list",
        [R("device.turn_on", device="coffee maker"), R("lists.read", got([]), **SHOP)],
    ),
]


@pytest.fixture(scope="module")
def reader(config: Config, tmp_path_factory: pytest.TempPathFactory) -> Any:
    source = ListsSource(config, Path(tmp_path_factory.mktemp("lists-state")))

    def read(part: Part) -> dict[str, Any]:
        asked = source.read(part)
        return {"list": asked.list, "items": list(asked.items)}

    return read


def test_the_table_covers_every_list_intent(config: Config) -> None:
    assert unasked(config, "lists", ROWS) == set()
    assert len(ROWS) >= 90


@pytest.mark.parametrize(("query", "expected"), ROWS, ids=[r[0][:60] for r in ROWS])
def test_list_sentence(
    understander: Understander, reader: Any, query: str, expected: list[R]
) -> None:
    assert row_problems(understander, query, expected, reader) == []


GUARDED = [
    (
        "add milk, eggs and bread to the shopping list and turn on the kitchen light",
        [
            (",", "item list: add ... shopping list"),
            ("and", "item list: add ... shopping list"),
            ("and", None),
        ],
    ),
    (
        "add to my shopping list milk eggs and bread and what's the weather",
        [("and", "item list: add ... shopping list"), ("and", None)],
    ),
    ("put the kettle on and add milk to the list", [("and", None)]),
    ("put the kettle on and what's on the shopping list", [("and", None)]),
    ("turn on the porch light and the kitchen light", [("and", None)]),
]


@pytest.mark.parametrize(("query", "expected"), GUARDED, ids=[g[0][:60] for g in GUARDED])
def test_the_item_list_guard_judges_each_occurrence(
    understander: Understander, query: str, expected: list[tuple[str, str | None]]
) -> None:
    a = understander.analyzer.analyze(understander.normalizer.normalize(query).text)
    occurrences = understander.guards.occurrences(a, 0, len(a.tokens))
    assert [(o.kind, o.guard) for o in occurrences] == expected


def test_without_its_slots_the_guard_does_nothing(config: Config) -> None:
    slots = {k: v for k, v in config.slots.items() if k not in ("item_verb", "list_word")}
    bare = Understander(dataclasses.replace(config, slots=slots))
    parts = bare.understand("add milk and eggs to the shopping list and what time is it").parts()
    assert "add milk and eggs to the shopping list" not in [p.text for p in parts]
