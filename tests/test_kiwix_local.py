"""The Kiwix source on local ZIM files: failures as answers, books and their
order, the environment override, the demo ZIM, and titles as known names."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.demo.zim import ARTICLES, demo_book, ensure_demo_zim, load_book
from mnemolis.sources.base import PartAnswer, Request, Source, Status, Truth
from mnemolis.sources.kiwix import zim_local
from mnemolis.sources.kiwix.book import KiwixError
from mnemolis.sources.kiwix.names import TitleNames
from mnemolis.sources.kiwix.source import KiwixSource
from mnemolis.sources.kiwix.zim_local import LocalBook
from mnemolis.understand import Understander
from tests.support_kiwix import (  # noqa: F401 - fixtures
    KiwixZims,
    ask,
    close,
    fixture_test_zims,
    kiwix_config,
    started,
)


def test_source_implements_the_protocol(config: Config) -> None:
    source = KiwixSource(config, environ={})
    assert isinstance(source, Source)
    assert source.name == "kiwix"


@pytest.mark.parametrize(
    ("which", "says"),
    [
        ("missing", "does not exist"),
        ("corrupt", "it is not a valid ZIM file"),
        ("truncated", "it is not a valid ZIM file"),
    ],
)
def test_unreadable_book_is_an_error_answer(
    config: Config, test_zims: KiwixZims, which: str, says: str
) -> None:
    path = getattr(test_zims, which)
    source = started(config, books=[{"path": str(path)}])
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.status == Status.ERROR
    assert answer.text.startswith("I cannot look up ada lovelace:")
    assert str(path) in answer.text
    assert says in answer.text
    assert source.states[0].usable is False


def test_no_book_configured_is_an_error_answer(config: Config) -> None:
    source = started(config)
    answer = ask(source, "ada lovelace")
    assert answer.status == Status.ERROR
    assert answer.text == "I cannot look up ada lovelace: No encyclopedia is configured."


def test_a_bad_book_does_not_stop_the_good_one(config: Config, test_zims: KiwixZims) -> None:
    books = [{"path": str(test_zims.missing)}, {"path": str(test_zims.main)}]
    source = started(config, books=books)
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.status == Status.OK
    assert answer.provenance["book"] == "kiwix_test"
    assert [s.usable for s in source.states] == [False, True]


@pytest.mark.parametrize(
    ("order", "book", "start"),
    [
        (["main", "extra"], "kiwix_test", "Augusta Ada King"),
        (["extra", "main"], "kiwix_extra", "Ada Lovelace appears in the extra book too."),
    ],
)
def test_preference_order_decides_between_books(
    config: Config, test_zims: KiwixZims, order: list[str], book: str, start: str
) -> None:
    source = started(config, books=[{"path": str(getattr(test_zims, o))} for o in order])
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.provenance["book"] == book
    assert answer.text.startswith(start)


def test_book_in_another_language_is_not_asked(config: Config, test_zims: KiwixZims) -> None:
    source = started(config, books=[{"path": str(test_zims.german)}])
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.status == Status.ERROR
    assert "in language deu, not eng; not asked" in answer.text
    assert source.states[0].language == "deu"


def test_configured_language_overrides_the_zim(config: Config, test_zims: KiwixZims) -> None:
    source = started(config, books=[{"path": str(test_zims.german), "language": "en"}])
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.text == "Ada Lovelace war eine britische Mathematikerin."


def test_environment_overrides_configured_books(config: Config, test_zims: KiwixZims) -> None:
    env = {"MNEMOLIS_KIWIX": f"{test_zims.extra}, {test_zims.main}"}
    source = started(config, environ=env, books=[{"path": str(test_zims.missing)}])
    answer = ask(source, "kiwi")
    close(source)
    assert answer.provenance["book"] == "kiwix_extra"
    assert [s.where for s in source.states] == [str(test_zims.extra), str(test_zims.main)]


def test_sentences_setting_limits_the_answer(config: Config, test_zims: KiwixZims) -> None:
    source = started(config, books=[{"path": str(test_zims.main)}], sentences=1)
    answer = ask(source, "mercury retrograde")
    close(source)
    assert answer.text == "Mercury retrograde is when Mercury seems to move backwards in the sky."


def test_bad_settings_fall_back_and_are_reported(config: Config) -> None:
    source = started(config, sentences="three", timeout_s=-1)
    answer = ask(source, "ada lovelace")
    assert source.settings.sentences == 3
    assert source.settings.timeout_s == 3.0
    assert "sources/kiwix.yaml: sentences must be a whole number from 1 to 10" in answer.text


def test_condition_is_unknown(config: Config) -> None:
    source = KiwixSource(config, environ={})
    part = Part("is ada lovelace famous", "knowledge.lookup", "kiwix", {"topic": "ada lovelace"})
    evaluation = asyncio.run(source.evaluate(part, Request()))
    assert evaluation.truth == Truth.UNKNOWN


def test_part_without_topic_says_so(config: Config, test_zims: KiwixZims) -> None:
    source = started(config, books=[{"path": str(test_zims.main)}])
    answer = ask(source, None, text="tell me about")
    close(source)
    assert answer.status == Status.OK
    assert answer.text == "I did not catch what to look up."


def test_parts_are_answered_concurrently_in_their_order(
    config: Config, test_zims: KiwixZims
) -> None:
    source = started(config, books=[{"path": str(test_zims.main)}])
    topics = ["ada lovelace", "zorblax", "fire and rain", "mercury"]
    parts = [Part(f"tell me about {t}", "knowledge.lookup", "kiwix", {"topic": t}) for t in topics]

    async def together() -> list[PartAnswer]:
        return list(await asyncio.gather(*(source.answer(p, Request()) for p in parts)))

    answers = asyncio.run(together())
    close(source)
    assert [a.data["topic"] for a in answers] == topics
    assert [a.data["found"] for a in answers] == [True, False, True, True]


def test_closed_source_answers_with_an_error(config: Config, test_zims: KiwixZims) -> None:
    source = started(config, books=[{"path": str(test_zims.main)}])
    close(source)
    answer = ask(source, "ada lovelace")
    assert answer.status == Status.ERROR
    assert answer.text == "The encyclopedia has been closed."


# --------------------------------------------------------------------------- the demo ZIM


def test_demo_zim_is_built_once_into_the_cache(tmp_path: Path) -> None:
    first = ensure_demo_zim(tmp_path)
    again = ensure_demo_zim(tmp_path)
    assert first.built is True
    assert again.built is False
    assert first.path == tmp_path / "mnemolis_demo_en.zim"
    edited = tmp_path / "articles.yaml"
    shutil.copy(ARTICLES, edited)
    with edited.open("a", encoding="utf-8") as handle:
        handle.write("\n  - title: Zebra\n    text: A zebra is a striped horse of Africa.\n")
    assert ensure_demo_zim(tmp_path / "other", edited).built is True
    assert ensure_demo_zim(tmp_path / "other", edited).built is False


def test_demo_articles_are_a_few_dozen_with_the_readme_subjects() -> None:
    book = load_book()
    titles = {a.title for a in book.articles}
    assert len(book.articles) >= 30
    subjects = ["Ada Lovelace", "Romeo and Juliet", "Pride and Prejudice", "Photosynthesis"]
    subjects += ["Mercury retrograde", "Eiffel Tower", "Rock and roll", "Serendipity"]
    assert set(subjects) <= titles
    assert any(a.kind == "disambiguation" for a in book.articles)


@pytest.mark.parametrize(
    ("topic", "title"),
    [
        ("ada lovelace", "Ada Lovelace"),
        ("mercury retrograde", "Mercury retrograde"),
        ("romeo and juliet", "Romeo and Juliet"),
        ("pride and prejudice", "Pride and Prejudice"),
        ("photosynthesis", "Photosynthesis"),
        ("serendipity", "Serendipity"),
        ("eiffel tower", "Eiffel Tower"),
        ("rock and roll", "Rock and roll"),
        ("einstein", "Albert Einstein"),
    ],
)
def test_demo_is_used_when_nothing_else_is_configured(
    config: Config, demo_source: KiwixSource, topic: str, title: str
) -> None:
    answer = ask(demo_source, topic)
    assert answer.status == Status.OK
    assert answer.provenance["article"] == title
    assert answer.provenance["book"] == "mnemolis_demo_en"
    assert 1 <= len(answer.data["sentences"]) <= 3


@pytest.fixture(scope="module")
def demo_source(config: Config, tmp_path_factory: pytest.TempPathFactory) -> KiwixSource:
    cache = tmp_path_factory.mktemp("cache")
    source = KiwixSource(
        kiwix_config(config, demo=True), environ={}, cache_dir=cache, demo_book=demo_book
    )
    asyncio.run(source.start())
    return source


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("title", "key"),
    [
        ("Pride and Prejudice", "pride and prejudice"),
        ("Fire and Rain (song)", "fire and rain"),
        ("Earth, Wind & Fire", "earth wind & fire"),
        ("Harry Potter and the Philosopher’s Stone", "harry potter and the philosopher's stone"),
        ("Ada Lovelace", None),
        ("Andromeda", None),
    ],
)
def test_title_name_keys(title: str, key: str | None) -> None:
    assert TitleNames(["and", "&", "plus"]).key(title) == key


@pytest.mark.parametrize(
    ("text", "known"),
    [
        ("salt and pepper shakers of the world", True),
        ("fire and rain", True),
        ("earth wind and fire", True),
        ("earth wind & fire", True),
        ("romeo & juliet", True),
        ("salt and pepper", False),
        ("ada lovelace", False),
        ("fire and ice", False),
    ],
)
def test_is_name_knows_local_titles(
    config: Config, test_zims: KiwixZims, text: str, known: bool
) -> None:
    source = started(config, books=[{"path": str(test_zims.main)}])
    assert source.is_name(text) is known
    close(source)


def test_title_scan_respects_its_limit(test_zims: KiwixZims) -> None:
    names = TitleNames(["and"])
    book = LocalBook.open(test_zims.main, names, title_limit=0)
    assert len(names) == 0  # limit 0: nothing scanned
    book.start_title_scan(10_000)
    assert names.is_name("fire and rain")
    book.close()


def test_large_book_titles_are_scanned_in_the_background(
    test_zims: KiwixZims, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zim_local, "SCAN_IN_START", 1)
    names = TitleNames(["and"])
    book = LocalBook.open(test_zims.main, names, title_limit=10_000)
    assert book._scanner is not None
    book._scanner.join(timeout=5)
    assert names.is_name("salt and pepper shakers of the world")
    book.close()


def test_title_joined_by_and_stays_one_part(
    config: Config, test_zims: KiwixZims, understander: Understander
) -> None:
    query = "tell me about fire and rain and lock the front door"
    plain = understander.understand(query)
    assert [p.text for p in plain.parts()] == ["tell me about fire", "rain", "lock the front door"]
    source = started(config, books=[{"path": str(test_zims.main)}])
    knowing = Understander(config, name_sources=[source])
    for text, parts in [
        (query, ["tell me about fire and rain", "lock the front door"]),
        (
            "tell me about salt and pepper shakers of the world and lock the front door",
            ["tell me about salt and pepper shakers of the world", "lock the front door"],
        ),
    ]:
        plan = knowing.understand(text)
        assert [p.text for p in plan.parts()] == parts
        assert plan.parts()[0].intent == "knowledge.lookup"
        answer = ask(source, plan.parts()[0].slots["topic"])
        assert answer.status == Status.OK
    close(source)


def test_local_errors_are_kiwix_errors(test_zims: KiwixZims) -> None:
    book = LocalBook.open(test_zims.main, TitleNames(["and"]))
    with pytest.raises(KiwixError) as caught:
        book.article("No_Such_Article", 1.0)
    assert caught.value.kind == "not_found"
    book.close()
