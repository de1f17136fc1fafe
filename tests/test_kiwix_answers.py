"""Topics to spoken answers, the same table read from ZIM files directly and
through a real kiwix-serve."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mnemolis.config import Config
from mnemolis.sources.base import Status
from mnemolis.sources.kiwix.source import KiwixSource
from tests.support_kiwix import (  # noqa: F401 - fixtures
    KiwixZims,
    ask,
    close,
    fixture_kiwix_serve,
    fixture_test_zims,
    started,
)


@pytest.fixture(scope="module", params=["zim", "kiwix-serve"])
def source(
    request: pytest.FixtureRequest, config: Config, test_zims: KiwixZims
) -> Iterator[KiwixSource]:
    if request.param == "zim":
        books = [{"path": str(test_zims.main)}, {"path": str(test_zims.extra)}]
        src = started(config, books=books)
    else:
        url = request.getfixturevalue("kiwix_serve")
        src = started(config, url=url, books=[{"name": "kiwix_test"}, {"name": "kiwix_extra"}])
    yield src
    close(src)


# topic -> (article title, book, how the answer starts)
FOUND = [
    (
        "Ada Lovelace",
        "Ada Lovelace",
        "kiwix_test",
        "Augusta Ada King, Countess of Lovelace was an English mathematician and writer. "
        "She is chiefly known for her work on Mr. Babbage's Analytical Engine. "
        "Her notes hold what is thought to be the first published algorithm.",
    ),
    ("ada lovelace", "Ada Lovelace", "kiwix_test", "Augusta Ada King"),
    ("lovelace", "Ada Lovelace", "kiwix_test", "Augusta Ada King"),
    ("ada byron", "Ada Lovelace", "kiwix_test", "Augusta Ada King"),
    ("mercury retrograde", "Mercury retrograde", "kiwix_test", "Mercury retrograde is when"),
    ("salt and pepper shakers of the world", "Salt and Pepper Shakers of the World", "kiwix_test",
     "Salt and Pepper Shakers of the World is a museum collection."),
    ("fire and rain", "Fire and Rain", "kiwix_test", "Fire and Rain is a song by James Taylor."),
    ("romeo & juliet", "Romeo and Juliet", "kiwix_test", "Romeo and Juliet is a play"),
    ("earth wind and fire", "Earth, Wind & Fire", "kiwix_test", "Earth, Wind & Fire is an"),
    ("beatles", "The Beatles", "kiwix_test", "The Beatles were a rock band"),
    ("the beatles", "The Beatles", "kiwix_test", "The Beatles were a rock band"),
    ("danube", "Danube", "kiwix_test", "The Danube is one of the longest rivers of Europe."),
    ("list of rivers of europe", "List of rivers of Europe", "kiwix_test", "This is a list"),
    ("kiwi", "Kiwi (bird)", "kiwix_extra", "The kiwi is a flightless bird of New Zealand."),
    ("bubble and squeak", "Bubble and Squeak", "kiwix_extra", "Bubble and squeak is a dish"),
]  # fmt: skip


@pytest.mark.parametrize(("topic", "title", "book", "start"), FOUND)
def test_topic_finds_article(
    source: KiwixSource, topic: str, title: str, book: str, start: str
) -> None:
    answer = ask(source, topic)
    assert answer.status == Status.OK, answer.text
    assert answer.text.startswith(start)
    assert answer.provenance["article"] == title
    assert answer.provenance["book"] == book
    assert answer.data["found"] is True
    assert answer.source == "kiwix"


def test_answer_is_at_most_the_configured_sentences(source: KiwixSource) -> None:
    answer = ask(source, "mercury retrograde")
    assert answer.data["sentences"] == [
        "Mercury retrograde is when Mercury seems to move backwards in the sky.",
        "It is an optical illusion.",
        "Astrologers blame it for mishaps.",
    ]


def test_redirect_is_followed_and_named(source: KiwixSource) -> None:
    answer = ask(source, "lovelace")
    assert answer.provenance["redirected_from"] == "Lovelace"
    assert answer.provenance["path"] == "Ada_Lovelace"


def test_disambiguation_page_asks_did_you_mean(source: KiwixSource) -> None:
    answer = ask(source, "mercury")
    assert answer.status == Status.OK
    assert answer.text == (
        "Mercury can mean several things. "
        "Did you mean Mercury (planet), Mercury (element) or Mercury (mythology)?"
    )
    assert answer.provenance["article"] == "Mercury"
    assert answer.data["options"] == [
        "Mercury (planet)",
        "Mercury (element)",
        "Mercury (mythology)",
    ]


def test_equal_qualified_titles_ask_did_you_mean(source: KiwixSource) -> None:
    # no page called "Jupiter", two that differ only by their qualifier
    answer = ask(source, "jupiter")
    assert answer.status == Status.OK
    assert answer.text.startswith("Jupiter can mean several things. Did you mean Jupiter (")
    assert sorted(answer.data["options"]) == ["Jupiter (mythology)", "Jupiter (planet)"]


def test_list_page_is_avoided_for_a_plain_topic(source: KiwixSource) -> None:
    answer = ask(source, "rivers of europe")
    assert answer.provenance["article"] == "Danube"
    assert answer.text.startswith("I found no article on rivers of europe, but Danube mentions it.")
    assert answer.provenance["match"] == "search"


def test_full_text_search_finds_a_mention(source: KiwixSource) -> None:
    answer = ask(source, "flightless bird")
    assert answer.status == Status.OK
    assert answer.provenance["article"] == "Kiwi (bird)"
    assert "mentions it" in answer.text


@pytest.mark.parametrize(
    ("topic", "spoken"),
    [
        ("zorblax", "I found nothing about zorblax in the encyclopedia."),
        (
            "blank page",
            "I found the article Blank Page in Kiwix test book, but it has no text I can read out.",
        ),
    ],
)
def test_nothing_to_say_is_an_ok_answer(source: KiwixSource, topic: str, spoken: str) -> None:
    answer = ask(source, topic)
    assert answer.status == Status.OK
    assert answer.text == spoken
    assert answer.data["found"] is False


def test_topic_from_text_when_no_slot(source: KiwixSource) -> None:
    answer = ask(source, None, text="what's the deal with mercury retrograde?")
    assert answer.provenance["topic"] == "mercury retrograde"
    assert answer.provenance["topic_from"] == "text"
    assert answer.provenance["article"] == "Mercury retrograde"


def test_titles_with_and_are_names(source: KiwixSource) -> None:
    for title in ("fire and rain", "salt and pepper shakers of the world", "romeo and juliet"):
        assert source.is_name(title), title
    for text in ("ada lovelace", "fire and ice", "salt and pepper"):
        assert not source.is_name(text), text
