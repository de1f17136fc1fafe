"""The names the sources keep reach the recogniser: the home's list items (every item a
list has held) and the shipped common items, so "add apples to the shopping list"
is heard in a home whose lists are still empty, and an item of the home's own once
it has been on a list."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from mnemolis.config import Config, load_config
from mnemolis.sources.lists.settings import load_lists_settings
from mnemolis.sources.lists.store import ListStore
from mnemolis.voice.kept_names import kept_names
from mnemolis.voice.recognise import RecogniserSettings
from mnemolis.voice.recognise.build import gather
from mnemolis.voice.recognise.recogniser import PocketsphinxRecogniser
from tests.support_kiwix import KiwixZims, fixture_test_zims
from tests.support_mpd import Mpd, Nowhere, fixture_mpd_server, fixture_music_library, with_players
from tests.support_recogniser import require_voice, speak

__all__ = ["fixture_mpd_server", "fixture_music_library", "fixture_test_zims"]


@pytest.fixture(scope="module")
def config() -> Config:
    return load_config()


def stocked(config: Config, state: Path, done: tuple[str, ...], pending: tuple[str, ...]) -> None:
    store = ListStore(load_lists_settings(config, state).path)
    try:
        store.add("shopping", [*done, *pending])
        store.check_off("shopping", list(done))
    finally:
        store.close()


def test_an_empty_home_hears_common_items(config: Config, tmp_path: Path) -> None:
    vocab = gather(config, RecogniserSettings(), None, kept_names(tmp_path)(config))
    items = vocab.classes["item"]
    assert ("apples",) in items and ("toilet", "paper") in items
    assert ("quinoa",) not in items


def test_every_item_a_list_has_held_is_a_name(config: Config, tmp_path: Path) -> None:
    stocked(config, tmp_path, done=("quinoa",), pending=("Sriracha sauce",))
    names = kept_names(tmp_path)(config)
    assert names == {"item": ["Sriracha sauce", "quinoa"]} or names == {
        "item": ["quinoa", "Sriracha sauce"]
    }
    vocab = gather(config, RecogniserSettings(), None, names)
    assert ("quinoa",) in vocab.classes["item"]
    assert ("sriracha", "sauce") in vocab.classes["item"]


@pytest.mark.parametrize("broken", [b"not a database at all", b""])
def test_a_broken_list_store_is_no_names(config: Config, tmp_path: Path, broken: bytes) -> None:
    path = load_lists_settings(config, tmp_path).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(broken * 100)
    assert kept_names(tmp_path)(config) in ({}, {"item": []})


@pytest.mark.parametrize(
    "said",
    ["add apples to the shopping list", "add quinoa to the shopping list"],
)
def test_an_item_is_heard_in_a_request(
    config: Config, tmp_path_factory: pytest.TempPathFactory, said: str
) -> None:
    require_voice()
    state = tmp_path_factory.mktemp("state")
    stocked(config, state, done=("quinoa",), pending=())
    r = PocketsphinxRecogniser(config, RecogniserSettings(), state, None, kept_names(state))
    try:
        r.wait_ready()
        heard = asyncio.run(r.transcribe(speak(said)))
    finally:
        r.close()
    assert heard.rejected is None
    # the item and what it is added to (espeak-ng's "list" is heard as the closer
    # "please" now and then: the request is the same)
    assert heard.text.startswith(said.rsplit(" ", 1)[0]), heard.text


def test_the_players_library_names_are_names(
    config: Config, mpd_server: Mpd, tmp_path: Path
) -> None:
    home = with_players(
        config, {"name": "living room", "host": mpd_server.host, "port": mpd_server.port}
    )
    music = kept_names(tmp_path)(home)["music"]
    for name in ("Hall & Oates", "Rich Girl", "Workout", "Rock", "Sam Sparro"):
        assert name in music
    assert len(music) == len(set(music))


def test_a_player_that_is_down_gives_no_music_and_the_rest_still_comes(
    config: Config, tmp_path: Path
) -> None:
    stocked(config, tmp_path, done=(), pending=("quinoa",))
    nowhere = Nowhere()
    home = with_players(config, {"name": "living room", "host": nowhere.host, "port": nowhere.port})
    assert kept_names(tmp_path)(home) == {"item": ["quinoa"]}


def test_the_local_books_titles_are_names(
    config: Config, test_zims: KiwixZims, tmp_path: Path
) -> None:
    books = {"books": [str(test_zims.main), str(test_zims.corrupt), str(test_zims.missing)]}
    home = dataclasses.replace(config, sources={**config.sources, "kiwix": books})
    titles = kept_names(tmp_path)(home)["title"]
    assert "Ada Lovelace" in titles and "Mercury" in titles


def test_a_reload_reads_the_names_of_the_new_configuration(config: Config, tmp_path: Path) -> None:
    require_voice()
    seen: list[Config] = []

    def names(given: Config) -> dict[str, list[str]]:
        seen.append(given)
        return {}

    other = dataclasses.replace(config, sources={**config.sources, "lists": {"file": "b.db"}})
    r = PocketsphinxRecogniser(config, RecogniserSettings(), tmp_path, None, names)
    try:
        r.wait_ready()
        r.reload(other).result()
    finally:
        r.close()
    assert seen == [config, other]
