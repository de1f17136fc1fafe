"""Actions said with a time: run later, or put back later, never now by mistake.

A time at the edge of an action makes it scheduled:

- "in 5 minutes turn off the porch light", "turn off all the lights at 11 pm":
  the time is taken off, the rest is routed, and the part carries the `When`;
- "turn on the fan for 10 minutes": the action runs now and carries a `revert`
  part, its intent's ``undo`` ("turn off the fan"), scheduled for then;
- "close the blinds at sunset", "turn on the lights tomorrow morning": the part
  carries a `When` no clock places yet (``vague``), so it is not run now and the
  timers source says why.

Questions are never scheduled ("is the porch light on at 11 pm"), and a time a
source takes as its own slot ("remind me at 5") stays that source's.
"""

from __future__ import annotations

from typing import Any

from mnemolis.config import Config, IntentSpec
from mnemolis.core.plan import Part, When
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.route import Routed, Router
from mnemolis.understand.schedule import TIMED_TYPES, TimeReader, TimeSpan
from mnemolis.understand.values import said_as_value

#: What a phrase may hold besides plain words (a gap, alternatives, a slot, a number).
_NOT_PLAIN = ("...", "|", "{", "#", "?")


class ScheduledActions:
    """Finds the time at the edge of an action and makes the action wait for it."""

    def __init__(self, config: Config, reader: TimeReader) -> None:
        self.config = config
        self.reader = reader
        self.edge_words = {c for c in config.language.conjunctions if " " not in c}
        self.source_of_time = {
            i.source for i in config.intents.values() if any(self._timed(s) for s in i.slots)
        }
        #: how an intent's undo is said: the first plain phrase of the undo intent
        self.undo_words = {
            spec.name: words
            for spec in config.intents.values()
            if spec.undo is not None and (words := self._plain_phrase(spec.undo))
        }

    def _timed(self, slot: str) -> bool:
        spec = self.config.slots.get(slot)
        return spec is not None and spec.type in TIMED_TYPES

    def _plain_phrase(self, intent: str) -> str | None:
        spec = self.config.intent(intent)
        if spec is None:
            return None
        plain = (p.text for p in spec.phrases if not any(m in p.text for m in _NOT_PLAIN))
        return next(plain, None)

    def edge(self, a: Analysis, start: int, end: int) -> tuple[TimeSpan, int, int] | None:
        """A time ("in 5 minutes", "at 11 pm", "for an hour") at the start or the end of
        the range, and what is left of the range without it."""
        toks = a.tokens
        s, e = start, end
        while s < e and (toks[s].is_punct or toks[s].lower in self.edge_words):
            s += 1
        while e > s and toks[e - 1].is_punct:
            e -= 1
        for span in self.reader.find(a, s, e):
            if _in_a_name(a, span):
                continue  # "activate cosy evening": the scene's name, not tonight
            if span.start == s and span.end < e and span.kind != "day":
                # a day alone before an action is read with what came before ("unless it
                # rains on friday, good night"); after it, it is the action's ("... tomorrow")
                rest = span.end
                while rest < e and toks[rest].is_punct:
                    rest += 1
                return span, rest, e
            if span.end == e and span.start > s:
                return span, s, span.start
        return None

    def route(self, router: Router, a: Analysis, start: int, end: int, **options: Any) -> Routed:
        """Route the range; an action with a time at its edge is routed without the time
        and carries it as its schedule, or as the schedule of what puts it back."""
        routed = router.route(a, start, end, **options)
        if routed.part.source in self.source_of_time and routed.part.source is not None:
            return routed  # "remind me at 5": the time is the timer source's own slot
        found = self.edge(a, start, end)
        if found is None:
            return routed
        span, s, e = found
        if span.duration_s is None and said_as_value(a, routed.best, span.start, span.end):
            return routed  # "set the thermostat at 21": the number is a value, not a time
        inner = router.route(a, s, e, **options)
        spec = self.config.intent(inner.part.intent)
        acts = spec is not None and (spec.action not in (None, "state") or bool(spec.raw_do))
        if spec is None or spec.source is None or not acts:
            return routed  # a question ("is the porch light on at 11 pm") is no plan
        if span.kind == "for":
            revert = self._revert(a, inner, spec, span, s, e)
            if revert is None:
                return routed  # "set the heating to 21 for an hour": nothing puts it back
            inner.part.revert = revert
        else:
            inner.part.schedule = span.when
        inner.part.text = a.span_text(start, end)
        return inner

    def _revert(
        self, a: Analysis, inner: Routed, spec: IntentSpec, span: TimeSpan, s: int, e: int
    ) -> Part | None:
        """What puts an action back after ``span``: its undo intent, on the same slots,
        said with the undo's words in place of the action's ("turn off the fan")."""
        words = self.undo_words.get(spec.name)
        if spec.undo is None or words is None or span.duration_s is None:
            return None
        # the words of the action's phrases ("start"), not those of a name ("robot vacuum")
        named: set[int] = set()
        if inner.best is not None:
            named = {i for fill in inner.best.slots.fills.values() for i in fill.tokens}
        phrase = {
            i
            for m in a.matches
            if m.intent == spec.name and m.inside(s, e)
            for i in m.literal
            if i not in named
        }
        rest = " ".join(
            a.tokens[i].text for i in range(s, e) if i not in phrase and not a.tokens[i].is_punct
        )
        undo = self.config.intent(spec.undo)
        assert undo is not None  # checked when the config was read
        when = When(after_s=span.duration_s, text=span.when.text)
        text = f"{words} {rest}".strip()
        part = inner.part
        return Part(text, undo.name, undo.source, dict(part.slots), part.confidence, schedule=when)


def _in_a_name(a: Analysis, span: TimeSpan) -> bool:
    """The time's words are part of a longer device name said ("Cosy Evening")."""
    return any(
        h.kind == "device"
        and h.start < span.end
        and span.start < h.end
        and (h.start < span.start or h.end > span.end)
        for h in a.names
    )
