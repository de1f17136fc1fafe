"""The one outside help understanding takes: a read-only name lookup.

It is defined here, by its consumer, so that sources implement it without
understanding importing them: the Kiwix source offers its titles this way,
and decomposition keeps "pride and prejudice" whole even in lower-case speech.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class NameSource(Protocol):
    """A read-only lookup a source hands to understanding at start-up."""

    def is_name(self, text: str) -> bool:
        """True when ``text`` (lower-case, single-spaced) is a known name."""
