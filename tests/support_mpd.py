"""A real `mpd` for the music tests and the benchmark, with a library made here.

The library is generated: small valid MP3 files (MPEG-2 layer III frames of
silence, 8 kbit/s at 16 kHz mono: a 4-byte header, zero side information,
zero main data; any decoder plays them as silence) tagged with ID3v2.3 by
mutagen (title, artist, album, genre, track), plus two saved playlists. MPD
runs with its own config on a free loopback port, a ``null`` audio output
with a software mixer (so playing, pausing and the volume all work without a
sound card), and no zeroconf. Without the mpd binary the tests skip on a
developer machine and fail under CI (`.ci/run` installs it).
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mpd
import pytest
from mutagen.id3 import ID3, TALB, TCON, TIT2, TPE1, TRCK

from mnemolis.config import Config
from mnemolis.core.origin import Origin
from mnemolis.demo.mosquitto import free_port
from mnemolis.sources.base import PartAnswer, Request
from mnemolis.sources.music.source import MusicSource
from mnemolis.understand import Understander, registry_from_config
from tests.tools import require

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


#: The test library: five genres, seven artists, eight albums, one song without artist or album.
TRACKS: tuple[Track, ...] = (
    Track(
        "jazz/miles_davis/kind_of_blue/01.mp3", "So What", "Miles Davis", "Kind of Blue", "Jazz", 1
    ),
    Track(
        "jazz/miles_davis/kind_of_blue/02.mp3",
        "Freddie Freeloader",
        "Miles Davis",
        "Kind of Blue",
        "Jazz",
        2,
    ),
    Track(
        "jazz/miles_davis/kind_of_blue/03.mp3",
        "Blue in Green",
        "Miles Davis",
        "Kind of Blue",
        "Jazz",
        3,
    ),
    Track(
        "jazz/john_coltrane/blue_train/01.mp3",
        "Blue Train",
        "John Coltrane",
        "Blue Train",
        "Jazz",
        1,
    ),
    Track(
        "jazz/john_coltrane/blue_train/02.mp3",
        "Moment's Notice",
        "John Coltrane",
        "Blue Train",
        "Jazz",
        2,
    ),
    Track(
        "rock/beatles/abbey_road/01.mp3", "Come Together", "The Beatles", "Abbey Road", "Rock", 1
    ),
    Track("rock/beatles/abbey_road/02.mp3", "Something", "The Beatles", "Abbey Road", "Rock", 2),
    Track(
        "rock/beatles/abbey_road/03.mp3",
        "Here Comes the Sun",
        "The Beatles",
        "Abbey Road",
        "Rock",
        3,
    ),
    Track("rock/beatles/let_it_be/01.mp3", "Let It Be", "The Beatles", "Let It Be", "Rock", 1),
    Track(
        "folk/simon_garfunkel/bridge/01.mp3",
        "The Boxer",
        "Simon & Garfunkel",
        "Bridge over Troubled Water",
        "Folk",
        1,
    ),
    Track(
        "folk/simon_garfunkel/bridge/02.mp3",
        "Cecilia",
        "Simon & Garfunkel",
        "Bridge over Troubled Water",
        "Folk",
        2,
    ),
    Track("pop/sam_sparro/01.mp3", "Black and Gold", "Sam Sparro", "Sam Sparro", "Pop", 1),
    Track(
        "rock/hall_oates/01.mp3", "Rich Girl", "Hall & Oates", "Bigger Than Both of Us", "Rock", 1
    ),
    Track("field/rain.mp3", "Rain on the Roof", "", "", "Ambient", 1),
)
#: Saved playlists (MPD's playlist_directory, one path a line).
PLAYLISTS: dict[str, tuple[str, ...]] = {
    "Workout": (TRACKS[5].path, TRACKS[6].path, TRACKS[9].path),
    "Dinner Party": (TRACKS[0].path, TRACKS[3].path, TRACKS[10].path),
}


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
    tracks: Iterable[Track] = TRACKS,
    saved: dict[str, tuple[str, ...]] | None = None,
) -> None:
    for track in tracks:
        write_mp3(music / track.path, track)
    playlists.mkdir(parents=True, exist_ok=True)
    for name, paths in (PLAYLISTS if saved is None else saved).items():
        (playlists / f"{name}.m3u").write_text("\n".join(paths) + "\n", encoding="utf-8")


def find_mpd() -> str | None:
    return shutil.which("mpd") or ("/usr/bin/mpd" if Path("/usr/bin/mpd").is_file() else None)


def require_mpd() -> str:
    return require("mpd")


class Mpd:
    """One mpd process on a free loopback port, with its own config and database."""

    def __init__(self, binary: str, music: Path, playlists: Path, password: str | None = None):
        self.binary = binary
        self.music = music
        self.playlists = playlists
        self.password = password
        self.host = "127.0.0.1"
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="mnemolis-mpd-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def _config(self) -> str:
        password = f'password "{self.password}@read,add,control,admin"\n' if self.password else ""
        return (
            f'music_directory "{self.music}"\n'
            f'playlist_directory "{self.playlists}"\n'
            f'db_file "{self.workdir / "database"}"\n'
            f'log_file "{self.workdir / "log"}"\n'
            f'bind_to_address "{self.host}"\n'
            f'port "{self.port}"\n'
            'zeroconf_enabled "no"\n'
            'auto_update "no"\n'
            f"{password}"
            'decoder {\n  plugin "wildmidi"\n  enabled "no"\n}\n'
            'audio_output {\n  type "null"\n  name "test"\n  mixer_type "software"\n}\n'
        )

    def start(self, timeout_s: float = 20.0) -> Mpd:
        config = self.workdir / "mpd.conf"
        config.write_text(self._config(), encoding="utf-8")
        self.process = subprocess.Popen(
            [self.binary, "--no-daemon", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mpd exited at start:\n{self.log()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.02)
        else:
            self.stop()
            raise TimeoutError(f"mpd did not listen on {self.port} within {timeout_s} s")
        self.update(timeout_s)
        return self

    def client(self) -> mpd.MPDClient:
        client = mpd.MPDClient()
        client.timeout = 10
        client.connect(self.host, self.port)
        if self.password:
            client.password(self.password)
        return client

    def update(self, timeout_s: float = 60.0) -> None:
        """Index the music directory and wait until MPD has finished."""
        client = self.client()
        try:
            client.update()
            deadline = time.monotonic() + timeout_s
            while "updating_db" in client.status():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"mpd did not finish indexing within {timeout_s} s")
                time.sleep(0.02)
        finally:
            client.disconnect()

    def reset(self) -> None:
        """A clean player for the next test: stopped, empty queue, volume 50, no modes."""
        client = self.client()
        try:
            client.stop()
            client.clear()
            client.random(0)
            client.repeat(0)
            client.single(0)
            client.setvol(50)
        finally:
            client.disconnect()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def log(self) -> str:
        try:
            return (self.workdir / "log").read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


@pytest.fixture(name="music_library", scope="session")
def fixture_music_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The generated library: (music directory, playlist directory)."""
    root = tmp_path_factory.mktemp("music-library")
    write_library(root / "music", root / "playlists")
    return root / "music", root / "playlists"


@pytest.fixture(name="mpd_server", scope="session")
def fixture_mpd_server(music_library: tuple[Path, Path]) -> Iterator[Mpd]:
    """One real mpd for the session; `player` resets it for each test."""
    server = Mpd(require_mpd(), *music_library)
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(name="player")
def fixture_player(mpd_server: Mpd) -> Mpd:
    mpd_server.reset()
    return mpd_server


@dataclass
class Nowhere:
    """A loopback port where no player listens."""

    host: str = "127.0.0.1"
    port: int = 0

    def __post_init__(self) -> None:
        self.port = self.port or free_port()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


# --------------------------------------------------------------------------- helpers


def with_players(config: Config, *players: dict[str, Any], **more: Any) -> Config:
    music = {"players": list(players), "timeout_s": 2.0, **more}
    return dataclasses.replace(config, sources={**config.sources, "music": music})


def source_for(config: Config, state: Path, *servers: Mpd, **more: Any) -> MusicSource:
    """A music source with one player per server: the first in the living room, the
    second in the kitchen."""
    areas = (["living room"], ["kitchen"])
    players = [
        {"name": areas[i][0], "host": s.host, "port": s.port, "areas": areas[i]}
        for i, s in enumerate(servers)
    ]
    return MusicSource(
        with_players(config, *players, **more), registry_from_config(config), state, {}
    )


def ask(
    source: MusicSource, understander: Understander, text: str, room: str | None = None
) -> PartAnswer:
    (part,) = understander.understand(text).parts()
    assert part.source == "music", part.to_dict()
    return asyncio.run(source.answer(part, Request(origin=Origin(room=room))))


def mpd_state(server: Mpd) -> dict[str, Any]:
    """What MPD itself says: status, current song and queue."""
    client = server.client()
    try:
        status = client.status()
        current = client.currentsong()
        queue = client.playlistinfo()
    finally:
        client.disconnect()
    return {
        "state": status["state"],
        "volume": int(status.get("volume", -1)),
        "random": status["random"] == "1",
        "repeat": status["repeat"] == "1",
        "single": status["single"] == "1",
        "title": current.get("title"),
        "artist": current.get("artist"),
        "queue": [song["file"] for song in queue],
        "pos": int(status["song"]) if "song" in status else None,
    }
