"""A loopback HTTP server that answers like Open-Meteo from recorded responses.

It serves ``/v1/forecast`` and ``/v1/search`` from the files in
``tests/data/open_meteo/`` (see recordings.yaml there), chosen by the query
it receives, and remembers every request so tests can assert the query
parameters. `fail_with` makes it answer every request with an error, a hang
or a broken body instead.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemolis.config import Config

DATA = Path(__file__).resolve().parent / "data" / "open_meteo"
COORDINATE_TOLERANCE = 0.001
POLL_S = 0.02  # how soon shutdown is noticed
UNITS_BY_TEMPERATURE = {"celsius": "metric", "fahrenheit": "imperial"}


@dataclass(frozen=True)
class Canned:
    """One response: status, body and an optional delay before it is sent."""

    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"
    delay_s: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    query: dict[str, str]


@dataclass(frozen=True)
class _Recording:
    latitude: float
    longitude: float
    units: str
    file: str


def _recordings() -> list[_Recording]:
    spec = yaml.safe_load((DATA / "recordings.yaml").read_text(encoding="utf-8"))
    out = []
    for name, rec in spec["forecasts"].items():
        req = rec["request"]
        out.append(
            _Recording(req["latitude"], req["longitude"], req["units"], f"forecast_{name}.json")
        )
    return out


def recorded(name: str) -> bytes:
    return (DATA / name).read_bytes()


def refusal(reason: str) -> Canned:
    return Canned(400, json.dumps({"error": True, "reason": reason}).encode())


class OpenMeteoReplay:
    """Start with `start`, point MNEMOLIS_WEATHER_URL at `url`, stop with `stop`."""

    def __init__(self) -> None:
        self.recordings = _recordings()
        self.received: list[Received] = []
        self.failure: Canned | None = None
        self.release = threading.Event()  # ends any hang at shutdown
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ control

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> None:
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                replay._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def fail_with(self, canned: Canned | None) -> None:
        """Answer every request with ``canned`` (None: replay recordings again)."""
        self.failure = canned

    def requests(self, path: str) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.path == path]

    # ------------------------------------------------------------------ serving

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parsed = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        with self._lock:
            self.received.append(Received(parsed.path, query))
        canned = self.failure or self._route(parsed.path, query)
        if canned.delay_s and self.release.wait(canned.delay_s):
            return
        try:
            handler.send_response(canned.status)
            handler.send_header("Content-Type", canned.content_type)
            handler.send_header("Content-Length", str(len(canned.body)))
            handler.end_headers()
            handler.wfile.write(canned.body)
        except OSError:
            pass  # the client gave up first

    def _route(self, path: str, query: dict[str, str]) -> Canned:
        if path == "/v1/forecast":
            return self._forecast(query)
        if path == "/v1/search":
            slug = "_".join(query.get("name", "").lower().split())
            file = DATA / f"search_{slug}.json"
            if file.is_file():
                return Canned(200, file.read_bytes())
            return Canned(200, recorded("search_atlantis.json"))
        return Canned(404, b'{"error":true,"reason":"Not Found"}')

    def _forecast(self, query: dict[str, str]) -> Canned:
        try:
            lat, lon = float(query["latitude"]), float(query["longitude"])
        except (KeyError, ValueError):
            return refusal("Parameter 'latitude' and 'longitude' must be set")
        units = UNITS_BY_TEMPERATURE.get(query.get("temperature_unit", "celsius"), "?")
        for rec in self.recordings:
            if (
                abs(rec.latitude - lat) < COORDINATE_TOLERANCE
                and abs(rec.longitude - lon) < COORDINATE_TOLERANCE
                and rec.units == units
            ):
                return Canned(200, recorded(rec.file))
        return refusal(f"no recording for {lat},{lon} in {units} units")


def closed_port_url() -> str:
    """A loopback URL nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def open_meteo() -> Iterator[OpenMeteoReplay]:
    server = OpenMeteoReplay()
    server.start()
    yield server
    server.stop()


def weather_environ(url: str, cache_dir: Path) -> dict[str, str]:
    return {
        "MNEMOLIS_WEATHER_URL": url,
        "MNEMOLIS_GEOCODING_URL": url,
        "MNEMOLIS_WEATHER_CACHE": str(cache_dir),
    }


def with_weather(config: Config, **changes: Any) -> Config:
    """The config with some keys of sources/weather.yaml changed."""
    weather = {**config.sources["weather"], **changes}
    return replace(config, sources={**config.sources, "weather": weather})
