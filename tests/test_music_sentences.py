"""Music requests in, plans out: the intent, the room, and what the music source reads.

``read`` is what `mnemolis.sources.music.request` makes of the part: the kind
of name (artist, album, genre, playlist, title, or None for "any kind") and
the name itself, an artist for "X by Y", shuffle; a volume level or step; a
switch (on / off) for shuffle and repeat. The names are looked up in a real
library in test_music_player.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.sources.music.request import read_play, read_switch, read_volume
from mnemolis.sources.music.settings import load_music_settings
from mnemolis.understand import Understander
from tests.support_sentences import R, row_problems, unasked

LIGHTS = ["bedroom light", "hallway light", "kitchen light", "living room lamp", "porch light"]


def play(kind: str | None, query: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "query": query, **more}


ROWS: list[tuple[str, list[R]]] = [
    # ---- play from the library: genre, artist, album, playlist, title
    ("play some jazz", [R("music.play", play(None, "jazz"))]),
    ("play jazz", [R("music.play", play(None, "jazz"))]),
    ("put on some jazz", [R("music.play", play(None, "jazz"))]),
    ("can you play some jazz", [R("music.play", play(None, "jazz"))]),
    ("i want to hear some rock", [R("music.play", play(None, "rock"))]),
    ("play some rock music", [R("music.play", play(None, "rock"))]),
    ("let me hear some folk", [R("music.play", play(None, "folk"))]),
    ("play rock and roll", [R("music.play", play(None, "rock and roll"))]),
    ("play the genre blues", [R("music.play", play("genre", "blues"))]),
    ("play miles davis", [R("music.play", play(None, "miles davis"))]),
    ("play something by miles davis", [R("music.play", play("artist", "miles davis"))]),
    ("play songs by john coltrane", [R("music.play", play("artist", "john coltrane"))]),
    ("play anything by the beatles", [R("music.play", play("artist", "beatles"))]),
    ("play something by the beatles", [R("music.play", play("artist", "beatles"))]),
    ("play the beatles", [R("music.play", play(None, "beatles"))]),
    ("play music by simon and garfunkel", [R("music.play", play("artist", "simon and garfunkel"))]),
    ("play simon and garfunkel", [R("music.play", play(None, "simon and garfunkel"))]),
    ("play the band the beatles", [R("music.play", play("artist", "beatles"))]),
    ("play the album kind of blue", [R("music.play", play("album", "kind of blue"))]),
    ("play the abbey road album", [R("music.play", play("album", "abbey road"))]),
    ("play album let it be", [R("music.play", play("album", "let it be"))]),
    ("listen to kind of blue", [R("music.play", play(None, "kind of blue"))]),
    ("play kind of blue", [R("music.play", play(None, "kind of blue"))]),
    ("play my workout playlist", [R("music.play", play("playlist", "workout"))]),
    ("play the workout playlist", [R("music.play", play("playlist", "workout"))]),
    ("play the playlist dinner party", [R("music.play", play("playlist", "dinner party"))]),
    ("start my dinner party playlist", [R("music.play", play("playlist", "dinner party"))]),
    ("put on my dinner party playlist", [R("music.play", play("playlist", "dinner party"))]),
    ("play the song let it be", [R("music.play", play("title", "let it be"))]),
    ("play here comes the sun", [R("music.play", play(None, "here comes the sun"))]),
    ("play so what by miles davis", [R("music.play", play(None, "so what", artist="miles davis"))]),
    ("play let it be by the beatles", [R("music.play", play(None, "let it be", artist="beatles"))]),
    (
        "play the song cecilia by simon and garfunkel",
        [R("music.play", play("title", "cecilia", artist="simon and garfunkel"))],
    ),
    ("play miles davies", [R("music.play", play(None, "miles davies"))]),
    # ---- play whatever is queued, or the library
    ("play some music", [R("music.play", play(None, ""))]),
    ("play music", [R("music.play", play(None, ""))]),
    ("play", [R("music.play", play(None, ""))]),
    ("could you put on some music", [R("music.play", play(None, ""))]),
    ("start the music", [R("music.play", play(None, ""))]),
    # ---- shuffled
    ("shuffle my workout playlist", [R("music.play", play("playlist", "workout", shuffle=True))]),
    (
        "play my workout playlist on shuffle",
        [R("music.play", play("playlist", "workout", shuffle=True))],
    ),
    ("shuffle the beatles", [R("music.shuffle", play(None, "beatles", shuffle=True))]),
    ("play abbey road shuffled", [R("music.shuffle", play(None, "abbey road", shuffle=True))]),
    # ---- areas: named, or said with the player
    ("play music in the kitchen", [R("music.play", play(None, ""), room="kitchen")]),
    ("play jazz in the living room", [R("music.play", play(None, "jazz"), room="living room")]),
    ("play some jazz in the bedroom please", [R("music.play", play(None, "jazz"), room="bedroom")]),
    (
        "play the album abbey road in the lounge",
        [R("music.play", play("album", "abbey road"), room="living room")],
    ),
    (
        "play my workout playlist in the garage",
        [R("music.play", play("playlist", "workout"), room="garage")],
    ),
    (
        "play some folk on the kitchen speaker",
        [R("music.play", play(None, "folk"), room="kitchen")],
    ),
    ("play kind of blue in here", [R("music.play", play(None, "kind of blue"))]),
    # ---- pause, resume, stop
    ("pause", [R("music.pause")]),
    ("pause the music", [R("music.pause")]),
    ("pause the song", [R("music.pause")]),
    ("hold the music", [R("music.pause")]),
    ("pause the music in the kitchen", [R("music.pause", room="kitchen")]),
    ("hit pause", [R("music.pause")]),
    ("resume", [R("music.resume")]),
    ("resume the music", [R("music.resume")]),
    ("unpause", [R("music.resume")]),
    ("continue playing", [R("music.resume")]),
    ("keep playing", [R("music.resume")]),
    ("resume the music in the bedroom", [R("music.resume", room="bedroom")]),
    ("stop the music", [R("music.stop")]),
    ("stop playing", [R("music.stop")]),
    ("turn off the music", [R("music.stop")]),
    ("turn the music off", [R("music.stop")]),
    ("music off", [R("music.stop")]),
    ("stop the music in the kitchen", [R("music.stop", room="kitchen")]),
    # ---- next and previous
    ("next song", [R("music.next")]),
    ("next track", [R("music.next")]),
    ("skip", [R("music.next")]),
    ("skip this song", [R("music.next")]),
    ("skip this track", [R("music.next")]),
    ("play the next song", [R("music.next")]),
    ("next", [R("music.next")]),
    ("go to the next track", [R("music.next")]),
    ("skip this song in the kitchen", [R("music.next", room="kitchen")]),
    ("previous song", [R("music.previous")]),
    ("previous track", [R("music.previous")]),
    ("go back a song", [R("music.previous")]),
    ("play the previous song", [R("music.previous")]),
    ("play the last song again", [R("music.previous")]),
    ("back one song", [R("music.previous")]),
    # ---- shuffle and repeat
    ("shuffle", [R("music.shuffle", {"switch": None})]),
    ("shuffle the music", [R("music.shuffle", play(None, ""))]),
    ("turn on shuffle", [R("music.shuffle", {"switch": True}, state="on")]),
    ("turn shuffle on", [R("music.shuffle", {"switch": True}, state="on")]),
    ("turn off shuffle", [R("music.shuffle", {"switch": False}, state="off")]),
    ("shuffle off", [R("music.shuffle", {"switch": False}, state="off")]),
    ("stop shuffling", [R("music.shuffle", {"switch": False})]),
    ("don't shuffle", [R("music.shuffle", {"switch": False})]),
    ("repeat this song", [R("music.repeat", {"switch": None}, repeat_mode="single")]),
    ("repeat the song", [R("music.repeat", repeat_mode="single")]),
    ("put this song on repeat", [R("music.repeat", {"switch": True}, repeat_mode="single")]),
    ("put the playlist on repeat", [R("music.repeat", {"switch": True}, repeat_mode="all")]),
    ("turn on repeat", [R("music.repeat", {"switch": True}, state="on")]),
    ("turn off repeat", [R("music.repeat", {"switch": False}, state="off")]),
    ("repeat off", [R("music.repeat", {"switch": False}, state="off")]),
    ("stop repeating", [R("music.repeat", {"switch": False})]),
    # ---- volume: a level, a step, or the configured step
    ("set the volume to 30", [R("music.volume_set", {"level": 30, "step": None}, volume=30)]),
    ("set the volume to 30 percent", [R("music.volume_set", {"level": 30}, volume=30)]),
    ("volume 50", [R("music.volume_set", {"level": 50}, volume=50)]),
    ("volume 50 percent", [R("music.volume_set", {"level": 50}, volume=50)]),
    ("volume to 70 percent", [R("music.volume_set", {"level": 70}, volume=70)]),
    ("volume at 25", [R("music.volume_set", {"level": 25}, volume=25)]),
    (
        "turn the volume to forty in the kitchen",
        [R("music.volume_set", {"level": 40}, volume=40, room="kitchen")],
    ),
    ("set the volume to max", [R("music.volume_set", {"level": 100})]),
    ("full volume", [R("music.volume_set", {"level": 100})]),
    ("half volume", [R("music.volume_set", {"level": 50})]),
    ("turn the volume up", [R("music.volume_up", {"level": None, "step": None})]),
    ("turn up the volume", [R("music.volume_up", {"level": None, "step": None})]),
    ("volume up", [R("music.volume_up", {"step": None})]),
    ("louder", [R("music.volume_up", {"step": None})]),
    ("a bit louder", [R("music.volume_up", {"step": None})]),
    ("make it louder", [R("music.volume_up", {"step": None})]),
    ("turn it up", [R("music.volume_up", {"step": None})]),
    ("turn the music up", [R("music.volume_up", {"step": None})]),
    ("raise the volume", [R("music.volume_up", {"step": None})]),
    ("turn the volume up by 20", [R("music.volume_up", {"step": 20, "level": None}, volume=20)]),
    ("increase the volume by 15 percent", [R("music.volume_up", {"step": 15}, volume=15)]),
    ("turn the volume up to 80", [R("music.volume_up", {"level": 80, "step": None}, volume=80)]),
    ("turn up the sound", [R("music.volume_up", {"step": None})]),
    ("turn the volume down", [R("music.volume_down", {"step": None})]),
    ("turn down the volume", [R("music.volume_down", {"step": None})]),
    ("volume down", [R("music.volume_down", {"step": None})]),
    ("quieter", [R("music.volume_down", {"step": None})]),
    ("turn it down", [R("music.volume_down", {"step": None})]),
    ("turn the music down a bit", [R("music.volume_down", {"step": None})]),
    ("reduce the volume", [R("music.volume_down", {"step": None})]),
    ("it is too loud", [R("music.volume_down", {"step": None})]),
    ("lower the volume by 10", [R("music.volume_down", {"step": 10}, volume=10)]),
    ("decrease the volume by 20 percent", [R("music.volume_down", {"step": 20}, volume=20)]),
    ("decrease the volume to 20", [R("music.volume_down", {"level": 20}, volume=20)]),
    (
        "turn the volume down in the bedroom",
        [R("music.volume_down", {"step": None}, room="bedroom")],
    ),
    ("mute", [R("music.mute")]),
    ("mute the music", [R("music.mute")]),
    ("mute the music in the kitchen", [R("music.mute", room="kitchen")]),
    ("unmute", [R("music.unmute")]),
    ("unmute the music", [R("music.unmute")]),
    ("sound back on", [R("music.unmute")]),
    # ---- what is playing
    ("what's playing", [R("music.now_playing")]),
    ("what is playing in the kitchen", [R("music.now_playing", room="kitchen")]),
    ("what song is this", [R("music.now_playing", song_detail="title")]),
    ("what's this song", [R("music.now_playing", song_detail="title")]),
    ("name of this song", [R("music.now_playing", song_detail="title")]),
    ("what am i listening to", [R("music.now_playing")]),
    ("who sings this", [R("music.now_playing", song_detail="artist")]),
    ("who is singing", [R("music.now_playing", song_detail="artist")]),
    ("who sang this", [R("music.now_playing", song_detail="artist")]),
    ("who is this artist", [R("music.now_playing", song_detail="artist")]),
    ("what album is this", [R("music.now_playing", song_detail="album")]),
    ("what album is this song from", [R("music.now_playing", song_detail="album")]),
    ("is music playing", [R("music.state")]),
    ("is the music on", [R("music.state")]),
    ("is anything playing in the bedroom", [R("music.state", room="bedroom")]),
    # ---- what is not served stays declined
    ("play the radio", [R(None)]),
    ("play my podcast", [R(None)]),
    ("turn up the bass", [R(None)]),
    ("stop", [R(None)]),
    # ---- compound requests
    (
        "pause the music and turn on the lights",
        [R("music.pause"), R("device.turn_on", device=LIGHTS)],
    ),
    (
        "play some jazz and turn off the kitchen light",
        [R("music.play", play(None, "jazz")), R("device.turn_off", device="kitchen light")],
    ),
    (
        "turn off the lights and play my workout playlist",
        [R("device.turn_off", device=LIGHTS), R("music.play", play("playlist", "workout"))],
    ),
    ("next song and turn the volume up", [R("music.next"), R("music.volume_up")]),
    (
        "pause the music and what's the weather tomorrow",
        [R("music.pause"), R("weather.forecast", day="tomorrow")],
    ),
    ("what time is it and what's playing", [R("clock.time"), R("music.now_playing")]),
    (
        "play simon and garfunkel and turn off the lights",
        [R("music.play", play(None, "simon and garfunkel")), R("device.turn_off", device=LIGHTS)],
    ),
    (
        "play rock and roll and turn on the porch light",
        [R("music.play", play(None, "rock and roll")), R("device.turn_on", device="porch light")],
    ),
    ("turn the volume up and skip this song", [R("music.volume_up"), R("music.next")]),
    (
        "stop the music and lock the front door",
        [R("music.stop"), R("device.lock", device="front door")],
    ),
    (
        "mute the music and turn off the living room lamp",
        [R("music.mute"), R("device.turn_off", device="living room lamp")],
    ),
    (
        "play the album abbey road and set the volume to 40",
        [
            R("music.play", play("album", "abbey road")),
            R("music.volume_set", {"level": 40}, volume=40),
        ],
    ),
    (
        "pause the music in the kitchen and play jazz in the bedroom",
        [R("music.pause", room="kitchen"), R("music.play", play(None, "jazz"), room="bedroom")],
    ),
]


@pytest.fixture(scope="module")
def reader(config: Config, understander: Understander) -> Any:
    words = load_music_settings(config, {}).words
    areas = [f for room, aliases in understander.registry.rooms().items() for f in (room, *aliases)]

    def read(part: Part) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if part.intent in ("music.play", "music.shuffle"):
            out.update(read_play(part.text, words, areas).to_dict())
        if part.intent and part.intent.startswith("music.volume"):
            change = read_volume(part, words)
            out.update(level=change.level, step=change.step)
        if part.intent in ("music.shuffle", "music.repeat"):
            out["switch"] = read_switch(part, words)
        return out

    return read


def test_the_table_covers_every_music_intent(config: Config) -> None:
    assert unasked(config, "music", ROWS) == set()
    assert len(ROWS) >= 150


@pytest.mark.parametrize(("query", "expected"), ROWS, ids=[r[0][:60] for r in ROWS])
def test_music_sentence(
    understander: Understander, reader: Any, query: str, expected: list[R]
) -> None:
    assert row_problems(understander, query, expected, reader) == []
