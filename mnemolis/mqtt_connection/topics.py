"""MQTT's topic filter rule, for the MQTT source's topic owners and the demo's broker."""

from __future__ import annotations

from collections.abc import Sequence


def levels_match(levels: Sequence[str], topic: Sequence[str]) -> bool:
    """Does a filter (split at '/') match a topic (split at '/')? ``+`` is one level,
    ``#`` the rest, its parent included."""
    for i, level in enumerate(levels):
        if level == "#":
            return True
        if i >= len(topic) or (level != "+" and level != topic[i]):
            return False
    return len(levels) == len(topic)
