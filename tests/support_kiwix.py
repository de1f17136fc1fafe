"""Fixtures for the Kiwix tests: small ZIMs built with libzim's writer, a real
kiwix-serve on a free loopback port, and a loopback HTTP server that hangs or
talks nonsense.

Import the fixtures into a test module (``from tests.support_kiwix import
fixture_kiwix_serve``); pytest knows them by their ``name`` (``kiwix_serve``).
Under CI a missing kiwix-serve fails the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.server
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.demo.zim import ZimArticle, ZimBook, ZimOption, write_zim
from mnemolis.sources.base import PartAnswer, Request
from mnemolis.sources.kiwix.source import KiwixSource
from tests.tools import require

KIWIX_SERVE = "kiwix-serve"

# An article marked up like an offline Wikipedia page: the reader must skip the
# hatnote, infobox, figure, reference marks and edit links, and drop asides.
ADA_HTML = """
<div class="hatnote">For the programming language, see Ada.</div>
<h1>Ada Lovelace</h1>
<table class="infobox"><tr><th>Born</th><td>10 December 1815</td></tr></table>
<figure><img src="ada.png"><figcaption>Portrait of Ada, 1840.</figcaption></figure>
<p><b>Augusta Ada King, Countess of Lovelace</b> (<i>née</i> Byron; 10 December 1815 &#8211;
27 November 1852) was an English mathematician and writer.<sup class="reference">[1]</sup>
She is chiefly known for her work on Mr. Babbage's Analytical Engine.<sup>[2]</sup>
Her notes hold what is thought to be the first published algorithm. She died at 36.</p>
<h2>Early life<span class="mw-editsection">[edit]</span></h2>
<p>Ada was the only legitimate child of the poet Lord Byron.</p>
"""

TEST_ARTICLES = [
    ZimArticle("Ada Lovelace", redirects=["Lovelace", "Ada Byron"], body_html=ADA_HTML),
    ZimArticle(
        "Mercury",
        kind="disambiguation",
        text="Mercury may refer to:",
        options=[
            ZimOption("Mercury (planet)", "the planet nearest the Sun"),
            ZimOption("Mercury (element)", "a liquid metal"),
            ZimOption("Mercury (mythology)", "a Roman god"),
            ZimOption("Freddie Mercury", "a singer"),
        ],
    ),
    ZimArticle(
        "Mercury (planet)",
        text="Mercury is the smallest planet and the closest to the Sun. A year there is 88 days.",
    ),
    ZimArticle(
        "Mercury (element)",
        text="Mercury is a metal that is liquid at room temperature. Its symbol is Hg.",
    ),
    ZimArticle(
        "Mercury retrograde",
        text=(
            "Mercury retrograde is when Mercury seems to move backwards in the sky. "
            "It is an optical illusion. Astrologers blame it for mishaps. It happens often."
        ),
    ),
    ZimArticle(
        "Jupiter (planet)", text="Jupiter is the largest planet. It is a gas giant with a storm."
    ),
    ZimArticle(
        "Jupiter (mythology)", text="Jupiter is the king of the Roman gods. He threw bolts."
    ),
    ZimArticle(
        "Salt and Pepper Shakers of the World",
        text="Salt and Pepper Shakers of the World is a museum collection. It holds many shakers.",
    ),
    ZimArticle(
        "Fire and Rain",
        redirects=["Fire and Rain (song)"],
        text="Fire and Rain is a song by James Taylor. It came out in 1970.",
    ),
    ZimArticle(
        "Romeo and Juliet",
        redirects=["Romeo & Juliet"],
        text="Romeo and Juliet is a play by William Shakespeare. Two lovers die young.",
    ),
    ZimArticle(
        "Earth, Wind & Fire",
        text="Earth, Wind & Fire is an American band formed in Chicago. It mixes soul and funk.",
    ),
    ZimArticle(
        "List of rivers of Europe",
        kind="list",
        text="This is a list of the rivers of Europe, longest first.",
        options=[ZimOption("Danube"), ZimOption("Rhine")],
    ),
    ZimArticle(
        "Danube",
        text="The Danube is one of the longest rivers of Europe. It flows into the Black Sea.",
    ),
    ZimArticle("Blank Page", body_html='<h1>Blank Page</h1><table class="infobox"></table>'),
    ZimArticle(
        "The Beatles",
        redirects=["Beatles"],
        text="The Beatles were a rock band from Liverpool. They had four members.",
    ),
]

EXTRA_ARTICLES = [
    ZimArticle("Ada Lovelace", text="Ada Lovelace appears in the extra book too. She programmed."),
    ZimArticle(
        "Kiwi (bird)", redirects=["Kiwi"], text="The kiwi is a flightless bird of New Zealand."
    ),
    ZimArticle("Bubble and Squeak", text="Bubble and squeak is a dish of fried leftovers."),
]

GERMAN_ARTICLES = [
    ZimArticle("Ada Lovelace", text="Ada Lovelace war eine britische Mathematikerin."),
]


@dataclass
class KiwixZims:
    """The ZIMs the Kiwix tests read, built once per session."""

    main: Path
    extra: Path
    german: Path
    corrupt: Path
    truncated: Path
    missing: Path


def build_test_zims(folder: Path) -> KiwixZims:
    main = write_zim(
        ZimBook("kiwix_test", "Kiwix test book", "eng", articles=TEST_ARTICLES),
        folder / "kiwix_test.zim",
    )
    extra = write_zim(
        ZimBook("kiwix_extra", "Kiwix extra book", "eng", articles=EXTRA_ARTICLES),
        folder / "kiwix_extra.zim",
    )
    german = write_zim(
        ZimBook("kiwix_de", "Kiwix deutsches Buch", "deu", articles=GERMAN_ARTICLES),
        folder / "kiwix_de.zim",
    )
    corrupt = folder / "corrupt.zim"
    corrupt.write_bytes(b"this is not a zim file\n" * 64)
    truncated = folder / "truncated.zim"
    truncated.write_bytes(main.read_bytes()[:4096])
    return KiwixZims(main, extra, german, corrupt, truncated, folder / "nowhere.zim")


@pytest.fixture(scope="session", name="test_zims")
def fixture_test_zims(tmp_path_factory: pytest.TempPathFactory) -> KiwixZims:
    return build_test_zims(tmp_path_factory.mktemp("zims"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def kiwix_serve_binary() -> str:
    """The kiwix-serve binary, or a skip (a failure under CI)."""
    return require(KIWIX_SERVE)


def wait_for_http(url: str, process: subprocess.Popen[bytes], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"kiwix-serve exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=0.5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"kiwix-serve did not answer at {url} within {seconds} s")


@contextlib.contextmanager
def kiwix_serve_process(
    *zims: Path, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real kiwix-serve on a (free) loopback port; yields its base URL and process."""
    binary = kiwix_serve_binary()
    port = port or free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--address", "127.0.0.1", *map(str, zims)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(url + "/catalog/v2/entries", process)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def running_kiwix_serve(*zims: Path, port: int | None = None) -> Iterator[str]:
    """A real kiwix-serve on a (free) loopback port; yields its base URL."""
    with kiwix_serve_process(*zims, port=port) as (url, _process):
        yield url


@pytest.fixture(scope="session", name="kiwix_serve")
def fixture_kiwix_serve(test_zims: KiwixZims) -> Iterator[str]:
    """kiwix-serve with the main and the extra test book."""
    with running_kiwix_serve(test_zims.main, test_zims.extra) as url:
        yield url


@dataclass
class FakeKiwix:
    """A loopback HTTP server standing in for a kiwix-serve that misbehaves.

    ``catalog`` (when set) is served at /catalog/v2/entries; every other
    request gets ``mode``: "hang" (no answer until the test ends), "garbage"
    (200 with bytes that are neither JSON nor XML) or "error" (HTTP 500).
    """

    url: str
    release: threading.Event
    catalog: bytes | None = None
    mode: str = "hang"
    requests: int = 0


class _FakeHandler(http.server.BaseHTTPRequestHandler):
    fake: FakeKiwix

    def do_GET(self) -> None:
        fake = self.fake
        fake.requests += 1
        if fake.catalog is not None and self.path.startswith("/catalog/v2/entries"):
            self._send(200, fake.catalog, "application/atom+xml")
        elif fake.mode == "hang":
            fake.release.wait(timeout=30)
        elif fake.mode == "garbage":
            self._send(200, b"\x00<<not json, not xml", "application/json")
        else:
            self._send(500, b"internal error", "text/plain")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(name="fake_kiwix")
def fixture_fake_kiwix() -> Iterator[FakeKiwix]:
    """A misbehaving kiwix-serve on a free loopback port; hangs unless told otherwise."""
    release = threading.Event()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeHandler)
    server.daemon_threads = True
    fake = FakeKiwix(f"http://127.0.0.1:{server.server_address[1]}", release)
    server.RequestHandlerClass = type("Handler", (_FakeHandler,), {"fake": fake})
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------- helpers


def kiwix_config(config: Config, **settings: Any) -> Config:
    """``config`` with `sources/kiwix.yaml` replaced by the defaults plus ``settings``."""
    raw = dict(config.sources.get("kiwix") or {})
    raw.update(books=[], url=None, demo=False)
    raw.update(settings)
    return dataclasses.replace(config, sources={**config.sources, "kiwix": raw})


def started(config: Config, environ: dict[str, str] | None = None, **settings: Any) -> KiwixSource:
    source = KiwixSource(kiwix_config(config, **settings), environ=environ or {})
    asyncio.run(source.start())
    return source


def ask(
    source: KiwixSource, topic: str | None, text: str | None = None, timeout_s: float = 5.0
) -> PartAnswer:
    """Answer a knowledge part the way the executor would."""
    slots = {"topic": topic} if topic is not None else {}
    part = Part(text or f"tell me about {topic}", "knowledge.lookup", "kiwix", slots, 0.8)
    return asyncio.run(source.answer(part, Request(timeout_s=timeout_s)))


def close(source: KiwixSource) -> None:
    asyncio.run(source.close())
