"""Several players, one per area; a player that is down, silent or locked is an answer.

Two real mpd processes play the living room and the kitchen. The area a
request names wins, then the area it was spoken in, then the first player;
an area without a player is said, and nothing plays anywhere.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.core.origin import Origin
from mnemolis.runtime.assistant import Assistant
from mnemolis.sources.base import Level, Request, Status
from mnemolis.sources.lists.source import ListsSource
from mnemolis.sources.music.source import MusicSource
from mnemolis.understand import Understander, registry_from_config
from tests.support_mpd import (
    Mpd,
    Nowhere,
    ask,
    fixture_mpd_server,
    fixture_music_library,
    fixture_player,
    mpd_state,
    require_mpd,
    reset,
    source_for,
    with_players,
)

__all__ = ["fixture_mpd_server", "fixture_music_library", "fixture_player"]


@pytest.fixture(scope="module")
def kitchen_server(music_library: tuple[Path, Path]) -> Iterator[Mpd]:
    server = Mpd(require_mpd(), *music_library).start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def kitchen(kitchen_server: Mpd) -> Mpd:
    reset(kitchen_server)
    return kitchen_server


@pytest.fixture
def house(config: Config, player: Mpd, kitchen: Mpd, tmp_path: Path) -> MusicSource:
    return source_for(config, tmp_path, player, kitchen)  # living room, kitchen


def test_the_named_area_plays_and_the_other_does_not(
    house: MusicSource, understander: Understander, player: Mpd, kitchen: Mpd
) -> None:
    answer = ask(house, understander, "play some jazz in the kitchen", room="living room")
    assert answer.text == "playing Jazz (5 songs) on the kitchen player"
    assert answer.data["player"] == "kitchen"
    assert mpd_state(kitchen)["state"] == "play"
    assert mpd_state(player)["state"] == "stop"
    answer = ask(house, understander, "pause the music in the kitchen", room="living room")
    assert answer.text == "paused the music on the kitchen player"
    assert mpd_state(kitchen)["state"] == "pause"


def test_the_requesters_area_is_the_default(
    house: MusicSource, understander: Understander, player: Mpd, kitchen: Mpd
) -> None:
    ask(house, understander, "play the beatles", room="kitchen")
    assert mpd_state(kitchen)["state"] == "play" and mpd_state(player)["state"] == "stop"
    ask(house, understander, "turn the volume down", room="kitchen")
    assert (mpd_state(kitchen)["volume"], mpd_state(player)["volume"]) == (40, 50)
    ask(house, understander, "play some folk")  # no area known: the first player
    assert mpd_state(player)["state"] == "play"
    ask(house, understander, "stop the music", room="bedroom")  # no player there: the first
    assert mpd_state(player)["state"] == "stop" and mpd_state(kitchen)["state"] == "play"


def test_an_area_without_a_player_is_said_and_nothing_plays(
    house: MusicSource, understander: Understander, player: Mpd, kitchen: Mpd
) -> None:
    answer = ask(house, understander, "play some jazz in the garage")
    assert answer.status is Status.ERROR
    assert answer.text == (
        "there is no music player in the garage; the players are in the living room "
        "and in the kitchen"
    )
    assert mpd_state(player)["state"] == mpd_state(kitchen)["state"] == "stop"


def test_an_area_only_a_player_knows_becomes_a_room(
    config: Config, player: Mpd, tmp_path: Path
) -> None:
    registry = registry_from_config(config)
    studio = {"name": "studio", "host": player.host, "port": player.port}
    music = MusicSource(with_players(config, studio), registry, tmp_path, {})
    assert "studio" in registry.rooms()
    understander = Understander(config, registry)
    (part,) = understander.understand("play some rock in the studio").parts()
    assert part.slots["room"] == "studio"
    answer = asyncio.run(music.answer(part, Request()))
    assert answer.status is Status.DONE and mpd_state(player)["state"] == "play"


# --------------------------------------------------------------------------- failures


def test_a_player_that_is_down_is_an_answer(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    nowhere = Nowhere()
    music = MusicSource(
        config, registry_from_config(config), tmp_path, {"MNEMOLIS_MPD": nowhere.address}
    )
    answer = ask(music, understander, "play some jazz")
    assert answer.status is Status.ERROR
    assert answer.text == (
        f"I can't reach the default music player at {nowhere.address} (connection refused)"
    )
    assert answer.data["reason"] == "connection refused"
    findings = asyncio.run(music.diagnose())
    assert [f.level for f in findings] == [Level.BROKEN]
    assert "connection refused" in findings[0].text


def test_a_player_that_dies_and_comes_back_is_reached_again(
    config: Config,
    understander: Understander,
    music_library: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    server = Mpd(require_mpd(), *music_library).start()
    try:
        music = MusicSource(
            config, registry_from_config(config), tmp_path, {"MNEMOLIS_MPD": server.address}
        )
        assert ask(music, understander, "play some jazz").status is Status.DONE
        server.stop()
        answer = ask(music, understander, "pause")
        assert answer.status is Status.ERROR and "music player at" in answer.text
        server.start()
        assert ask(music, understander, "play the beatles").status is Status.DONE
        assert mpd_state(server)["artist"] == "The Beatles"
    finally:
        server.cleanup()


def test_a_player_that_never_answers_times_out(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    with socket.socket() as silent:  # accepts the connection, never says hello
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        host, port = silent.getsockname()
        players = {"name": "attic", "host": host, "port": port}
        music = MusicSource(
            with_players(config, players, timeout_s=0.3), registry_from_config(config), tmp_path, {}
        )
        answer = ask(music, understander, "what's playing")
    assert answer.status is Status.ERROR
    assert answer.text.endswith("(no answer within 0.3 s)")


def test_a_password_is_given_and_a_wrong_one_is_said(
    config: Config,
    understander: Understander,
    music_library: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    server = Mpd(require_mpd(), *music_library, password="s3cret").start()
    try:
        env = {"MNEMOLIS_MPD": server.address, "MNEMOLIS_MPD_PASSWORD": "s3cret"}
        music = MusicSource(config, registry_from_config(config), tmp_path, env)
        assert ask(music, understander, "play some jazz").status is Status.DONE
        env["MNEMOLIS_MPD_PASSWORD"] = "wrong"
        locked = MusicSource(config, registry_from_config(config), tmp_path, env)
        answer = ask(locked, understander, "pause")
        assert answer.status is Status.ERROR
        assert answer.text == "the default music player refused: incorrect password"
        assert mpd_state(server)["state"] == "play"
    finally:
        server.cleanup()


def test_without_a_player_music_is_declined_with_how_to_add_one(
    config: Config, understander: Understander, tmp_path: Path
) -> None:
    music = MusicSource(config, registry_from_config(config), tmp_path, {})
    answer = ask(music, understander, "play some jazz")
    assert answer.status is Status.OUT_OF_SCOPE
    assert answer.text.startswith("I can't play music: no music player is set up")
    findings = asyncio.run(music.diagnose())
    assert [f.level for f in findings] == [Level.WARNING]


def test_doctor_names_what_the_library_holds(house: MusicSource) -> None:
    findings = asyncio.run(house.diagnose())
    assert [f.level for f in findings] == [Level.OK, Level.OK]
    assert "14 songs, 6 artists, 7 albums, 2 playlists" in findings[0].text
    assert findings[1].text.startswith("the kitchen player at 127.0.0.1:")


# --------------------------------------------------------------------------- whole answers


def test_a_compound_request_plays_and_adds_and_answers_once(
    config: Config, understander: Understander, player: Mpd, tmp_path: Path
) -> None:
    music = source_for(config, tmp_path, player)
    lists = ListsSource(config, tmp_path)

    async def main() -> None:
        async with Assistant.running(
            config, sources=[music, lists], understander=understander
        ) as assistant:
            answer = await assistant.ask(
                "play some jazz and add milk, eggs and bread to the shopping list",
                origin=Origin(room="living room"),
            )
            assert answer.text == (
                "Playing Jazz (5 songs). Added milk, eggs and bread to the shopping list."
            )
            cond = await assistant.ask("if the music is playing pause it")
            assert cond.text == "Music is playing. Paused the music."
            assert mpd_state(player)["state"] == "pause"
            skipped = await assistant.ask("if the music is playing turn it down")
            assert skipped.text == "The music is paused, so I did nothing."
            assert mpd_state(player)["volume"] == 50

    asyncio.run(main())
    assert lists.store is not None and lists.store.items("shopping") == ["milk", "eggs", "bread"]
