"""The music source against a real mpd: every command asserted on MPD's own status.

The sentences go through the real understander; the answers come from the
music source talking to an mpd started for the session on a free port,
with the library `support_mpd` generates. After each request the test
reads MPD itself (state, current song, volume, modes, the queue) with its
own client.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.sources.base import Request, Status
from mnemolis.sources.music.source import MusicSource
from mnemolis.understand import Understander
from tests.support_mpd import (
    PLAYLISTS,
    TRACKS,
    Mpd,
    ask,
    fixture_mpd_server,
    fixture_music_library,
    fixture_player,
    mpd_state,
    source_for,
)

__all__ = ["fixture_mpd_server", "fixture_music_library", "fixture_player"]


def files(**tags: str) -> list[str]:
    """The library's files with these tags, in the library's order."""
    return sorted(t.path for t in TRACKS if all(getattr(t, k) == v for k, v in tags.items()))


@pytest.fixture
def music(config: Config, player: Mpd, tmp_path: Path) -> MusicSource:
    return source_for(config, tmp_path, player)


# --------------------------------------------------------------------------- playing


PLAY_ROWS = [
    ("play some jazz", "genre", "Jazz", files(genre="Jazz")),
    ("play jazz music", "genre", "Jazz", files(genre="Jazz")),
    ("play something by the beatles", "artist", "The Beatles", files(artist="The Beatles")),
    ("play the beatles", "artist", "The Beatles", files(artist="The Beatles")),
    ("play miles davies", "artist", "Miles Davis", files(artist="Miles Davis")),
    ("play simon and garfunkel", "artist", "Simon & Garfunkel", files(artist="Simon & Garfunkel")),
    ("play the album kind of blue", "album", "Kind of Blue", files(album="Kind of Blue")),
    ("play abbey road", "album", "Abbey Road", files(album="Abbey Road")),
    ("play my workout playlist", "playlist", "Workout", list(PLAYLISTS["Workout"])),
    ("play the dinner party playlist", "playlist", "Dinner Party", list(PLAYLISTS["Dinner Party"])),
    ("play so what by miles davis", "title", "So What", files(title="So What")),
    ("play the song cecilia", "title", "Cecilia", files(title="Cecilia")),
    ("play here comes the sun", "title", "Here Comes the Sun", files(title="Here Comes the Sun")),
]


@pytest.mark.parametrize(("text", "kind", "name", "queue"), PLAY_ROWS)
def test_play_finds_the_name_and_mpd_plays_exactly_it(
    music: MusicSource,
    understander: Understander,
    player: Mpd,
    text: str,
    kind: str,
    name: str,
    queue: list[str],
) -> None:
    answer = ask(music, understander, text)
    assert answer.status is Status.DONE, answer.text
    assert answer.data["selection"]["kind"] == kind
    assert answer.data["selection"]["name"] == name
    now = mpd_state(player)
    assert now["state"] == "play"
    assert sorted(now["queue"]) == sorted(queue)
    if kind == "playlist":
        assert now["queue"] == queue  # a playlist keeps its order
    assert answer.provenance["confirmed_by"] == "mpd status"


def test_play_replaces_the_queue_and_says_what_it_plays(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    ask(music, understander, "play some jazz")
    answer = ask(music, understander, "play the album abbey road")
    assert answer.text == "playing the album Abbey Road"
    assert sorted(mpd_state(player)["queue"]) == files(album="Abbey Road")
    assert ask(music, understander, "play some folk").text == "playing Folk (2 songs)"


def test_a_name_the_library_lacks_is_said_and_nothing_changes(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    ask(music, understander, "play the beatles")
    before = mpd_state(player)
    answer = ask(music, understander, "play some polka")
    assert answer.status is Status.ERROR
    assert answer.text == 'I couldn\'t find "polka" in the music library'
    assert answer.data["reason"] == "not_found"
    assert mpd_state(player)["queue"] == before["queue"]
    assert mpd_state(player)["state"] == "play"


def test_play_without_a_name_plays_the_queue_or_else_the_library(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    answer = ask(music, understander, "play some music")
    assert answer.status is Status.DONE and answer.data["selection"]["kind"] == "library"
    assert len(mpd_state(player)["queue"]) == len(TRACKS)
    ask(music, understander, "play my workout playlist")
    ask(music, understander, "pause")
    answer = ask(music, understander, "play music")
    assert answer.data["selection"]["kind"] == "queue"
    assert mpd_state(player)["queue"] == list(PLAYLISTS["Workout"])
    assert mpd_state(player)["state"] == "play"


def test_shuffle_a_playlist_plays_it_in_random_order(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    answer = ask(music, understander, "shuffle my workout playlist")
    assert answer.text == "playing your Workout playlist on shuffle"
    now = mpd_state(player)
    assert now["random"] and now["state"] == "play"
    assert sorted(now["queue"]) == sorted(PLAYLISTS["Workout"])


# --------------------------------------------------------------------------- transport


def test_pause_resume_stop_each_change_mpds_state(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    assert ask(music, understander, "pause the music").text == "nothing is playing"
    ask(music, understander, "play kind of blue")
    answer = ask(music, understander, "pause the music")
    assert (answer.status, answer.text) == (Status.DONE, "paused the music")
    assert mpd_state(player)["state"] == "pause"
    again = ask(music, understander, "pause")
    assert (again.status, again.text) == (Status.OK, "the music is already paused")
    answer = ask(music, understander, "resume the music")
    assert answer.status is Status.DONE
    assert answer.text == "playing So What by Miles Davis"
    assert mpd_state(player)["state"] == "play"
    assert ask(music, understander, "keep playing").text == "the music is already playing"
    answer = ask(music, understander, "stop the music")
    assert (answer.status, answer.text) == (Status.DONE, "stopped the music")
    assert mpd_state(player)["state"] == "stop"
    assert ask(music, understander, "turn off the music").status is Status.OK
    answer = ask(music, understander, "resume")
    assert answer.status is Status.DONE and mpd_state(player)["state"] == "play"


def test_resume_with_nothing_queued_says_so(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    answer = ask(music, understander, "resume the music")
    assert answer.status is Status.OK
    assert answer.text.startswith("there is nothing to resume")
    assert mpd_state(player)["state"] == "stop"


def test_next_and_previous_move_through_the_queue(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    ask(music, understander, "play the album kind of blue")
    assert mpd_state(player)["title"] == "So What"
    answer = ask(music, understander, "next song")
    assert answer.text == "next: Freddie Freeloader by Miles Davis"
    assert (mpd_state(player)["pos"], mpd_state(player)["title"]) == (1, "Freddie Freeloader")
    ask(music, understander, "skip this track")
    assert mpd_state(player)["title"] == "Blue in Green"
    answer = ask(music, understander, "previous song")
    assert answer.text == "back to Freddie Freeloader by Miles Davis"
    assert mpd_state(player)["title"] == "Freddie Freeloader"
    ask(music, understander, "skip")
    answer = ask(music, understander, "next song")  # past the last one
    assert answer.text == "that was the last song in the queue, so the music stopped"
    assert mpd_state(player)["state"] == "stop"
    assert ask(music, understander, "next song").text == "nothing is playing"


def test_shuffle_and_repeat_set_mpds_modes(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    ask(music, understander, "play the beatles")
    assert ask(music, understander, "turn on shuffle").text == "shuffle is on"
    assert mpd_state(player)["random"]
    assert ask(music, understander, "stop shuffling").text == "shuffle is off"
    assert not mpd_state(player)["random"]
    assert ask(music, understander, "shuffle").text == "shuffle is on"
    assert mpd_state(player)["random"]
    assert ask(music, understander, "repeat this song").text == "repeating this song"
    assert (mpd_state(player)["repeat"], mpd_state(player)["single"]) == (True, True)
    assert (
        ask(music, understander, "put the playlist on repeat").text == "repeating the whole queue"
    )
    assert (mpd_state(player)["repeat"], mpd_state(player)["single"]) == (True, False)
    assert ask(music, understander, "turn off repeat").text == "repeat is off"
    assert (mpd_state(player)["repeat"], mpd_state(player)["single"]) == (False, False)


# --------------------------------------------------------------------------- volume

VOLUME_ROWS = [
    # (request, volume before, volume after, reply)
    ("set the volume to 30", 50, 30, "the volume is 30%"),
    ("set the volume to 30 percent", 50, 30, "the volume is 30%"),
    ("volume 75", 50, 75, "the volume is 75%"),
    ("full volume", 50, 100, "the volume is 100%"),
    ("turn the volume up", 50, 60, "turned the volume up to 60%"),
    ("louder", 50, 60, "turned the volume up to 60%"),
    ("turn the volume up by 25", 50, 75, "turned the volume up to 75%"),
    ("turn the volume up to 80", 50, 80, "the volume is 80%"),
    ("turn it up", 95, 100, "turned the volume up to 100%"),
    ("turn the volume down", 50, 40, "turned the volume down to 40%"),
    ("quieter", 50, 40, "turned the volume down to 40%"),
    ("lower the volume by 30", 50, 20, "turned the volume down to 20%"),
    ("decrease the volume by 20 percent", 50, 30, "turned the volume down to 30%"),
    ("turn it down", 5, 0, "turned the volume down to 0%"),
]


@pytest.mark.parametrize(("text", "before", "after", "reply"), VOLUME_ROWS)
def test_volume_lands_where_asked_on_mpds_mixer(
    music: MusicSource,
    understander: Understander,
    player: Mpd,
    text: str,
    before: int,
    after: int,
    reply: str,
) -> None:
    client = player.client()
    client.setvol(before)
    client.disconnect()
    answer = ask(music, understander, text)
    assert (answer.status, answer.text) == (Status.DONE, reply)
    assert mpd_state(player)["volume"] == after
    assert answer.data["volume"] == after


def test_volume_at_the_edges_is_answered_not_sent(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    ask(music, understander, "full volume")
    answer = ask(music, understander, "louder")
    assert (answer.status, answer.text) == (Status.OK, "the volume is already at its highest, 100%")
    assert mpd_state(player)["volume"] == 100


def test_mute_remembers_the_volume_for_unmute_across_processes(
    config: Config, understander: Understander, player: Mpd, tmp_path: Path
) -> None:
    first = source_for(config, tmp_path, player)
    ask(first, understander, "set the volume to 35")
    answer = ask(first, understander, "mute the music")
    assert (answer.status, answer.text) == (Status.DONE, "muted the music")
    assert mpd_state(player)["volume"] == 0
    assert ask(first, understander, "mute").text == "the music is already muted"
    second = source_for(config, tmp_path, player)  # another process: the same state directory
    answer = ask(second, understander, "unmute")
    assert (answer.status, answer.text) == (Status.DONE, "unmuted the music: the volume is 35%")
    assert mpd_state(player)["volume"] == 35
    assert ask(second, understander, "unmute").text == "the music is not muted: the volume is 35%"


def test_unmute_without_a_remembered_volume_uses_the_configured_one(
    config: Config, understander: Understander, player: Mpd, tmp_path: Path
) -> None:
    client = player.client()
    client.setvol(0)
    client.disconnect()
    music = source_for(config, tmp_path, player, unmute_volume=45)
    assert ask(music, understander, "unmute").text == "unmuted the music: the volume is 45%"
    assert mpd_state(player)["volume"] == 45


# --------------------------------------------------------------------------- questions


def test_what_is_playing_and_who_sings_it(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    assert ask(music, understander, "what's playing").text == "nothing is playing"
    ask(music, understander, "play the song here comes the sun")
    answer = ask(music, understander, "what's playing")
    assert (answer.status, answer.text) == (Status.OK, "playing Here Comes the Sun by The Beatles")
    assert answer.data["song"]["album"] == "Abbey Road"
    assert ask(music, understander, "who sings this").text == "this is The Beatles"
    assert ask(music, understander, "what album is this").text == "this is from Abbey Road"
    assert ask(music, understander, "what song is this").text == (
        "this is Here Comes the Sun by The Beatles"
    )
    ask(music, understander, "pause")
    assert ask(music, understander, "what's playing").text == (
        "paused on Here Comes the Sun by The Beatles"
    )
    ask(music, understander, "play the song rain on the roof")
    assert ask(music, understander, "who sings this").text == (
        "this song does not say who sings it: Rain on the Roof"
    )


def test_a_condition_on_the_music_is_checked_on_the_player(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    (part,) = understander.understand("is the music playing").parts()
    stopped = asyncio.run(music.evaluate(part, Request()))
    assert stopped.truth == "false"
    ask(music, understander, "play some rock")
    playing = asyncio.run(music.evaluate(part, Request()))
    assert (playing.truth, playing.text) == ("true", "music is playing")


# --------------------------------------------------------------------------- names


def test_library_names_with_and_are_one_request_to_understanding(
    config: Config, player: Mpd, tmp_path: Path
) -> None:
    text = "play black and gold"
    plain = Understander(config)
    assert len(plain.understand(text).parts()) == 2  # "gold" is a colour of its own
    music = source_for(config, tmp_path, player)
    asyncio.run(music.start())
    assert music.is_name("black and gold") and music.is_name("simon and garfunkel")
    informed = Understander(config, name_sources=[music])
    parts = informed.understand(f"{text} and what time is it").parts()
    assert [p.text for p in parts] == ["play black and gold", "what time is it"]
    answer = asyncio.run(music.answer(parts[0], Request()))
    assert answer.data["selection"] == {
        "kind": "title",
        "name": "Black and Gold",
        "artist": None,
        "score": 100.0,
    }
    assert mpd_state(player)["title"] == "Black and Gold"


def test_a_room_inside_a_name_is_not_where_to_play(
    music: MusicSource, understander: Understander, player: Mpd
) -> None:
    (part,) = understander.understand("play hall and oates").parts()
    assert part.slots.get("room") == "hallway"  # "hall" is the hallway's alias
    answer = asyncio.run(music.answer(part, Request()))
    assert answer.status is Status.DONE, answer.text
    assert answer.data["selection"]["name"] == "Hall & Oates"
    assert mpd_state(player)["artist"] == "Hall & Oates"
