"""The Kiwix source over HTTP: a real kiwix-serve, and servers that are down,
slow or talk nonsense. Every failure is a sentence and a status."""

from __future__ import annotations

import time
import urllib.request

import pytest

from mnemolis.config import Config
from mnemolis.sources.base import Status
from mnemolis.sources.kiwix import source as kiwix
from mnemolis.sources.kiwix.http import KiwixServer
from tests.support_kiwix import (  # noqa: F401 - fixtures
    FakeKiwix,
    KiwixZims,
    ask,
    close,
    fixture_fake_kiwix,
    fixture_kiwix_serve,
    fixture_test_zims,
    free_port,
    running_kiwix_serve,
    started,
)


def test_catalog_names_books_by_file_and_language(kiwix_serve: str) -> None:
    catalog = KiwixServer(kiwix_serve).catalog(3.0)
    assert sorted((e.name, e.title, e.language) for e in catalog) == [
        ("kiwix_extra", "Kiwix extra book", "eng"),
        ("kiwix_test", "Kiwix test book", "eng"),
    ]


@pytest.mark.parametrize(
    ("link", "path"),
    [
        ("/kiwix_test/Ada_Lovelace", "Ada_Lovelace"),
        ("/content/kiwix_test/Mercury_(planet)", "Mercury_(planet)"),
        ("/raw/kiwix_test/content/Romeo_%26_Juliet", "Romeo_&_Juliet"),
        ("/root/content/kiwix_test/A/Ada", "A/Ada"),
        ("/other_book/Ada_Lovelace", None),
    ],
)
def test_article_path_in_a_link(link: str, path: str | None) -> None:
    assert KiwixServer.path_in("kiwix_test", link) == path


def test_environment_url_overrides_configured_books(
    config: Config, kiwix_serve: str, test_zims: KiwixZims
) -> None:
    source = started(
        config, {"MNEMOLIS_KIWIX": kiwix_serve}, books=[{"path": str(test_zims.missing)}]
    )
    answer = ask(source, "kiwi")
    close(source)
    assert answer.status == Status.OK
    assert answer.provenance["backend"] == "kiwix-serve"
    assert answer.data["url"] == f"{kiwix_serve}/content/kiwix_extra/Kiwi_(bird)"


def test_unknown_book_name_is_reported_and_the_others_answer(
    config: Config, kiwix_serve: str
) -> None:
    source = started(config, url=kiwix_serve, books=[{"name": "nope"}, {"name": "kiwix_test"}])
    answer = ask(source, "fire and rain")
    close(source)
    assert answer.status == Status.OK
    assert answer.provenance["book"] == "kiwix_test"
    assert any(
        s.problem == "The encyclopedia server has no book called nope." for s in source.states
    )


def test_server_down_is_an_error_answer(config: Config) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    source = started(config, url=url)
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.status == Status.ERROR
    assert answer.text.startswith(
        f"I cannot look up ada lovelace: the encyclopedia server at {url} is not answering"
    )


def test_server_that_comes_up_later_is_used(config: Config, test_zims: KiwixZims) -> None:
    port = free_port()
    source = started(config, url=f"http://127.0.0.1:{port}")
    assert ask(source, "fire and rain").status == Status.ERROR
    with running_kiwix_serve(test_zims.main, port=port):
        answer = ask(source, "fire and rain")
    close(source)
    assert answer.status == Status.OK
    assert answer.text == "Fire and Rain is a song by James Taylor. It came out in 1970."


def test_local_books_answer_while_the_server_is_down(
    config: Config, test_zims: KiwixZims, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kiwix, "SERVER_RETRY_S", 0.0)
    port = free_port()
    source = started(config, url=f"http://127.0.0.1:{port}", books=[{"path": str(test_zims.main)}])
    # the local book answers at once; the server is asked again in the background
    assert ask(source, "fire and rain").provenance["book"] == "kiwix_test"
    assert ask(source, "kiwi").data["found"] is False
    with running_kiwix_serve(test_zims.extra, port=port):
        ask(source, "kiwi")  # starts the background retry
        deadline = time.monotonic() + 5
        while len(source.library.books) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        answer = ask(source, "kiwi")
    close(source)
    assert answer.provenance["book"] == "kiwix_extra"
    assert answer.provenance["backend"] == "kiwix-serve"


def test_titles_are_fetched_once_and_known_without_the_server(
    config: Config, test_zims: KiwixZims
) -> None:
    with running_kiwix_serve(test_zims.main) as url:
        source = started(config, url=url)
    # the server is gone: is_name never asks it
    assert source.is_name("salt and pepper shakers of the world")
    assert source.is_name("fire and rain")
    assert not source.is_name("fire and ice")
    close(source)


def test_hanging_server_times_out_per_request(config: Config, fake_kiwix: FakeKiwix) -> None:
    source = started(config, url=fake_kiwix.url, timeout_s=0.3)
    t0 = time.monotonic()
    answer = ask(source, "ada lovelace", timeout_s=5.0)
    waited = time.monotonic() - t0
    close(source)
    assert answer.status == Status.ERROR
    assert answer.text == (
        "I cannot look up ada lovelace: the encyclopedia server at "
        f"{fake_kiwix.url} did not answer within 0.3 seconds."
    )
    assert waited < 3.0  # the per-request timeout, not the 30 s the server would hang


def _catalog_of(url: str) -> bytes:
    with urllib.request.urlopen(url + "/catalog/v2/entries", timeout=3) as reply:
        body: bytes = reply.read()
        return body


@pytest.mark.parametrize(
    ("per_request_s", "part_s", "said"),
    [
        (0.3, 5.0, "0.3"),  # the per-request timeout
        (10.0, 0.4, "0.32"),  # the part's deadline, less a margin for the sentence
    ],
)
def test_server_hanging_mid_lookup_times_out(
    config: Config,
    fake_kiwix: FakeKiwix,
    kiwix_serve: str,
    per_request_s: float,
    part_s: float,
    said: str,
) -> None:
    fake_kiwix.catalog = _catalog_of(kiwix_serve)  # the books are listed, then nothing answers
    source = started(
        config,
        url=fake_kiwix.url,
        books=[{"name": "kiwix_test"}],
        timeout_s=per_request_s,
        title_fetch=0,  # start-up would wait up to a second for titles that never come
    )
    t0 = time.monotonic()
    answer = ask(source, "ada lovelace", timeout_s=part_s)
    waited = time.monotonic() - t0
    close(source)
    assert answer.status == Status.ERROR
    assert answer.text == (
        "I could not look up ada lovelace. The encyclopedia server at "
        f"{fake_kiwix.url} did not answer within {said} seconds."
    )
    assert waited < 3.0


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("garbage", "sent suggestions I could not read"),
        ("error", "answered book called kiwix_test with HTTP 500"),
    ],
)
def test_nonsense_from_the_server_is_an_error_answer(
    config: Config, fake_kiwix: FakeKiwix, kiwix_serve: str, mode: str, says: str
) -> None:
    fake_kiwix.catalog = _catalog_of(kiwix_serve)
    fake_kiwix.mode = mode
    source = started(config, url=fake_kiwix.url, books=[{"name": "kiwix_test"}])
    answer = ask(source, "ada lovelace")
    close(source)
    assert answer.status == Status.ERROR
    assert says in answer.text
