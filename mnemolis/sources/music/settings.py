"""`sources/music.yaml` and the environment, checked once into typed settings.

A wrong value is a `ConfigError` naming the file and line; the music source
turns it into an error answer rather than failing to start. ``$MNEMOLIS_MPD``
(``host:port``, ``host``, ``[v6]:port`` or a unix socket path) replaces the
first player's address, or makes one player when the file lists none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mnemolis.config import At, Config, ConfigError, as_mapping
from mnemolis.config.bundled import bundled_source_yaml, merged
from mnemolis.sources.music.words import MusicReplies, MusicWords

ENV_ADDRESS = "MNEMOLIS_MPD"
ENV_PASSWORD = "MNEMOLIS_MPD_PASSWORD"
DEFAULT_PORT = 6600
MAX_TIMEOUT_S = 60.0
#: The name of the player $MNEMOLIS_MPD makes when the file lists none.
ENV_PLAYER = "default"
PLAYER_KEYS = ("name", "host", "port", "areas", "password")


@dataclass(frozen=True)
class PlayerSettings:
    """One player: where it listens and which areas it plays in."""

    name: str
    host: str  # a host name or address, or the path of a unix socket
    port: int = DEFAULT_PORT  # 0 for a unix socket
    areas: tuple[str, ...] = ()
    password: str | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        if self.port == 0:
            return self.host
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def serves(self, area: str) -> bool:
        return area == self.name or area in self.areas


@dataclass(frozen=True)
class MusicSettings:
    players: tuple[PlayerSettings, ...]
    timeout_s: float = 3.0
    volume_step: int = 10
    unmute_volume: int = 50
    match_cutoff: float = 82.0
    words: MusicWords = field(default_factory=MusicWords)
    replies: MusicReplies = field(default_factory=lambda: MusicReplies({}, {}))

    def player_for(self, area: str | None) -> PlayerSettings | None:
        if area is None:
            return None
        return next((p for p in self.players if p.serves(area)), None)

    @property
    def areas(self) -> list[str]:
        """Every area a player plays in, each once, in the file's order."""
        seen: dict[str, None] = {}
        for player in self.players:
            for area in (player.name, *player.areas):
                seen.setdefault(area, None)
        return list(seen)


def parse_address(text: str) -> tuple[str, int]:
    """ "host:port", "host", "[::1]:6600", "::1" or "/run/mpd/socket" -> (host, port)."""
    text = text.strip()
    if not text:
        raise ValueError("an empty address")
    if text.startswith(("/", "@")):
        return text, 0
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not host or not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"{text!r} is not [address]:port")
        return host, _port(rest[1:]) if rest else DEFAULT_PORT
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        if not host:
            raise ValueError(f"{text!r} has no host")
        return host, _port(port)
    return text, DEFAULT_PORT


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{text!r} is not a port (1-65535)")
    return int(text)


def load_music_settings(config: Config, environ: Mapping[str, str] | None = None) -> MusicSettings:
    env = os.environ if environ is None else environ
    path = config.root / "sources" / "music.yaml"
    at = At(path)
    raw = as_mapping(config.sources.get("music"), at, "the file")
    known = {"players", "timeout_s", "volume_step", "unmute_volume", "match_cutoff", "words"}
    for key in raw:
        if key not in known | {"replies"}:
            raise (at / key).error(f"unknown key {key!r} (one of {', '.join(sorted(known))})")
    players = _players(raw.get("players"), at / "players")
    address = env.get(ENV_ADDRESS)
    if address:
        try:
            host, port = parse_address(address)
        except ValueError as exc:
            raise ConfigError(f"${ENV_ADDRESS}", None, f"{exc}; write host:port") from exc
        first = players[0] if players else PlayerSettings(ENV_PLAYER, host, port, ())
        players = [replace(first, host=host, port=port), *players[1:]]
    if env.get(ENV_PASSWORD) and players:
        players[0] = replace(players[0], password=env[ENV_PASSWORD])
    defaults = bundled_source_yaml("music")
    words = merged(raw.get("words"), defaults.get("words") or {})
    return MusicSettings(
        players=tuple(players),
        timeout_s=_number(raw.get("timeout_s", 3.0), at / "timeout_s", 0.1, MAX_TIMEOUT_S),
        volume_step=int(_number(raw.get("volume_step", 10), at / "volume_step", 1, 100)),
        unmute_volume=int(_number(raw.get("unmute_volume", 50), at / "unmute_volume", 1, 100)),
        match_cutoff=_number(raw.get("match_cutoff", 82), at / "match_cutoff", 50, 100),
        words=MusicWords.from_yaml(words),
        replies=MusicReplies(raw.get("replies"), defaults.get("replies") or {}),
    )


def _players(value: Any, at: At) -> list[PlayerSettings]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise at.error("players must be a list of {name, host, port, areas}")
    players: list[PlayerSettings] = []
    for i, item in enumerate(value):
        p_at = at / i
        item = as_mapping(item, p_at, "a player")
        for key in item:
            if key not in PLAYER_KEYS:
                raise (p_at / key).error(
                    f"unknown key {key!r} for a player (one of {', '.join(PLAYER_KEYS)})"
                )
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise p_at.error("a player needs a name")
        name = " ".join(name.lower().split())
        if any(p.name == name for p in players):
            raise (p_at / "name").error(f"two players are called {name!r}")
        host = item.get("host", "127.0.0.1")
        if not isinstance(host, str) or not host.strip():
            raise (p_at / "host").error("host must be a host name, an address or a socket path")
        port = item.get("port", 0 if host.startswith(("/", "@")) else DEFAULT_PORT)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise (p_at / "port").error(f"port must be a number from 1 to 65535, not {port!r}")
        areas = item.get("areas", [name])
        if isinstance(areas, str):
            areas = [areas]
        if not isinstance(areas, list) or not all(isinstance(a, str) for a in areas):
            raise (p_at / "areas").error("areas must be a list of room names")
        password = item.get("password")
        if password is not None and not isinstance(password, str):
            raise (p_at / "password").error("password must be text (quote it)")
        clean = tuple(dict.fromkeys(" ".join(a.lower().split()) for a in areas))
        for other in players:
            shared = set(clean) & set(other.areas)
            if shared:
                raise (p_at / "areas").error(
                    f"the {', '.join(sorted(shared))} already has the {other.name} player"
                )
        players.append(PlayerSettings(name, host.strip(), port, clean, password))
    return players


def _number(value: Any, at: At, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        key = at.keys[-1] if at.keys else "value"
        raise at.error(f"{key} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    load_music_settings(config, environ={})
