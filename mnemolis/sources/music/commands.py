"""What each music intent does on one player, checked on MPD's own status.

Each command is a function of a connected client, run in the player's worker
thread (see `mpd_link`). It reads the status before, acts, reads it again,
and says what the status shows: "done" only when MPD reports the new state
(playing, paused, the new volume ...), "not confirmed" when it does not.
Asking for what is already so ("pause" when paused) is answered, not sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import mpd

from mnemolis.core.plan import Part
from mnemolis.sources.base import Status
from mnemolis.sources.music.library import Library, Selection, enqueue
from mnemolis.sources.music.muted import MuteMemory
from mnemolis.sources.music.request import PlayQuery, read_play, read_switch, read_volume
from mnemolis.sources.music.settings import MusicSettings, PlayerSettings
from mnemolis.sources.music.status import PlayerStatus, Song, read_status


@dataclass
class Turn:
    """One request to one player: what a command needs besides the client."""

    part: Part
    player: PlayerSettings
    settings: MusicSettings
    library: Library
    muted: MuteMemory
    areas: list[str]  # spoken area names, dropped from what to play

    @property
    def where(self) -> str:
        if len(self.settings.players) < 2:
            return ""
        return self.settings.replies.say("where", player=self.player.name)

    def say(self, key: str, **values: Any) -> str:
        return self.settings.replies.say(key, where=self.where, player=self.player.name, **values)

    def song(self, song: Song | None) -> str:
        if song is None:
            return self.settings.replies.say("what.queue")
        if song.title and song.artist:
            return self.settings.replies.say("song", title=song.title, artist=song.artist)
        if song.title or song.name:
            return self.settings.replies.say("song_title", title=song.title or song.name)
        return self.settings.replies.say("song_file", file=PurePosixPath(song.file).stem)


@dataclass
class Reply:
    """What a command found: its sentence, status and the player's state after it."""

    text: str
    status: Status
    after: PlayerStatus | None = None
    data: dict[str, Any] = field(default_factory=dict)


Command = Callable[[mpd.MPDClient, Turn], Reply]


def _checked(t: Turn, ok: bool, text: str, after: PlayerStatus, request: str) -> Reply:
    if ok:
        return Reply(text, Status.DONE, after)
    return Reply(t.say("not_confirmed", request=request), Status.NOT_CONFIRMED, after)


# ---------------------------------------------------------------------- playing


def describe(t: Turn, selection: Selection, count: int) -> str:
    replies = t.settings.replies
    if selection.kind in ("queue", "library"):
        return replies.say(f"what.{selection.kind}")
    key = f"what.{selection.kind}_by" if selection.artist else f"what.{selection.kind}"
    what = replies.say(key, name=selection.name, artist=selection.artist)
    if selection.kind == "genre" and count > 1:
        what += f" ({replies.say('songs', count=count)})"
    return what


def play_query(c: mpd.MPDClient, t: Turn, query: PlayQuery) -> Reply:
    before = read_status(c)
    t.library.refresh(c)
    selection: Selection | None = None
    if query.query or query.spoken:
        # "play some music": only fillers were said; they may still be a name ("all of me")
        selection = t.library.resolve(query, c)
        if selection is None and query.query:
            asked = {"query": query.to_dict(), "reason": "not_found"}
            if not any(t.library.names.values()):
                return Reply(t.say("empty_library"), Status.ERROR, before, asked)
            text = t.say("not_found", query=query.query or query.spoken)
            return Reply(text, Status.ERROR, before, asked)
    if selection is None:
        selection = Selection("queue" if before.queue_length else "library", "")
        if selection.kind == "library" and not any(t.library.names.values()):
            return Reply(t.say("empty_library"), Status.ERROR, before, {"reason": "empty"})
    enqueue(c, selection)
    if query.shuffle:
        c.random(1)
    if selection.kind == "queue" and before.state == "pause":
        c.pause(0)
    else:
        c.play()
    after = read_status(c)
    what = describe(t, selection, after.queue_length)
    data = {"query": query.to_dict(), "selection": selection.to_dict()}
    if not after.playing:
        state = {"pause": "paused", "stop": "stopped"}.get(after.state, after.state)
        text = t.say("not_started", what=what, state=state)
        return Reply(text, Status.NOT_CONFIRMED, after, data)
    key = "playing_shuffled" if query.shuffle else "playing"
    return Reply(t.say(key, what=what), Status.DONE, after, data)


def play(c: mpd.MPDClient, t: Turn) -> Reply:
    return play_query(c, t, read_play(t.part.text, t.settings.words, t.areas))


def _unneeded(t: Turn, before: PlayerStatus, when: dict[str, str]) -> Reply | None:
    """The reply when the player's state makes the request needless ("pause" when paused)
    or impossible ("next" when stopped); ``when`` maps a state to its reply's key."""
    key = when.get(before.state)
    return Reply(t.say(key), Status.OK, before) if key else None


def pause(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if unneeded := _unneeded(t, before, {"pause": "already_paused", "stop": "nothing_playing"}):
        return unneeded
    c.pause(1)
    after = read_status(c)
    return _checked(t, after.state == "pause", t.say("paused"), after, "pause")


def resume(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if unneeded := _unneeded(t, before, {"play": "already_playing"}):
        return unneeded
    if before.state == "pause":
        c.pause(0)
    elif before.queue_length:
        c.play()
    else:
        return Reply(t.say("nothing_to_resume"), Status.OK, before)
    after = read_status(c)
    return _checked(t, after.playing, t.say("resumed", song=t.song(after.song)), after, "resume")


def stop(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if unneeded := _unneeded(t, before, {"stop": "already_stopped"}):
        return unneeded
    c.stop()
    after = read_status(c)
    return _checked(t, after.state == "stop", t.say("stopped"), after, "stop")


def next_song(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if unneeded := _unneeded(t, before, {"stop": "nothing_playing"}):
        return unneeded
    c.next()
    after = read_status(c)
    if after.state == "stop":
        return Reply(t.say("end_of_queue"), Status.DONE, after)
    moved = after.position != before.position or after.song != before.song
    text = t.say("next", song=t.song(after.song))
    return _checked(t, moved, text, after, "skip to the next song")


def previous_song(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if unneeded := _unneeded(t, before, {"stop": "nothing_playing"}):
        return unneeded
    c.previous()
    after = read_status(c)
    text = t.say("previous", song=t.song(after.song))
    return _checked(t, after.state != "stop", text, after, "go back a song")


# ---------------------------------------------------------------------- modes


def shuffle(c: mpd.MPDClient, t: Turn) -> Reply:
    words = t.settings.words
    query = read_play(t.part.text, words, t.areas)
    switch = read_switch(t.part, words)
    named = [w for w in query.query.split() if (w,) not in (*words.on, *words.off)]
    if switch is None and named:  # "shuffle my workout playlist": play it shuffled
        shuffled = PlayQuery(query.kind, query.query, query.artist, True, query.spoken)
        return play_query(c, t, shuffled)
    on = switch is not False
    c.random(1 if on else 0)
    after = read_status(c)
    text = t.say("shuffle_on" if on else "shuffle_off")
    return _checked(t, after.random == on, text, after, f"turn shuffle {'on' if on else 'off'}")


def repeat(c: mpd.MPDClient, t: Turn) -> Reply:
    switch = read_switch(t.part, t.settings.words)
    mode = "off" if switch is False else str(t.part.slots.get("repeat_mode") or "all")
    c.repeat(0 if mode == "off" else 1)
    c.single(1 if mode == "single" else 0)
    after = read_status(c)
    ok = after.repeat == (mode != "off") and after.single == (mode == "single")
    return _checked(t, ok, t.say(f"repeat_{mode}"), after, "change repeat")


# ---------------------------------------------------------------------- volume


def _set_volume(c: mpd.MPDClient, t: Turn, level: int, key: str, before: PlayerStatus) -> Reply:
    c.setvol(level)
    after = read_status(c)
    if after.volume and level:
        t.muted.forget(t.player.name)
    ok = after.volume is not None and abs(after.volume - level) <= 1
    reply = _checked(t, ok, t.say(key, volume=after.volume), after, f"set the volume to {level}%")
    reply.data["volume_before"] = before.volume
    return reply


def _no_volume(t: Turn, before: PlayerStatus) -> Reply:
    return Reply(t.say("no_volume"), Status.OUT_OF_SCOPE, before)


def volume_set(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if before.volume is None:
        return _no_volume(t, before)
    change = read_volume(t.part, t.settings.words)
    if change.level is None:
        return Reply(t.say("no_level"), Status.ERROR, before)
    return _set_volume(c, t, change.level, "volume_set", before)


def _volume_by(c: mpd.MPDClient, t: Turn, sign: int) -> Reply:
    before = read_status(c)
    if before.volume is None:
        return _no_volume(t, before)
    change = read_volume(t.part, t.settings.words)
    if change.level is not None:
        return _set_volume(c, t, change.level, "volume_set", before)
    step = change.step or t.settings.volume_step
    level = max(0, min(100, before.volume + sign * step))
    if level == before.volume:
        key = "volume_max" if sign > 0 else "volume_min"
        return Reply(t.say(key, volume=before.volume), Status.OK, before)
    return _set_volume(c, t, level, "volume_up" if sign > 0 else "volume_down", before)


def volume_up(c: mpd.MPDClient, t: Turn) -> Reply:
    return _volume_by(c, t, +1)


def volume_down(c: mpd.MPDClient, t: Turn) -> Reply:
    return _volume_by(c, t, -1)


def mute(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if before.volume is None:
        return _no_volume(t, before)
    if before.volume == 0:
        return Reply(t.say("already_muted"), Status.OK, before)
    t.muted.remember(t.player.name, before.volume)
    c.setvol(0)
    after = read_status(c)
    reply = _checked(t, after.volume == 0, t.say("muted"), after, "mute the music")
    reply.data["volume_before"] = before.volume
    return reply


def unmute(c: mpd.MPDClient, t: Turn) -> Reply:
    before = read_status(c)
    if before.volume is None:
        return _no_volume(t, before)
    remembered = t.muted.recall(t.player.name)
    if before.volume > 0:
        return Reply(t.say("not_muted", volume=before.volume), Status.OK, before)
    return _set_volume(c, t, remembered or t.settings.unmute_volume, "unmuted", before)


# ---------------------------------------------------------------------- questions


def now_playing(c: mpd.MPDClient, t: Turn) -> Reply:
    status = read_status(c)
    song = status.song
    if status.state == "stop" or song is None:
        return Reply(t.say("nothing_playing"), Status.OK, status)
    detail = t.part.slots.get("song_detail")
    if detail == "artist":
        text = (
            t.say("artist_is", artist=song.artist)
            if song.artist
            else t.say("artist_unknown", song=t.song(song))
        )
    elif detail == "album":
        text = (
            t.say("album_is", album=song.album)
            if song.album
            else t.say("album_unknown", song=t.song(song))
        )
    elif detail == "title":
        text = t.say("title_is", song=t.song(song))
    else:
        key = "now_playing" if status.playing else "now_paused"
        text = t.say(key, song=t.song(song))
    return Reply(text, Status.OK, status)


def state(c: mpd.MPDClient, t: Turn) -> Reply:
    status = read_status(c)
    key = {"play": "is_playing", "pause": "is_paused"}.get(status.state, "is_stopped")
    return Reply(t.say(key), Status.OK, status)


COMMANDS: dict[str, Command] = {
    "music.play": play,
    "music.pause": pause,
    "music.resume": resume,
    "music.stop": stop,
    "music.next": next_song,
    "music.previous": previous_song,
    "music.shuffle": shuffle,
    "music.repeat": repeat,
    "music.volume_set": volume_set,
    "music.volume_up": volume_up,
    "music.volume_down": volume_down,
    "music.mute": mute,
    "music.unmute": unmute,
    "music.now_playing": now_playing,
    "music.state": state,
}
