"""`sources/serve.yaml` ``satellites:``: the wyoming-satellites the daemon drives.

Each one is a name (how the log and announcements call it), an address (where
its ``wyoming-satellite --uri`` listens), the area it stands in, and, when the
owner wants one, the satellite that says what was meant for it while it is
down. Read once with file and line for every wrong value; a reload checks the
file but the satellites keep their settings until a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mnemolis.config import At, Config
from mnemolis.serve.settings import Listen, parse_listen

STEM = "serve"
KEY = "satellites"
FIELDS = ("name", "address", "area", "fallback")


@dataclass(frozen=True)
class SatelliteSettings:
    """One satellite as the owner listed it."""

    name: str
    address: Listen
    area: str | None = None  # None: the area the satellite describes itself
    fallback: str | None = None  # another satellite's name

    @property
    def url(self) -> str:
        return self.address.url("tcp")


def _area(value: Any, at: At, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise at.error(f"{key} must be a name (kitchen) or null")
    return " ".join(value.lower().split())


def _one(raw: Any, at: At) -> SatelliteSettings:
    if not isinstance(raw, dict):
        raise at.error("a satellite is a mapping: {name: kitchen, address: tcp://HOST:10700}")
    for key in raw:
        if key not in FIELDS:
            raise (at / key).error(f"unknown key {key!r} (one of {', '.join(FIELDS)})")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise (at / "name").error("a satellite needs a name (kitchen)")
    address = raw.get("address")
    if not isinstance(address, str):
        raise (at / "address").error("address must be tcp://HOST:PORT (wyoming-satellite --uri)")
    try:
        listen = parse_listen(address, ("tcp", "unix"))
    except ValueError as exc:
        raise (at / "address").error(f"address: {exc}") from exc
    return SatelliteSettings(
        " ".join(name.split()),
        listen,
        _area(raw.get("area"), at / "area", "area"),
        _area(raw.get("fallback"), at / "fallback", "fallback"),
    )


def load_satellites(config: Config) -> tuple[SatelliteSettings, ...]:
    """The satellites, or `ConfigError` at the first wrong value: a name used twice, a
    fallback that is no other satellite."""
    at = At(config.root / "sources" / f"{STEM}.yaml") / KEY
    raw = (config.sources.get(STEM) or {}).get(KEY)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise at.error("satellites must be a list of {name, address, area, fallback}")
    found = tuple(_one(item, at / index) for index, item in enumerate(raw))
    names = [s.name.lower() for s in found]
    for index, satellite in enumerate(found):
        if names.index(satellite.name.lower()) != index:
            raise (at / index / "name").error(f"two satellites are named {satellite.name!r}")
        fallback = satellite.fallback
        if fallback is not None and (fallback not in names or fallback == names[index]):
            raise (at / index / "fallback").error(
                f"fallback must name another satellite ({', '.join(names)}), not {fallback!r}"
            )
    return found
