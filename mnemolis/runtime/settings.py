"""`sources/assistant.yaml`: deadlines, conversation limits and the words of a reply.

Numbers are checked once into `AssistantSettings`, with the file and line of
a wrong value. Sentences are `Replies`: the owner's file over the bundled
one, key by key, so an older file keeps working when a new sentence ships,
and a template the owner broke falls back to the bundled one instead of
turning an answer into an exception.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import At, Config
from mnemolis.config.bundled import Fields, bundled_source_yaml, merged
from mnemolis.runtime.doubt import HeardSettings

log = logging.getLogger(__name__)

STEM = "assistant"
#: Keys of the file besides `replies`, each a number within its range.
NUMBERS: dict[str, tuple[float, float]] = {
    "deadline_s": (0.1, 600.0),
    "source_timeout_s": (0.05, 600.0),
    "grace_s": (0.0, 10.0),
    "confirm_expiry_s": (0.0, 86_400.0),
    "session_idle_s": (1.0, 30 * 86_400.0),
    "max_sessions": (1.0, 1_000_000.0),
    "max_session_chars": (1.0, 10_000.0),
    "max_chars": (40.0, 100_000.0),
}
#: The keys of each source's file that hold its deadline, first found wins.
SOURCE_DEADLINE_KEYS: tuple[tuple[str, ...], ...] = (("timeouts", "answer_s"), ("timeout_s",))


class Replies:
    """The sentences of `replies:`, found by dotted key ("condition.taken")."""

    def __init__(self, data: dict[str, Any], defaults: dict[str, Any]) -> None:
        self.data = data
        self.defaults = defaults

    @staticmethod
    def _find(table: dict[str, Any], key: str) -> str | None:
        node: Any = table
        for name in key.split("."):
            node = node.get(name) if isinstance(node, dict) else None
        return node if isinstance(node, str) else None

    def has(self, key: str) -> bool:
        return self._find(self.data, key) is not None

    def say(self, key: str, **fields: Any) -> str:
        """The sentence ``key`` with ``fields`` filled in; never raises."""
        template = self._find(self.data, key)
        default = self._find(self.defaults, key)
        for candidate in (template, default):
            if candidate is None:
                continue
            try:
                return candidate.format_map(Fields(fields))
            except (ValueError, IndexError, AttributeError, KeyError):
                log.warning("sources/%s.yaml: the reply %s is not a valid template", STEM, key)
        log.warning("sources/%s.yaml has no reply %s", STEM, key)
        return key

    def declined(self, intent: str | None) -> str:
        """The sentence for a declined intent (their names hold dots, so no dotted key)."""
        table = self.data.get("declined")
        sentence = table.get(intent) if isinstance(table, dict) and intent else None
        return sentence if isinstance(sentence, str) else self.say("declined_other")

    def declines(self, intent: str) -> bool:
        table = self.data.get("declined")
        return isinstance(table, dict) and isinstance(table.get(intent), str)


@dataclass(frozen=True)
class AssistantSettings:
    """Everything `sources/assistant.yaml` decides, plus each source's deadline."""

    deadline_s: float = 8.0
    source_timeout_s: float = 2.0
    grace_s: float = 0.25
    confirm_expiry_s: float = 30.0
    session_idle_s: float = 900.0
    max_sessions: int = 1000
    max_session_chars: int = 100
    max_chars: int = 500
    quit_words: frozenset[str] = frozenset()
    source_timeouts: dict[str, float] = field(default_factory=dict)
    replies: Replies = field(default_factory=lambda: Replies({}, {}))
    heard: HeardSettings = field(default_factory=HeardSettings)  # asking back a doubtful hearing

    def timeout_for(self, source: str | None) -> float:
        """The deadline of one call to ``source``, from that source's own YAML."""
        return self.source_timeouts.get(source or "", self.source_timeout_s)

    @classmethod
    def from_config(cls, config: Config) -> AssistantSettings:
        at = At(config.source_path(STEM))
        defaults = bundled_source_yaml(STEM)
        raw = config.sources.get(STEM) or {}
        known = {*NUMBERS, "replies", "quit_words", "heard"}
        for key in raw:
            if key not in known:
                raise (at / key).error(f"unknown key {key!r} (one of {', '.join(sorted(known))})")
        values = merged(raw, defaults)
        numbers = {key: _number(values.get(key), at / key, *NUMBERS[key]) for key in NUMBERS}
        replies = merged(raw.get("replies"), defaults.get("replies") or {})
        if not isinstance(replies, dict):
            raise (at / "replies").error("replies must be a mapping of sentences")
        _check_declined(config, replies.get("declined"), at / "replies" / "declined")
        quit_words = values.get("quit_words") or []
        if not isinstance(quit_words, list):
            raise (at / "quit_words").error("quit_words must be a list of words")
        return cls(
            deadline_s=numbers["deadline_s"],
            source_timeout_s=numbers["source_timeout_s"],
            grace_s=numbers["grace_s"],
            confirm_expiry_s=numbers["confirm_expiry_s"],
            session_idle_s=numbers["session_idle_s"],
            max_sessions=int(numbers["max_sessions"]),
            max_session_chars=int(numbers["max_session_chars"]),
            max_chars=int(numbers["max_chars"]),
            quit_words=frozenset(" ".join(str(w).lower().split()) for w in quit_words),
            source_timeouts=source_timeouts(config),
            replies=Replies(replies, defaults.get("replies") or {}),
            heard=HeardSettings.read(values.get("heard"), at / "heard"),
        )


def _number(value: Any, at: At, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise at.error(f"{at.keys[-1]} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _check_declined(config: Config, table: Any, at: At) -> None:
    """A sentence for an intent that does not exist is a typo worth a line number."""
    if table is None:
        return
    if not isinstance(table, dict):
        raise at.error("declined must map a declined intent to its sentence")
    for intent, sentence in table.items():
        if str(intent) in config.disabled:  # switched off by the owner: its sentence rests
            continue
        spec = config.intents.get(str(intent))
        if spec is None or spec.source is not None:
            raise (at / intent).error(f"{intent!r} is not a declined intent (one with source null)")
        if not isinstance(sentence, str):
            raise (at / intent).error(f"the sentence for {intent} must be text")


def source_timeouts(config: Config) -> dict[str, float]:
    """Each source's deadline as its own file names it (`timeouts.answer_s`, `timeout_s`)."""
    out: dict[str, float] = {}
    for name, raw in config.sources.items():
        if name == STEM or not isinstance(raw, dict):
            continue
        for keys in SOURCE_DEADLINE_KEYS:
            node: Any = raw
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, int | float) and not isinstance(node, bool) and node > 0:
                out[name] = float(node)
                break
    return out


def declined_without_sentence(config: Config, replies: Replies) -> list[str]:
    """Declined intents that fall back to the generic sentence (for `mnemolis doctor`)."""
    return sorted(
        name
        for name, spec in config.intents.items()
        if spec.source is None and not replies.declines(name)
    )
