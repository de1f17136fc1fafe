"""Word lists and sentences for sources that read a part's words themselves.

The music and lists sources read what to play or which items from the words
of a part, with word lists from their own `sources/*.yaml`, and answer with
sentences from the same file. The owner's `replies:` are laid over the
shipped ones key by key, and a template the owner broke falls back to the
shipped one, so a typo never turns an answer into an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from mnemolis.config.bundled import Fields, merged

log = logging.getLogger(__name__)

Words = tuple[str, ...]


def phrases(value: Any) -> tuple[Words, ...]:
    """Spoken phrases as word tuples, longest first (so "the album" beats "album").
    YAML reads a bare on/off/yes/no as a boolean: such an entry is not a word."""
    if not isinstance(value, list):
        return ()
    out = {
        tuple(str(v).lower().split())
        for v in value
        if isinstance(v, str | int) and not isinstance(v, bool) and str(v).strip()
    }
    return tuple(sorted(out, key=lambda words: (-len(words), words)))


def starts(words: Sequence[str], phrase: Words) -> bool:
    return len(words) >= len(phrase) and tuple(words[: len(phrase)]) == phrase


def ends(words: Sequence[str], phrase: Words) -> bool:
    return len(words) >= len(phrase) and tuple(words[len(words) - len(phrase) :]) == phrase


class Sentences:
    """The sentences of a source's `replies:`, found by dotted key ("what.album")."""

    def __init__(self, data: Any, defaults: Any, file: str = "sources") -> None:
        self.defaults: dict[str, Any] = defaults if isinstance(defaults, dict) else {}
        table = merged(data, self.defaults)
        self.data: dict[str, Any] = table if isinstance(table, dict) else {}
        self.file = file

    @staticmethod
    def _find(table: dict[str, Any], key: str) -> Any:
        node: Any = table
        for name in key.split("."):
            node = node.get(name) if isinstance(node, dict) else None
        return node

    def say(self, key: str, **values: Any) -> str:
        """The sentence ``key`` with ``values`` filled in; never raises."""
        for table in (self.data, self.defaults):
            template = self._find(table, key)
            if not isinstance(template, str):
                continue
            try:
                return template.format_map(Fields(values))
            except (ValueError, IndexError, AttributeError):
                log.warning("%s: the reply %s is not a valid template", self.file, key)
        return key

    def names(self, names: Sequence[str]) -> str:
        """ "milk, eggs and bread"."""
        if len(names) <= 1:
            return "".join(names)
        return ", ".join(names[:-1]) + f" {self.say('and')} " + names[-1]

    def count(self, n: int, key: str) -> str:
        """ "1 item", "3 items", from a [one, many] pair under ``key``."""
        pair = self._find(self.data, key) or self._find(self.defaults, key)
        one, many = (str(pair[0]), str(pair[-1])) if isinstance(pair, list) and pair else ("", "")
        return f"{n} {one if n == 1 else many}".strip()
