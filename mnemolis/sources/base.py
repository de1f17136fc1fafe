"""The one small protocol every source adapter implements.

A source answers a routed part and, where it can, evaluates a condition to
true, false or unknown. It never raises into the executor for an expected
failure (dead broker, missing ZIM, timeout): it returns a PartAnswer with an
error status and a sentence that says what went wrong.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mnemolis.plan import Part


class Status(enum.StrEnum):
    """How a part ended; the structured result carries it for machines."""

    OK = "ok"  # a question answered
    DONE = "done"  # an action carried out and confirmed by the device
    NOT_CONFIRMED = "not_confirmed"  # sent, but no state echo within the deadline
    DECLINED = "declined"  # not allowed, or the user said no
    OUT_OF_SCOPE = "out_of_scope"  # understood as something Mnemolis does not do
    ERROR = "error"  # the source failed: dead broker, missing ZIM, timeout
    NEEDS_CONFIRMATION = "needs_confirmation"  # waits for a yes in the next turn


class Truth(enum.StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"


@dataclass
class Request:
    """Per-call facts a source may need besides the part itself."""

    session: str = "default"
    confirmed: bool = False  # the user already said yes to this action
    timeout_s: float = 5.0


@dataclass
class PartAnswer:
    """What one source said about one part."""

    text: str
    status: Status
    source: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "status": str(self.status),
            "source": self.source,
            "data": self.data,
            "provenance": self.provenance,
            "ms": round(self.ms, 1),
        }


@dataclass
class Evaluation:
    """A condition checked against real state: "the back door is unlocked"."""

    truth: Truth
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Source(Protocol):
    """One adapter per source; `execute` only talks to this."""

    name: str

    async def start(self) -> None:
        """Connect, open files, warm caches. Must not raise for a dead backend."""

    async def close(self) -> None:
        """Release connections and threads."""

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        """Answer a question or carry out an action."""

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """Evaluate a condition part now: true, false or unknown."""


class NameSource(Protocol):
    """A read-only lookup a source hands to understanding at start-up.

    Kiwix offers its titles this way so that decomposition keeps
    "pride and prejudice" whole even in lower-case speech.
    """

    def is_name(self, text: str) -> bool:
        """True when ``text`` (lower-case, single-spaced) is a known name."""
