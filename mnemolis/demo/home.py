"""The embedded default home: everything Mnemolis talks to, inside one process.

`DemoHome` starts an MQTT broker on a free loopback port (`broker.py`), runs
the devices of ``sources/mqtt.yaml`` on it through the simulator (announced by
Home Assistant discovery, answering commands), builds the demo encyclopedia
(`zim.py`), saves the demo's recorded forecast into a weather cache of its
own (`recorded_weather.py`) and, where `mpd` is installed, starts one on a
free loopback port with a small generated library (`music.py`, `mpd.py`).
`DemoEnvironment` is what the rest of Mnemolis needs to use it: the
environment variables its sources already read, a state directory of its
own included (its timers and lists never mix with a real home's). The
weather URLs point at a loopback port that is bound and never listens, so
the weather source fails at once and answers from the cache.

Nothing needs root or the network; everything lives under the per-user
cache directory (``$MNEMOLIS_CACHE`` or ``~/.cache/mnemolis``): the ZIM at
its top (where the Kiwix source looks for it), the rest under ``demo/``
(``weather``, ``state``, ``music``). `stop` ends the broker's and the
simulator's threads and the player.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

import yaml

from mnemolis.config import Config
from mnemolis.core.state_dir import STATE_ENV
from mnemolis.demo.broker import BrokerLimits, BrokerThread
from mnemolis.demo.mpd import INSTALL as INSTALL_MPD
from mnemolis.demo.mpd import Mpd, find_mpd
from mnemolis.demo.music import Library, demo_library, write_library
from mnemolis.demo.recorded_weather import SeededForecast, seed_demo_forecast
from mnemolis.demo.simulator import Simulator
from mnemolis.demo.zim import DemoZim, cache_dir, ensure_demo_zim
from mnemolis.mqtt_connection.settings import URL_ENV as MQTT_ENV
from mnemolis.sources.kiwix.settings import ENV_VAR as KIWIX_ENV
from mnemolis.sources.music.settings import ENV_ADDRESS as MPD_ENV
from mnemolis.sources.weather.settings import ENV_BASE_URL, ENV_CACHE, ENV_GEOCODING_URL
from mnemolis.sources.weather.source import utc_now

log = logging.getLogger(__name__)

SIMULATOR_CLIENT_ID = "mnemolis-demo-devices"


@dataclass(frozen=True)
class DemoEnvironment:
    """Where the demo home's parts are, as the sources' environment variables."""

    mqtt_url: str
    zim: Path
    weather_cache: Path
    weather_url: str  # a loopback port nobody listens on: fails at once
    state: Path  # the demo's timers and lists, never the real home's
    mpd: str | None = None  # host:port of the demo's player, when mpd is installed

    def variables(self) -> dict[str, str]:
        found = {
            MQTT_ENV: self.mqtt_url,
            KIWIX_ENV: str(self.zim),
            ENV_CACHE: str(self.weather_cache),
            ENV_BASE_URL: self.weather_url,
            ENV_GEOCODING_URL: self.weather_url,
            STATE_ENV: str(self.state),
        }
        if self.mpd is not None:
            found[MPD_ENV] = self.mpd
        return found

    def shell(self) -> list[str]:
        """``export NAME=value`` lines, to point another shell's Mnemolis at the demo."""
        return [f"export {name}={_quoted(value)}" for name, value in self.variables().items()]


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


class DemoHome:
    """Start with `start` (or ``with DemoHome(config) as home``), stop with `stop`."""

    def __init__(
        self,
        config: Config,
        cache: Path | None = None,
        now: Callable[[], datetime] = utc_now,
        limits: BrokerLimits | None = None,
        music: bool = True,
    ) -> None:
        self.config = config
        self.cache = cache or cache_dir()  # the demo ZIM here, as the Kiwix source expects
        self.weather_cache = self.cache / "demo" / "weather"  # apart from a real forecast
        self.state = self.cache / "demo" / "state"  # apart from the real timers and lists
        self.now = now
        self.broker = BrokerThread(limits=limits)
        self.simulator: Simulator | None = None
        self.zim: DemoZim | None = None
        self.forecast: SeededForecast | None = None
        self.music = music
        self.library: Library = demo_library()
        self.player: Mpd | None = None
        self.no_music: str | None = None  # why there is no player, said in the summary
        self._closed_port: socket.socket | None = None

    # ------------------------------------------------------------------ life

    def start(self, timeout_s: float = 10.0) -> DemoHome:
        """Broker, devices, encyclopedia and weather; stops what started if one fails."""
        try:
            self.broker.start(timeout_s)
            simulator = Simulator(
                self.broker.host,
                self.broker.port,
                self.config.devices,
                announce="homeassistant",
                client_id=SIMULATOR_CLIENT_ID,
            )
            self.simulator = simulator
            simulator.start(timeout_s)
            self.zim = ensure_demo_zim(self.cache)
            self.forecast = seed_demo_forecast(self.config, self.weather_cache, self.now())
            if self.forecast.problem:
                log.warning("demo weather: %s", self.forecast.problem)
            self._closed_port = _bound_not_listening()
            if self.music:
                self._start_player(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_player(self, timeout_s: float) -> None:
        """mpd with the demo's library, where mpd is installed; else the reason why not."""
        binary = find_mpd()
        if binary is None:
            self.no_music = f"mpd is not installed ({INSTALL_MPD}, then start the demo again)"
            return
        folder = self.cache / "demo"
        music, playlists = folder / "music", folder / "playlists"
        write_library(music, playlists, self.library.tracks, self.library.playlists)
        player = Mpd(binary, music, playlists)
        try:
            self.player = player.start(timeout_s)
        except (OSError, RuntimeError, TimeoutError) as exc:
            player.cleanup()
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.no_music = f"mpd did not start ({reason})"
            log.warning("demo music: %s", self.no_music)

    def stop(self) -> None:
        player, self.player = self.player, None
        if player is not None:
            player.cleanup()
        simulator, self.simulator = self.simulator, None
        if simulator is not None:
            simulator.stop()
        self.broker.stop()
        port, self._closed_port = self._closed_port, None
        if port is not None:
            port.close()

    def __enter__(self) -> DemoHome:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ what others use

    @property
    def environment(self) -> DemoEnvironment:
        assert self.zim is not None and self._closed_port is not None, "start() the home first"
        host, port = self._closed_port.getsockname()[:2]
        return DemoEnvironment(
            mqtt_url=self.broker.url,
            zim=self.zim.path,
            weather_cache=self.weather_cache,
            weather_url=f"http://{host}:{port}",
            state=self.state,
            mpd=self.player.address if self.player is not None else None,
        )

    def summary(self) -> list[str]:
        """What is running, one line each, for `mnemolis demo` to print."""
        env = self.environment
        devices = len(self.config.devices)
        lines = [
            f"MQTT broker {env.mqtt_url} (in this process) with {devices} simulated devices "
            "announced by Home Assistant discovery",
            f"encyclopedia: the demo ZIM {env.zim}",
        ]
        forecast = self.forecast
        if forecast is not None and forecast.fetched_at is not None:
            local = forecast.fetched_at.astimezone().strftime("%Y-%m-%d %H:%M")
            lines.append(
                f"weather: the demo's recorded forecast for {forecast.place}, "
                f"dated {local} (not live; there is no weather service in the demo)"
            )
        elif forecast is not None:
            lines.append(f"weather: no forecast ({forecast.problem})")
        if self.player is not None:
            genres = ", ".join(dict.fromkeys(t.genre for t in self.library.tracks))
            lists = ", ".join(self.library.playlists)
            lines.append(
                f"music: mpd at {self.player.address} with {len(self.library.tracks)} silent "
                f"tracks ({genres}; playlists {lists}), playing into no speaker"
            )
        elif self.music:
            lines.append(f"music: none, {self.no_music}")
        lines.append(f"timers and lists: kept in {self.state}, apart from a real home's")
        return lines


def _bound_not_listening() -> socket.socket:
    """A loopback port held but never listened on: a connection to it is refused at
    once, and no other program can take the port while the home runs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


def intro() -> list[str]:
    """The welcome, example requests and how to leave (``intro.yaml``), one line each."""
    raw = yaml.safe_load(resources.files("mnemolis.demo").joinpath("intro.yaml").read_text())
    return [str(raw["welcome"]), *(f"  {e}" for e in raw["examples"]), str(raw["farewell_hint"])]
