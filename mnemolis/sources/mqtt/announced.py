"""What every announcement parser shares: topic checks, names, and what a config yields.

Every topic a config names is checked here, so nothing reaches a publish
with a wildcard, a NUL or an absurd length. A state or availability topic may
hold MQTT wildcards (``+`` alone in a level, ``#`` alone at the end), as Home
Assistant's ``valid_subscribe_topic`` allows; a command topic never may.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.core.devices import Device

NAME_MAX = 80
#: Where a device keeps the identifiers of the physical device it is part of
#: (its siblings share one; `ownership` lets them share topics).
DEVICE_IDS = "device_ids"


class BadConfig(ValueError):
    """One config (or one component of it) that cannot become a device."""


@dataclass(frozen=True)
class Refusal:
    """A config that was refused, kept so `mnemolis devices`, doctor and answers can say why."""

    key: str  # the discovery topic, or the bridge topic and the device
    reason: str
    name: str | None = None  # the name it would have had, when one could be read
    type: str | None = None
    origin: str = "homeassistant"


@dataclass
class Discovered:
    """The devices one retained config announces; an empty list removes them."""

    key: str
    devices: list[Device] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    #: Other configs this one changes (a device name they share by identifiers).
    also: list[Discovered] = field(default_factory=list)


def _common(topic: Any, max_chars: int) -> str:
    if not isinstance(topic, str) or not topic:
        raise BadConfig("a topic must be non-empty text")
    if len(topic) > max_chars:
        raise BadConfig(f"topic longer than {max_chars} characters")
    if topic.startswith("$") or any(ord(c) < 32 or c == "\x7f" for c in topic):
        raise BadConfig(f"topic {topic[:60]!r} is reserved or has control characters")
    return topic


def check_topic(topic: Any, max_chars: int) -> str:
    """A topic that is safe to publish to (and to subscribe to), or BadConfig."""
    checked = _common(topic, max_chars)
    if "+" in checked or "#" in checked:
        raise BadConfig(f"topic {checked[:60]!r} has a wildcard")
    return checked


def check_subscription(topic: Any, max_chars: int) -> str:
    """A topic to subscribe to: wildcards allowed where MQTT allows them."""
    checked = _common(topic, max_chars)
    levels = checked.split("/")
    for i, level in enumerate(levels):
        if ("+" in level and level != "+") or ("#" in level and level != "#"):
            raise BadConfig(f"topic {checked[:60]!r} has a wildcard inside a level")
        if level == "#" and i != len(levels) - 1:
            raise BadConfig(f"topic {checked[:60]!r} has # before its last level")
    return checked


def has_wildcard(topic: str) -> bool:
    return "+" in topic or "#" in topic


def words(identifier: str) -> str:
    """ "porch_light", "Porch-Light", "kitchen/ceiling" -> "porch light", "kitchen ceiling"."""
    text = re.sub(r"[_/\-.]+", " ", identifier)
    text = "".join(c for c in text if c.isprintable())
    return " ".join(text.lower().split())[:NAME_MAX]


def spoken(text: str) -> str:
    """A name as people say it: printable, lower case, single spaces, bounded."""
    cleaned = "".join(c for c in text if c.isprintable())
    return " ".join(cleaned.lower().split())[:NAME_MAX]


def infer_room(name: str, rooms: Iterable[str]) -> str | None:
    """The longest known room the name starts with: "kitchen ceiling light" -> kitchen."""
    best = None
    for room in rooms:
        if (name == room or name.startswith(room + " ")) and (
            best is None or len(room) > len(best)
        ):
            best = room
    return best


def scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
