"""`mnemolis doctor` for the satellites of `sources/serve.yaml`: each one asked
``describe`` (which a wyoming-satellite answers without leaving the daemon that drives
it), and what it said: its name and area, or why it could not be reached."""

from __future__ import annotations

import asyncio
import contextlib

from wyoming.info import Describe, Info

from mnemolis.config import Config, ConfigError
from mnemolis.serve.satellite_settings import SatelliteSettings, load_satellites
from mnemolis.serve.wyoming_events import BadEvent, read_event, write_event
from mnemolis.sources.base import Finding, Level

TIMEOUT_S = 3.0
MAX_BYTES = 65_536


async def satellite_findings(config: Config) -> list[Finding]:
    try:
        satellites = load_satellites(config)
    except ConfigError as exc:
        return [Finding("satellites", Level.BROKEN, str(exc), "fix sources/serve.yaml")]
    return list(await asyncio.gather(*(_one(s) for s in satellites)))


async def _one(satellite: SatelliteSettings) -> Finding:
    what = f"satellite {satellite.name}"
    try:
        described = await asyncio.wait_for(_describe(satellite), TIMEOUT_S)
    except (OSError, TimeoutError, BadEvent, asyncio.IncompleteReadError) as exc:
        reason = "it did not answer in time" if isinstance(exc, TimeoutError) else str(exc)
        fix = f"is wyoming-satellite running with --uri {satellite.url}?"
        return Finding(what, Level.WARNING, f"{satellite.url} cannot be reached: {reason}", fix)
    if described is None:
        return Finding(what, Level.WARNING, f"{satellite.url} is no wyoming-satellite", "")
    name, area = described
    used = satellite.area or area
    where = f"area {used}" if used else "no area: name one (area:) for 'the lights'"
    level = Level.OK if used else Level.WARNING
    return Finding(what, level, f"{satellite.url} answers: wyoming-satellite {name!r}, {where}")


async def _describe(satellite: SatelliteSettings) -> tuple[str, str | None] | None:
    address = satellite.address
    if address.scheme == "unix":
        reader, writer = await asyncio.open_unix_connection(address.path)
    else:
        reader, writer = await asyncio.open_connection(address.host, address.port)
    try:
        await write_event(writer, Describe().event())
        while (event := await read_event(reader, MAX_BYTES, TIMEOUT_S)) is not None:
            if Info.is_type(event.type):
                about = event.data.get("satellite")
                if not isinstance(about, dict):
                    return None
                area = about.get("area")
                spoken = " ".join(area.lower().split()) if isinstance(area, str) else ""
                return str(about.get("name") or "?"), spoken or None
        return None
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
