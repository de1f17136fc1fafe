"""The question frame: a part phrased as a question is never routed to an action.

"is the wall switch left on", "are any devices powered on", "any living room
curtains open?": whatever else such a part contains, it asks, so routing may
only pick an intent that changes nothing. This is one invariant, enforced by
the router for every part (`Router.candidates`), from the words of
``questions:`` in the intents YAML, not phrase by phrase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.understand.text import TextPipeline, Token


def _forms(words: list[str], text: TextPipeline) -> list[tuple[str, ...]]:
    """Each multiword form as its word tuple (lower case, as the tokenizer splits it)."""
    return sorted({tuple(text.words(w)) for w in words if w.strip()}, key=len, reverse=True)


def _by_first(forms: list[tuple[str, ...]]) -> dict[str, list[tuple[str, ...]]]:
    """Forms by their first word, longest first: a part is tried only against the
    forms that can start where it starts (every routed part asks this)."""
    table: dict[str, list[tuple[str, ...]]] = {}
    for form in forms:
        if form:
            table.setdefault(form[0], []).append(form)
    return table


@dataclass(frozen=True)
class FrameHit:
    """Where a question frame was found, and which."""

    start: int
    end: int
    frame: str


class QuestionFrame:
    """Tells whether a part asks, and whether an intent would act."""

    def __init__(self, config: Config, text: TextPipeline) -> None:
        words = config.questions
        self.frames = _by_first(_forms(words.frames, text))
        self.not_questions = _by_first(_forms(words.not_questions, text))
        self.skip = {w for form in _forms(words.skip, text) for w in form}
        self.read_actions = set(words.read_actions) or {"state"}

    @staticmethod
    def _at(tokens: Sequence[Token], i: int, end: int, form: tuple[str, ...]) -> bool:
        if i + len(form) > end:
            return False
        return all(tokens[i + k].lower == w for k, w in enumerate(form))

    def frame(self, tokens: Sequence[Token], start: int, end: int) -> FrameHit | None:
        """The question frame the part starts with (after the skip words), if any."""
        i = start
        while i < end and (tokens[i].is_punct or tokens[i].lower in self.skip):
            i += 1
        if i >= end:
            return None
        first = tokens[i].lower
        if any(self._at(tokens, i, end, form) for form in self.not_questions.get(first, ())):
            return None
        for form in self.frames.get(first, ()):
            if self._at(tokens, i, end, form):
                return FrameHit(i, i + len(form), " ".join(form))
        return None

    def asks(self, tokens: Sequence[Token], start: int, end: int) -> bool:
        return self.frame(tokens, start, end) is not None

    @staticmethod
    def marked(tokens: Sequence[Token], start: int, end: int, starts: set[int]) -> bool:
        """ "front door open?": a question mark right after a part that does not begin
        with a phrase (``starts``) asks; "turn off the hall light?" is still a request."""
        if not start < end < len(tokens) or tokens[end].lower != "?":
            return False
        first = next((i for i in range(start, end) if not tokens[i].is_punct), end)
        return first not in starts

    def acts(self, intent: IntentSpec) -> bool:
        """True when routing a part to ``intent`` would change something in the house:
        a device action other than reading, or a routine's steps."""
        if intent.action is not None and intent.action not in self.read_actions:
            return True
        return intent.raw_do is not None
