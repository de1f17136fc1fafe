"""`sources/external.yaml`: where external intents are published, and the reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import At, Config
from mnemolis.config.bundled import fill
from mnemolis.config.intents import closest
from mnemolis.config.problems import Problems
from mnemolis.config.routines import check_topic

STEM = "external"
KEYS = ("topic_prefix", "hermes", "hermes_prefix", "qos", "replies")


@dataclass(frozen=True)
class ExternalSettings:
    topic_prefix: str = "mnemolis/intent"
    hermes: bool = True
    hermes_prefix: str = "hermes/intent"
    qos: int = 1
    replies: dict[str, str] = field(default_factory=dict)

    def say(self, key: str, **fields: Any) -> str:
        """A sentence of `replies:`; a field the owner misspelt stays visible as {name}."""
        return fill(self.replies.get(key, ""), **fields)


def load_external_settings(config: Config) -> ExternalSettings:
    raw = config.sources.get(STEM) or {}
    at = At(config.source_path(STEM))
    problems = Problems()
    for key in raw:
        if key not in KEYS:
            problems.add((at / key).error(f"unknown key {key!r}{closest(str(key), KEYS)}"))
    defaults = ExternalSettings()
    prefixes = {}
    for key in ("topic_prefix", "hermes_prefix"):
        with problems.each():
            prefixes[key] = check_topic(raw.get(key, getattr(defaults, key)), at / key, key)
    hermes = raw.get("hermes", defaults.hermes)
    if not isinstance(hermes, bool):
        problems.add((at / "hermes").error("hermes is true or false"))
    qos = raw.get("qos", defaults.qos)
    if qos not in (0, 1, 2) or isinstance(qos, bool):
        problems.add((at / "qos").error("qos is 0, 1 or 2"))
    replies = raw.get("replies") or {}
    if not isinstance(replies, dict):
        problems.add((at / "replies").error("replies must be a mapping of sentences"))
        replies = {}
    problems.raise_any()
    return ExternalSettings(
        topic_prefix=prefixes["topic_prefix"].rstrip("/"),
        hermes=bool(hermes),
        hermes_prefix=prefixes["hermes_prefix"].rstrip("/"),
        qos=int(qos),
        replies={str(k): str(v) for k, v in replies.items()},
    )


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    load_external_settings(config)
