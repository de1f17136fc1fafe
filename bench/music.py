"""Benchmark the music source against a real mpd with a library of 10,000 tracks,
and the lists source's SQLite store.

It generates the library (silent tagged MP3s, as the tests do: 500 artists,
1,000 albums, 20 genres, 10 playlists), starts its own mpd on a free port,
indexes it, then measures:

- the command round trip to MPD: ``status`` + ``currentsong`` in one command
  list on the source's connection, and a whole ``answer`` (pause, then resume)
  through the music source, thread hop and status check included;
- search in the 10,000 tracks: MPD's own ``search any``, the source's name
  lookup (exact and misheard names over every artist, album, genre, title and
  playlist), and a whole "play X" (lookup, ``findadd``, ``play``, status);
- reading the library's names (once per database update) and start-up;
- the lists store: adding an item and reading a 500-item list.

    .venv/bin/python bench/music.py [--tracks 10000] [--commands 300]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.mqtt import Row, percentiles  # the same table as the other benchmarks
from mnemolis.config import load_config
from mnemolis.sources.base import Request, Status
from mnemolis.sources.lists.store import ListStore
from mnemolis.sources.music.library import Library
from mnemolis.sources.music.request import read_play
from mnemolis.sources.music.status import read_status
from mnemolis.understand import Understander
from tests.support_mpd import Mpd, Track, find_mpd, source_for, write_library

GENRES = (
    "Jazz",
    "Rock",
    "Folk",
    "Blues",
    "Soul",
    "Funk",
    "Reggae",
    "Pop",
    "Metal",
    "Punk",
    "Disco",
    "House",
    "Techno",
    "Ambient",
    "Country",
    "Gospel",
    "Latin",
    "Opera",
    "Baroque",
    "Swing",
)
SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ra",
    "ven",
    "tor",
    "sil",
    "dan",
    "bel",
    "zo",
    "rin",
    "mar",
    "quo",
    "pel",
    "ash",
    "nor",
    "tev",
    "lin",
    "gar",
    "ope",
)


def word(n: int, parts: int = 2) -> str:
    out = []
    for _ in range(parts):
        out.append(SYLLABLES[n % len(SYLLABLES)])
        n //= len(SYLLABLES)
    return "".join(out).capitalize()


def big_library(count: int) -> tuple[list[Track], dict[str, tuple[str, ...]]]:
    """``count`` tracks: 20 a artist, 10 an album, distinct invented names."""
    tracks = []
    for i in range(count):
        artist_n, album_n = i // 20, i // 10
        artist = f"{word(artist_n)} {word(artist_n + 7, 3)}"
        tracks.append(
            Track(
                path=f"a{artist_n:04d}/b{album_n:05d}/{i % 10:02d}.mp3",
                title=f"{word(i, 3)} {word(i + 3)}",
                artist=artist,
                album=f"{word(album_n + 11, 3)} {word(album_n)}",
                genre=GENRES[artist_n % len(GENRES)],
                number=i % 10 + 1,
                seconds=2.0,
            )
        )
    playlists = {f"Mix {n}": tuple(t.path for t in tracks[n::997][:40]) for n in range(10)}
    # one long track, so that pause and resume are timed away from track changes (MPD
    # itself once took 1.7 s to pause at a 2-second track's boundary)
    tracks.append(Track("long/hold.mp3", "Hold", "Bench", "Bench", "Bench", 1, 600.0))
    return tracks, playlists


def timed(count: int, call: Callable[[int], object]) -> list[float]:
    samples = []
    for i in range(count):
        t0 = time.perf_counter()
        call(i)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def row(what: str, samples: list[float], note: str = "") -> Row:
    p50, p99 = percentiles(samples)
    return Row(what, len(samples), p50, p99, note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tracks", type=int, default=10_000)
    parser.add_argument("--commands", type=int, default=300)
    args = parser.parse_args()
    binary = find_mpd()
    if binary is None:
        print("mpd is not installed (apt-get install mpd)", file=sys.stderr)
        return 1
    root = Path(tempfile.mkdtemp(prefix="mnemolis-bench-music-"))
    rows: list[Row] = []
    notes: list[str] = []
    try:
        t0 = time.perf_counter()
        tracks, playlists = big_library(args.tracks)
        write_library(root / "music", root / "playlists", tracks, playlists)
        written = time.perf_counter() - t0
        server = Mpd(binary, root / "music", root / "playlists")
        t0 = time.perf_counter()
        server.start(timeout_s=600)
        indexed = time.perf_counter() - t0
        notes.append(
            f"library: {len(tracks)} tracks written in {written:.1f} s, "
            f"indexed by mpd in {indexed:.1f} s"
        )
        try:
            rows += bench_music(server, tracks, args.commands, notes)
        finally:
            server.cleanup()
        rows += bench_lists(root, args.commands)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("| what | n | p50 ms | p99 ms | note |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.what} | {r.n} | {r.p50_ms:.3f} | {r.p99_ms:.3f} | {r.note} |")
    for note in notes:
        print(f"\n{note}")
    return 0


def bench_music(server: Mpd, tracks: list[Track], count: int, notes: list[str]) -> list[Row]:
    config = load_config(Path(__file__).resolve().parent.parent)
    understander = Understander(config)
    state = Path(tempfile.mkdtemp(prefix="mnemolis-bench-state-"))
    music = source_for(config, state, server, timeout_s=10.0)
    link = next(iter(music.links.values()))
    library = next(iter(music.libraries.values()))
    rows: list[Row] = []

    t0 = time.perf_counter()
    asyncio.run(music.start())
    notes.append(
        f"start-up (every name of the library read for understanding): "
        f"{(time.perf_counter() - t0) * 1000:.0f} ms; "
        + ", ".join(f"{len(v)} {k}s" for k, v in library.names.items())
    )

    link.call_now(lambda c: c.findadd("title", "Hold"))
    link.call_now(lambda c: c.play())
    rows.append(
        row(
            "status + currentsong (one command list)",
            timed(count, lambda _: link.call_now(read_status)),
        )
    )

    pause = understander.understand("pause the music").parts()[0]
    resume = understander.understand("resume the music").parts()[0]

    async def toggles() -> list[float]:
        for part in (pause, resume):  # the first pause opens and closes the audio output
            await music.answer(part, Request())
        samples = []
        for i in range(count):
            part = pause if i % 2 == 0 else resume
            t0 = time.perf_counter()
            answer = await music.answer(part, Request())
            samples.append((time.perf_counter() - t0) * 1000)
            assert answer.status is Status.DONE, answer.text
        return samples

    rows.append(row("answer: pause / resume, checked on MPD's status", asyncio.run(toggles())))

    words = ["ka", "lo", "ven", "tor"]
    rows.append(
        row(
            f"MPD `search any` in {len(tracks)} tracks",
            timed(
                count // 3,
                lambda i: link.call_now(lambda c: c.search("any", words[i % len(words)])),
            ),
            "substring match, every tag",
        )
    )

    samples = [t.artist.lower() for t in tracks[::97]] + [t.album.lower() for t in tracks[::89]]
    exact = [read_play(f"play {s}", music.settings.words) for s in samples]  # type: ignore[union-attr]
    rows.append(
        row(
            "name lookup, exact (artist or album)",
            timed(len(exact), lambda i: library.resolve(exact[i])),
        )
    )
    misheard = [read_play(f"play {s[:-1]}", music.settings.words) for s in samples]  # type: ignore[union-attr]
    rows.append(
        row(
            "name lookup, misheard (fuzzy over every name)",
            timed(len(misheard), lambda i: library.resolve(misheard[i])),
            "last letter dropped",
        )
    )

    plays = [understander.understand(f"play {s}").parts()[0] for s in samples[:60]]

    async def play_all() -> list[float]:
        out = []
        for part in plays:
            t0 = time.perf_counter()
            answer = await music.answer(part, Request())
            out.append((time.perf_counter() - t0) * 1000)
            assert answer.status is Status.DONE, answer.text
        return out

    rows.append(
        row(
            "answer: play <artist or album> (lookup, findadd, play, status)",
            asyncio.run(play_all()),
        )
    )

    def reread(_: int) -> None:
        fresh = Library()
        link.call_now(fresh.refresh)

    rows.append(row("read every name again (after a database update)", timed(5, reread)))
    asyncio.run(music.close())
    shutil.rmtree(state, ignore_errors=True)
    return rows


def bench_lists(root: Path, count: int) -> list[Row]:
    store = ListStore(root / "lists.sqlite3")
    added = timed(count, lambda i: store.add("shopping", [f"thing {i}"]))
    for i in range(500 - count if count < 500 else 0):
        store.add("shopping", [f"more {i}"])
    read = timed(count, lambda _: store.items("shopping"))
    store.close()
    return [
        row("lists: add one item (one transaction, WAL)", added),
        row("lists: read a 500-item list", read),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
