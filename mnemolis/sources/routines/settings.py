"""`sources/routines.yaml`: how routines run, and what they say about their steps.

The owner's file is laid over the shipped one key by key when the
configuration is read, so a missing key has its shipped value; a wrong one
names its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import At, Config, ConfigError
from mnemolis.config.bundled import fill
from mnemolis.config.intents import closest
from mnemolis.config.problems import Problems

STEM = "routines"
#: Number keys and their ranges.
NUMBERS: dict[str, tuple[float, float]] = {
    "timeout_s": (0.1, 600.0),
    "webhook_timeout_s": (0.05, 600.0),
    "webhook_max_bytes": (0.0, 16 * 1024 * 1024),
    "paused_max": (1.0, 1_000_000.0),
}


@dataclass(frozen=True)
class RoutineSettings:
    timeout_s: float = 7.0
    webhook_timeout_s: float = 3.0
    webhook_max_bytes: int = 65536
    paused_max: int = 1000
    replies: dict[str, str] = field(default_factory=dict)

    def say(self, key: str, **fields: Any) -> str:
        """A sentence of `replies:`; a field the owner misspelt stays visible as {name}."""
        return fill(self.replies.get(key, ""), **fields)


def load_routine_settings(config: Config, stem: str = STEM) -> RoutineSettings:
    """The settings, every wrong key named with its file and line."""
    raw = config.sources.get(stem) or {}
    at = At(config.source_path(stem))
    problems = Problems()
    for key in raw:
        if key not in (*NUMBERS, "replies"):
            known = (*NUMBERS, "replies")
            problems.add((at / key).error(f"unknown key {key!r}{closest(str(key), known)}"))
    numbers: dict[str, float] = {}
    for key, (low, high) in NUMBERS.items():
        value = raw.get(key, getattr(RoutineSettings, key))
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            problems.add((at / key).error(f"{key} must be a number from {low:g} to {high:g}"))
            continue
        numbers[key] = float(value)
    replies = raw.get("replies") or {}
    if not isinstance(replies, dict):
        problems.add((at / "replies").error("replies must be a mapping of sentences"))
        replies = {}
    for key, value in replies.items():
        if not isinstance(value, str):
            problems.add((at / "replies" / key).error(f"the reply {key} must be text"))
    problems.raise_any()
    defaults = RoutineSettings()
    return RoutineSettings(
        timeout_s=numbers.get("timeout_s", defaults.timeout_s),
        webhook_timeout_s=numbers.get("webhook_timeout_s", defaults.webhook_timeout_s),
        webhook_max_bytes=int(numbers.get("webhook_max_bytes", defaults.webhook_max_bytes)),
        paused_max=int(numbers.get("paused_max", defaults.paused_max)),
        replies={str(k): v for k, v in replies.items() if isinstance(v, str)},
    )


__all__ = ["ConfigError", "RoutineSettings", "load_routine_settings"]


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    load_routine_settings(config)
