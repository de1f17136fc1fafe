"""Which sources exist: the one table that knows, at the configuration's level.

A source is a folder under `mnemolis/sources/` with a ``create(context)``
factory and a settings file under the config directory's `sources/`. The
built-in ones are listed here; a third-party package adds its own with an
entry point in the ``mnemolis.sources`` group (``name = "package.module:create"``).
`mnemolis check`, `doctor`, the executor and every "unknown source" message
read this table, so adding a source touches nothing else.

Factories are imported only when a source is built: `parse` and `check`
read the names without loading any source's code. The table lives here, not
in `mnemolis.sources`, so that the configuration can check an intent's source
without importing the sources (which import the configuration);
`sources.registry` builds them.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.config import Config

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "mnemolis.sources"


@dataclass(frozen=True)
class SourceKind:
    """One kind of source: its name in `intents/` and how to build it."""

    name: str
    factory: str  # "package.module:function", imported when the source is built
    settings: str  # its file under the config directory's sources/
    summary: str
    builtin: bool = True
    #: "package.module:function(config)": reads its settings as the source will and raises
    #: `ConfigError` (file and line) for what is wrong; `mnemolis check` calls every one
    checker: str | None = None

    def check(self, config: Config) -> None:
        """Read this source's settings as it will, without building it or touching the
        network: a broken value is an error now, with its file and line."""
        if self.checker is not None:
            module, _, attr = self.checker.partition(":")
            checker: Callable[[Config], None] = getattr(importlib.import_module(module), attr)
            checker(config)


#: The built-in sources, in the order they are built (a later one may lean on an
#: earlier one through `base`'s protocols: weather reads MQTT's sensors).
BUILTIN: tuple[SourceKind, ...] = (
    SourceKind(
        "mqtt",
        "mnemolis.sources.mqtt:create",
        "mqtt.yaml",
        "devices over MQTT",
        checker="mnemolis.sources.mqtt.settings:check_settings",
    ),
    SourceKind(
        "kiwix",
        "mnemolis.sources.kiwix:create",
        "kiwix.yaml",
        "offline encyclopedia",
        checker="mnemolis.sources.kiwix.settings:check_settings",
    ),
    SourceKind(
        "weather",
        "mnemolis.sources.weather:create",
        "weather.yaml",
        "Open-Meteo forecast",
        checker="mnemolis.sources.weather.settings:check_settings",
    ),
    SourceKind("clock", "mnemolis.sources.clock:create", "clock.yaml", "time and date"),
    SourceKind(
        "timers",
        "mnemolis.sources.timers:create",
        "timers.yaml",
        "timers, alarms, reminders",
        checker="mnemolis.sources.timers.settings:check_settings",
    ),
    SourceKind(
        "routines",
        "mnemolis.sources.routines:create",
        "routines.yaml",
        "routines and replies",
        checker="mnemolis.sources.routines.settings:check_settings",
    ),
    SourceKind(
        "external",
        "mnemolis.sources.external:create",
        "external.yaml",
        "intents for others",
        checker="mnemolis.sources.external.settings:check_settings",
    ),
    SourceKind(
        "music",
        "mnemolis.sources.music:create",
        "music.yaml",
        "music players (MPD)",
        checker="mnemolis.sources.music.settings:check_settings",
    ),
    SourceKind(
        "lists",
        "mnemolis.sources.lists:create",
        "lists.yaml",
        "shopping and to-do lists",
        checker="mnemolis.sources.lists.settings:check_settings",
    ),
    SourceKind(
        "broadcast",
        "mnemolis.sources.broadcast:create",
        "broadcast.yaml",
        "messages to the house",
        checker="mnemolis.sources.broadcast:check_settings",
    ),
)


@cache
def kinds() -> dict[str, SourceKind]:
    """Every source by name: the built-in ones, then those of installed packages."""
    table = {kind.name: kind for kind in BUILTIN}
    try:
        found = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # a broken distribution must not stop Mnemolis
        log.exception("cannot read the %s entry points", ENTRY_POINT_GROUP)
        found = ()  # type: ignore[assignment]
    for ep in found:
        if ep.name in table:
            if not table[ep.name].builtin or ep.value != table[ep.name].factory:
                log.warning("entry point %s=%s ignored: the name is taken", ep.name, ep.value)
            continue
        table[ep.name] = SourceKind(ep.name, ep.value, f"{ep.name}.yaml", ep.value, builtin=False)
    return table


def names() -> tuple[str, ...]:
    return tuple(kinds())


def expected() -> str:
    """For error messages: "one of mqtt, kiwix, weather, clock or null"."""
    return f"one of {', '.join(names())} or null"
