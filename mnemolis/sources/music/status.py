"""A player's state as MPD reports it (``status`` and ``currentsong``), typed.

Every command the music source sends is checked against this snapshot taken
right after it, the way the MQTT source waits for a device's state echo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpd


def _text(value: Any) -> str | None:
    """MPD repeats a tag as a list when a file has it twice: the first one counts."""
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    text = str(value).strip()
    return text or None


@dataclass(frozen=True)
class Song:
    """The tags of one song (``currentsong`` or a ``find`` result)."""

    file: str
    title: str | None = None
    artist: str | None = None
    album: str | None = None
    genre: str | None = None
    name: str | None = None  # a stream's own name

    @classmethod
    def from_mpd(cls, data: dict[str, Any]) -> Song | None:
        file = _text(data.get("file"))
        if file is None:
            return None
        return cls(
            file=file,
            title=_text(data.get("title")),
            artist=_text(data.get("artist")) or _text(data.get("albumartist")),
            album=_text(data.get("album")),
            genre=_text(data.get("genre")),
            name=_text(data.get("name")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "title": self.title,
            "artist": self.artist,
            "album": self.album,
            "genre": self.genre,
        }


@dataclass(frozen=True)
class PlayerStatus:
    """What the player is doing now."""

    state: str  # play | pause | stop
    volume: int | None  # None: the player has no mixer
    random: bool
    repeat: bool
    single: bool
    queue_length: int
    song: Song | None
    position: int | None = None  # the current song's place in the queue

    @property
    def playing(self) -> bool:
        return self.state == "play"

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "volume": self.volume,
            "random": self.random,
            "repeat": self.repeat,
            "single": self.single,
            "queue_length": self.queue_length,
            "song": self.song.to_dict() if self.song else None,
        }


def _int(value: Any) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def parse_status(status: dict[str, Any], current: dict[str, Any]) -> PlayerStatus:
    volume = _int(status.get("volume"))
    state = str(status.get("state") or "stop")
    return PlayerStatus(
        state=state if state in ("play", "pause", "stop") else "stop",
        volume=volume if volume is not None and volume >= 0 else None,
        random=status.get("random") == "1",
        repeat=status.get("repeat") == "1",
        single=status.get("single") == "1",
        queue_length=_int(status.get("playlistlength")) or 0,
        song=Song.from_mpd(current),
        position=_int(status.get("song")),
    )


def read_status(client: mpd.MPDClient) -> PlayerStatus:
    """``status`` and ``currentsong`` in one command list: one round trip."""
    client.command_list_ok_begin()
    client.status()
    client.currentsong()
    status, current = client.command_list_end()
    return parse_status(status, current)
