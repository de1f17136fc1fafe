"""The pure pieces of the Kiwix source: HTML to sentences, title matching,
topic cleaning and the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.sources.kiwix.article_text import (
    drop_asides,
    extract,
    html_title,
    is_disambiguation,
    is_list_title,
    lead_sentences,
    split_sentences,
)
from mnemolis.sources.kiwix.pick import TitleMatcher, TopicCleaner, plain_phrases
from mnemolis.sources.kiwix.settings import TextRules, read_settings
from tests.support_kiwix import ADA_HTML, kiwix_config


@pytest.fixture(scope="module")
def rules(config: Config) -> TextRules:
    return read_settings(config, {}).text


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("Mr. Darcy is proud. Elizabeth is not.", ["Mr. Darcy is proud.", "Elizabeth is not."]),
        ("J. R. R. Tolkien wrote it. It is long.", ["J. R. R. Tolkien wrote it.", "It is long."]),
        ("It was built c. 1200 in stone. It fell.", ["It was built c. 1200 in stone.", "It fell."]),
        ("Pi is 3.14 or so. Good.", ["Pi is 3.14 or so.", "Good."]),
        ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
        ("e.g. this one stays whole. Yes.", ["e.g. this one stays whole.", "Yes."]),
        ("no full stop at the end", ["no full stop at the end"]),
    ],
)
def test_split_sentences(rules: TextRules, text: str, sentences: list[str]) -> None:
    assert split_sentences(text, rules.abbreviations) == sentences


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("Ada (1815–1852) was a mathematician.", "Ada was a mathematician."),
        ("Ada (née Byron; born (in London) 1815), a writer.", "Ada, a writer."),
        ("Water is wet.[1][citation needed] It flows.[a]", "Water is wet. It flows."),
        ("An open ( aside stays", "An open ( aside stays"),
    ],
)
def test_drop_asides(text: str, spoken: str) -> None:
    assert drop_asides(text) == spoken


def test_wikipedia_like_page_reads_as_prose(rules: TextRules) -> None:
    article = extract(ADA_HTML)
    assert article.title == "Ada Lovelace"
    assert lead_sentences(article, rules, 2, 1000) == [
        "Augusta Ada King, Countess of Lovelace was an English mathematician and writer.",
        "She is chiefly known for her work on Mr. Babbage's Analytical Engine.",
    ]
    spoken = " ".join(article.paragraphs)
    for furniture in ("For the programming language", "Born", "Portrait", "[1]", "[edit]"):
        assert furniture not in spoken


@pytest.mark.parametrize(
    ("count", "max_chars", "expected"),
    [
        (3, 1000, ["First one here.", "Second one here.", "Third one here."]),
        (1, 1000, ["First one here."]),
        (3, 34, ["First one here.", "Second one here."]),
        (3, 10, ["First one…"]),
    ],
)
def test_lead_sentences_keep_count_and_length(
    rules: TextRules, count: int, max_chars: int, expected: list[str]
) -> None:
    page = "<p>First one here. Second one here.</p><p>Third one here. Fourth one here.</p>"
    assert lead_sentences(extract(page), rules, count, max_chars) == expected


def test_pages_without_paragraphs_use_their_text(rules: TextRules) -> None:
    page = "<html><body><div>A kiwi is a bird. It cannot fly.</div><script>x()</script></body>"
    assert lead_sentences(extract(page), rules, 3, 500) == ["A kiwi is a bird.", "It cannot fly."]


@pytest.mark.parametrize(
    ("title", "page", "expected"),
    [
        ("Mercury", "<p>Mercury may refer to:</p><ul><li><a href='M'>M</a></li></ul>", True),
        ("Mercury (disambiguation)", "<p>Several things.</p>", True),
        ("Mercury", '<div id="disambigbox"></div><p>Things called Mercury.</p>', True),
        ("Mercury (planet)", "<p>Mercury is a planet. It may refer to nothing.</p>", False),
    ],
)
def test_disambiguation_pages(rules: TextRules, title: str, page: str, expected: bool) -> None:
    assert is_disambiguation(title, extract(page), rules) is expected


def test_disambiguation_options_are_first_links_of_list_items() -> None:
    page = """<p>Mercury may refer to:</p><ul>
      <li><a href="Mercury_(planet)">Mercury</a>, a planet, see <a href="Sun">Sun</a></li>
      <li><a href="./Mercury_%28element%29">the element</a></li>
      <li><a title="Freddie Mercury" href="Freddie_Mercury">Freddie</a></li>
      <li><a href="https://example.org/x">elsewhere</a></li>
      <li class="navbox"><a href="Hidden">hidden</a></li></ul>"""
    titles = [o.title for o in extract(page).options]
    assert titles == ["Mercury (planet)", "Mercury (element)", "Freddie Mercury"]


def test_html_title() -> None:
    assert html_title("<html><head><title>Rock &amp; roll</title>") == "Rock & roll"
    assert html_title("<p>no title</p>") is None


@pytest.mark.parametrize(
    ("title", "is_list"),
    [("List of rivers of Europe", True), ("Outline of physics", True), ("Listeria", False)],
)
def test_list_titles(rules: TextRules, title: str, is_list: bool) -> None:
    assert is_list_title(title, rules) is is_list


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("topic", "title", "how"),
    [
        ("ada lovelace", "Ada Lovelace", "exact"),
        ("the beatles", "Beatles", "exact"),
        ("romeo & juliet", "Romeo and Juliet", "exact"),
        ("rock n roll", "Rock 'n' roll", "exact"),
        ("mercury", "Mercury (planet)", "qualified"),
        ("ada lovelase", "Ada Lovelace", "near"),
        ("einstein", "Albert Einstein", "contains"),
        ("the history of the eiffel tower", "Eiffel Tower", "within"),
        ("photosynthesis", "Mercury (planet)", "weak"),
    ],
)
def test_title_match_kinds(
    config: Config, rules: TextRules, topic: str, title: str, how: str
) -> None:
    assert TitleMatcher(config.language, rules).match(topic, title).how == how


def test_title_match_order(config: Config, rules: TextRules) -> None:
    matcher = TitleMatcher(config.language, rules)
    titles = [
        "Mercury",
        "Mercury (planet)",
        "Mercuri",
        "Mercury retrograde",
        "Freddie Mercury and Friends",
        "List of Mercury missions",
        "Venus",
    ]
    scores = [matcher.match("mercury", t).score for t in titles]
    assert scores == sorted(scores, reverse=True)
    assert matcher.match("list of mercury missions", "List of Mercury missions").how == "exact"
    assert matcher.match("list of mercury missions", "List of Mercury missions").score == 100


def test_title_variants(config: Config, rules: TextRules) -> None:
    assert TitleMatcher(config.language, rules).variants("pride and prejudice") == [
        "pride and prejudice",
        "Pride and prejudice",
        "Pride and Prejudice",
        "Pride And Prejudice",
    ]


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("who was Ada Lovelace", "ada lovelace"),
        ("who wrote pride and prejudice?", "pride and prejudice"),
        ("what's the deal with mercury retrograde", "mercury retrograde"),
        ("everyone keeps talking about mercury retrograde", "mercury retrograde"),
        ("that mercury thing i keep hearing about", "mercury"),
        ("tell me about the eiffel tower please", "eiffel tower"),
        ("so um what is photosynthesis", "photosynthesis"),
        ("what do you know about rock and roll", "rock and roll"),
        ("who is", ""),
    ],
)
def test_topic_from_text(config: Config, text: str, topic: str) -> None:
    intent = config.intents["knowledge.lookup"]
    cleaner = TopicCleaner(config.language, plain_phrases(p.text for p in intent.phrases))
    assert cleaner.clean(text) == topic


# --------------------------------------------------------------------------- settings


def test_default_settings_use_the_demo(config: Config) -> None:
    settings = read_settings(kiwix_config(config, demo=True), {})
    assert settings.use_demo is True
    assert settings.problems == []
    assert settings.sentences == 3
    assert settings.text.languages["en"] == "eng"


@pytest.mark.parametrize(
    ("env", "paths", "url", "demo"),
    [
        ("/a.zim", ["/a.zim"], None, False),
        ("/a.zim, /b.zim", ["/a.zim", "/b.zim"], None, False),
        ("http://127.0.0.1:8080/", [], "http://127.0.0.1:8080", False),
        ("demo,/a.zim", ["/a.zim"], None, True),
    ],
)
def test_environment_override(
    config: Config, env: str, paths: list[str], url: str | None, demo: bool
) -> None:
    settings = read_settings(
        kiwix_config(config, books=["/configured.zim"], url="http://x:1"),
        {"MNEMOLIS_KIWIX": env},
    )
    assert [str(b.path) for b in settings.books] == paths
    assert settings.url == url
    assert settings.use_demo is demo


def test_relative_book_paths_are_read_from_the_config_dir(config: Config) -> None:
    settings = read_settings(kiwix_config(config, books=[{"path": "zim/w.zim"}]), {})
    assert settings.books[0].path == Path(config.root) / "zim" / "w.zim"


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("sentences", 0, "sentences must be a whole number from 1 to 10"),
        ("timeout_s", "soon", "timeout_s must be a number from 0.05 to 60"),
        ("url", "ftp://x", "url must start with http:// or https://"),
        ("books", "a.zim", "books must be a list"),
        ("books", [{"language": "en"}], "book #1 needs a path"),
        ("text", {"abbreviations": "mr."}, "text.abbreviations must be a list of words"),
    ],
)
def test_bad_settings_are_reported(config: Config, key: str, value: object, problem: str) -> None:
    settings = read_settings(kiwix_config(config, **{key: value}), {})
    assert any(problem in p for p in settings.problems), settings.problems
