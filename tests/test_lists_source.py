"""The lists source on a real SQLite file: what each request does to the lists, and says.

Sentences go through the real understander; the state of the lists is read
back from the database itself, by a second store on the same file (as
another process would).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.sources.base import Level, PartAnswer, Request, Status, Truth
from mnemolis.sources.lists.source import ListsSource
from mnemolis.sources.lists.store import ListStore
from mnemolis.understand import Understander


@pytest.fixture
def lists(config: Config, tmp_path: Path) -> ListsSource:
    return ListsSource(config, tmp_path / "state")


def ask(
    lists: ListsSource, understander: Understander, text: str, session: str = "kitchen"
) -> PartAnswer:
    (part,) = understander.understand(text).parts()
    assert part.source == "lists", part.to_dict()
    return asyncio.run(lists.answer(part, Request(session=session)))


def on_disk(lists: ListsSource, name: str = "shopping") -> list[str] | None:
    assert lists.settings is not None
    other = ListStore(lists.settings.path)  # a second connection, as another process has
    try:
        return other.items(name)
    finally:
        other.close()


TURNS: list[tuple[str, Status, str, dict[str, Any]]] = [
    # (request, status, reply, what the shopping list holds afterwards)
    ("what's on my shopping list", Status.OK, "the shopping list is empty", {"shopping": None}),
    (
        "add milk, eggs and bread to the shopping list",
        Status.DONE,
        "added milk, eggs and bread to the shopping list",
        {"shopping": ["milk", "eggs", "bread"]},
    ),
    (
        "add eggs to the shopping list",
        Status.OK,
        "eggs are already on the shopping list",
        {"shopping": ["milk", "eggs", "bread"]},
    ),
    (
        "add butter and egg to the shopping list",
        Status.DONE,
        "added butter to the shopping list; egg was already on it",
        {"shopping": ["milk", "eggs", "bread", "butter"]},
    ),
    (
        "what's on my shopping list",
        Status.OK,
        "the shopping list has 4 items: milk, eggs, bread and butter",
        {},
    ),
    ("how many things are on it", Status.OK, "the shopping list has 4 items", {}),
    ("is milk on the shopping list", Status.OK, "yes, milk is on the shopping list", {}),
    ("is cheese on the shopping list", Status.OK, "no, cheese is not on the shopping list", {}),
    (
        "remove milk and cheese from the shopping list",
        Status.DONE,
        "removed milk from the shopping list; cheese was not on it",
        {"shopping": ["eggs", "bread", "butter"]},
    ),
    (
        "check eggs off the shopping list",
        Status.DONE,
        "checked off eggs on the shopping list",
        {"shopping": ["bread", "butter"]},
    ),
    (
        "add eggs to the shopping list",
        Status.DONE,
        "added eggs to the shopping list",
        {"shopping": ["bread", "butter", "eggs"]},
    ),  # checked off before: back on the list
    ("take the milk off the list", Status.OK, "milk is not on the shopping list", {}),
    (
        "clear the shopping list",
        Status.DONE,
        "cleared the shopping list (3 items)",
        {"shopping": []},
    ),
    ("clear the shopping list", Status.OK, "the shopping list was already empty", {}),
    (
        "delete the shopping list",
        Status.DECLINED,
        "the shopping list is always kept; I can clear it instead",
        {"shopping": []},
    ),
]


def test_a_conversation_with_the_shopping_list(
    lists: ListsSource, understander: Understander
) -> None:
    for text, status, reply, after in TURNS:
        answer = ask(lists, understander, text)
        assert (answer.status, answer.text) == (status, reply), text
        for name, items in after.items():
            assert on_disk(lists, name) == items, text


def test_named_lists_are_made_read_and_deleted(
    lists: ListsSource, understander: Understander
) -> None:
    answer = ask(lists, understander, "add sunscreen and a hat to the packing list")
    assert (answer.status, answer.text) == (
        Status.DONE,
        "made the packing list and added sunscreen and hat to it",
    )
    assert answer.data["created"] is True
    assert on_disk(lists, "packing") == ["sunscreen", "hat"]
    assert (
        ask(lists, understander, "create a packing list").text
        == "there is already the packing list"
    )
    assert (
        ask(lists, understander, "make a new list called camping gear").text
        == "made the camping gear list"
    )
    assert on_disk(lists, "camping gear") == []
    which = ask(lists, understander, "what lists do i have")
    assert which.text == (
        "you have 4 lists: the shopping list (0 items), the to-do list (0 items), "
        "the packing list (2 items) and the camping gear list (0 items)"
    )
    answer = ask(lists, understander, "delete the packing list")
    assert (answer.status, answer.text) == (Status.DONE, "deleted the packing list and its 2 items")
    assert on_disk(lists, "packing") is None
    answer = ask(lists, understander, "what's on my packing list")
    assert answer.status is Status.ERROR
    assert answer.text == (
        "there is no packing list; the lists are the camping gear list, the shopping list "
        "and the to-do list"
    )


def test_to_do_items_keep_their_and(lists: ListsSource, understander: Understander) -> None:
    ask(lists, understander, "add call the plumber and pay the bills to my to do list")
    assert on_disk(lists, "to do") == ["call the plumber and pay the bills"]
    answer = ask(lists, understander, "mark call the plumber as done")
    assert answer.text == "checked off call the plumber and pay the bills on the to-do list"
    assert on_disk(lists, "to do") == []


def test_it_is_the_list_this_conversation_used_last(
    lists: ListsSource, understander: Understander
) -> None:
    ask(lists, understander, "add wash the car to the to do list", session="hall")
    ask(lists, understander, "add milk to the shopping list", session="kitchen")
    assert ask(lists, understander, "how many things are on it", session="hall").text == (
        "the to-do list has 1 item"
    )
    assert ask(lists, understander, "how many things are on it", session="kitchen").text == (
        "the shopping list has 1 item"
    )
    assert ask(lists, understander, "how many things are on it", session="new").text == (
        "the shopping list has 1 item"
    )  # the default list


def test_lists_survive_a_restart(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    first = ListsSource(config, tmp_path)
    ask(first, understander, "add olive oil, pasta and tomatoes to the shopping list")
    asyncio.run(first.close())
    again = ListsSource(config, tmp_path)
    assert ask(again, understander, "what's on my shopping list").text == (
        "the shopping list has 3 items: olive oil, pasta and tomatoes"
    )


def test_without_create_on_add_an_unknown_list_is_said(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    strict = dataclasses.replace(
        config, sources={**config.sources, "lists": {"create_on_add": False}}
    )
    lists = ListsSource(strict, tmp_path)
    answer = ask(lists, understander, "add sunscreen to the packing list")
    assert answer.status is Status.ERROR
    assert (
        answer.text
        == "there is no packing list; the lists are the shopping list and the to-do list"
    )


def test_a_full_list_refuses_more(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    small = dataclasses.replace(config, sources={**config.sources, "lists": {"max_items": 2}})
    lists = ListsSource(small, tmp_path)
    answer = ask(lists, understander, "add milk eggs and bread to the shopping list")
    assert answer.status is Status.DONE
    assert answer.text == (
        "added milk and eggs to the shopping list; the shopping list is full (2 items); "
        "remove something first"
    )
    assert on_disk(lists) == ["milk", "eggs"]
    again = ask(lists, understander, "add bread to the shopping list")
    assert again.status is Status.ERROR


def test_nothing_to_add_is_said(lists: ListsSource, understander: Understander) -> None:
    answer = ask(lists, understander, "add to the shopping list")
    assert (answer.status, answer.text) == (
        Status.ERROR,
        "I didn't catch what to put on the shopping list",
    )
    assert on_disk(lists) is None  # nothing was written, not even the file


def test_a_database_that_cannot_be_opened_is_an_answer(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    blocked = tmp_path / "state"
    blocked.write_text("a file where the directory should be", encoding="utf-8")
    lists = ListsSource(config, blocked)
    answer = ask(lists, understander, "add milk to the shopping list")
    assert answer.status is Status.ERROR
    assert answer.text.startswith(f"I couldn't use the lists database at {blocked}/lists.sqlite3")
    findings = asyncio.run(lists.diagnose())
    assert findings[0].level is Level.BROKEN


def test_conditions_are_checked_on_the_list(lists: ListsSource, understander: Understander) -> None:
    (cond,) = understander.understand("is milk on the shopping list").parts()
    assert asyncio.run(lists.evaluate(cond, Request())).truth is Truth.FALSE
    ask(lists, understander, "add milk to the shopping list")
    assert asyncio.run(lists.evaluate(cond, Request())).truth is Truth.TRUE


def test_doctor_says_what_the_database_holds(
    lists: ListsSource, understander: Understander
) -> None:
    (fresh,) = asyncio.run(lists.diagnose())
    assert fresh.level is Level.OK and "no lists yet" in fresh.text
    ask(lists, understander, "add milk to the shopping list")
    (found,) = asyncio.run(lists.diagnose())
    assert found.level is Level.OK and found.text.endswith("shopping (1)")
