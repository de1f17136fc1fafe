"""What a recogniser heard: the text a spoken request became, and how sure it was.

It travels with the text from the voice stages (or a Wyoming `asr` engine) to the
assistant, which asks back ("Did you say: ...?") before acting on a doubtful
action, exactly as it asks "which one?" for a doubtful name. Typed text has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Heard:
    """One utterance as recognised. ``text`` is empty when nothing was heard."""

    text: str
    #: 0..1: how sure the recogniser is that ``text`` is what was said
    confidence: float = 1.0
    #: other readings, best first (never including ``text``)
    alternatives: tuple[str, ...] = ()
    #: why nothing was heard ("silence", "not a request I know", ...), when ``text`` is empty
    rejected: str | None = None
    #: milliseconds spent per stage ("wake", "speech", "recognise", "answer", "voice")
    ms: dict[str, float] = field(default_factory=dict)
    #: which engine heard it ("pocketsphinx", "wyoming:tcp://host:10300", ...)
    engine: str = ""
    #: 0..1: the share of the speech's loud frames that the words heard lie over (the
    #: embedded recogniser's `coverage.py`; 1.0 where the engine cannot tell): speech
    #: that was more than the request heard is a mishearing its posteriors do not show
    covered: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "confidence": round(self.confidence, 3),
            "alternatives": list(self.alternatives),
            "rejected": self.rejected,
            "ms": {k: round(v, 1) for k, v in self.ms.items()},
            "engine": self.engine,
            "covered": round(self.covered, 3),
        }
