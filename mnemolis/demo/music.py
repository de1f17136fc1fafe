"""A small music library made on the spot: silent MP3 files with real tags.

The demo plays music on a real `mpd` (`demo/mpd.py`) and the music tests do
the same; both need a library whose titles, artists, albums, genres and
playlists MPD indexes like any other. Each file is MPEG-2 layer III frames
of silence (8 kbit/s at 16 kHz mono: a 4-byte header, zero side information,
zero main data; any decoder plays them as silence) tagged with ID3v2.3 by
mutagen. The demo's library is `music.yaml`; tests write their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml
from mutagen.id3 import ID3, TALB, TCON, TIT2, TPE1, TRCK

#: MPEG-2 (LSF) layer III, 8 kbit/s, 16 kHz, mono, no CRC: each frame is 36 bytes and
#: 576 samples long (ISO/IEC 13818-3; header fields as in ISO/IEC 11172-3 2.4.1.3).
MP3_HEADER = bytes([0xFF, 0xF3, 0x18, 0xC0])
MP3_FRAME = MP3_HEADER + bytes(36 - len(MP3_HEADER))
FRAMES_PER_SECOND = 16000 / 576


@dataclass(frozen=True)
class Track:
    path: str  # relative to the music directory
    title: str
    artist: str
    album: str
    genre: str
    number: int
    seconds: float = 60.0


@dataclass(frozen=True)
class Library:
    tracks: tuple[Track, ...]
    playlists: Mapping[str, tuple[str, ...]]  # name -> track paths


def write_mp3(path: Path, track: Track) -> None:
    """A silent MP3 of ``track.seconds``, tagged."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(MP3_FRAME * max(1, round(track.seconds * FRAMES_PER_SECOND)))
    tags = ID3()
    tags.add(TIT2(encoding=3, text=track.title))
    if track.artist:  # a field recording says no artist and no album
        tags.add(TPE1(encoding=3, text=track.artist))
    if track.album:
        tags.add(TALB(encoding=3, text=track.album))
    tags.add(TCON(encoding=3, text=track.genre))
    tags.add(TRCK(encoding=3, text=str(track.number)))
    tags.save(path, v2_version=3)


def write_library(
    music: Path,
    playlists: Path,
    tracks: Iterable[Track],
    saved: Mapping[str, Iterable[str]],
) -> None:
    """Every track under ``music``, every playlist as ``<name>.m3u`` under ``playlists``."""
    for track in tracks:
        write_mp3(music / track.path, track)
    playlists.mkdir(parents=True, exist_ok=True)
    for name, paths in saved.items():
        (playlists / f"{name}.m3u").write_text("\n".join(paths) + "\n", encoding="utf-8")


def demo_library() -> Library:
    """The demo's library (`music.yaml`)."""
    text = resources.files("mnemolis.demo").joinpath("music.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    tracks = tuple(Track(**{**row, "number": int(row["number"])}) for row in raw["tracks"])
    playlists = {str(name): tuple(paths) for name, paths in raw["playlists"].items()}
    return Library(tracks, playlists)
