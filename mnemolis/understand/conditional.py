"""Conditional detection: "if the back door is unlocked, lock it".

It runs before decomposition on the whole query and again on every part.
Forms: a leading condition word (if, should, in case, unless, when ...),
with or without a comma; a trailing one ("lock the back door if it is
unlocked"); an ``otherwise`` branch. Without a comma the boundary between
condition and consequence is the first word that opens a request (a verb or
a phrase of a served intent) such that the words before it read as a
condition a source can check. "check if ..." and "let me know if ..." are
questions, not conditions. A question joined after the consequence ("if the
door is unlocked, lock it and what's the weather") is a request of its own,
kept apart in ``after``; so is anything after "and then" once the
consequence has begun.

A condition no source can check ("if it gets dark ...") is kept as an
out-of-scope condition, so execution says it could not tell, rather than
dropped, which would carry out the consequence unconditionally.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.understand.analysis import Analysis, Cue
from mnemolis.understand.route import Router

#: A condition that no source can check must still be this long to count.
MIN_UNCHECKED_CONDITION = 2


@dataclass
class ConditionSplit:
    """Token ranges of a conditional found in ``[start, end)``."""

    form: str  # leading | trailing
    trigger: str  # if | unless | when
    word: str  # the words that opened it ("in case")
    condition: tuple[int, int]
    then: tuple[int, int]
    otherwise: tuple[int, int] | None = None
    boundary: str = ""  # comma | then | verb | trailing
    after: tuple[int, int] | None = None  # a request of its own after the consequence

    @property
    def negate(self) -> bool:
        return self.trigger == "unless"


class ConditionDetector:
    def __init__(self, config: Config, router: Router) -> None:
        lang = config.language
        self.config = config
        self.router = router
        self.leads = lang.condition_leads
        self.stop = lang.stop_words
        self.clause_starts = lang.clause_starts
        self.edge_words = {c for c in lang.conjunctions if " " not in c}
        self.question_words = lang.question_words
        self.asked = set(lang.condition_asked)
        self.asked_last = set(lang.condition_asked_last)
        self.floor = router.floor

    def detect(self, a: Analysis, start: int, end: int) -> ConditionSplit | None:
        s = start
        while s < end and (a.tokens[s].is_punct or a.tokens[s].lower in self.edge_words):
            s += 1
        if s >= end - 1:
            return None
        lead = a.cue_at("lead", s)
        if lead is not None and not self._is_question(a, lead):
            found = self._leading(a, lead, end)
            if found is not None:
                return found
        return self._trailing(a, s, end)

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _is_question(a: Analysis, cue: Cue) -> bool:
        return any(
            q.kind == "cquestion" and q.start <= cue.start and cue.end <= q.end for q in a.cues
        )

    def _is_verb(self, a: Analysis, i: int, end: int = 0) -> bool:
        """A clause start that is not a function word: "lock", "turn", "play". A verb
        that describes ("the garage door opens", "it turns on") or a word of a device's
        name opens no request."""
        tok = a.tokens[i]
        describes = tok.lower != tok.lemma and tok.lower == tok.lemma + "s"
        named = any(h.start <= i < h.end for h in a.names if h.kind in ("device", "room"))
        return (
            tok.lower not in self.stop
            and not describes
            and not named  # "the robot vacuum is done": a name, not "vacuum!"
            and (tok.lower in self.clause_starts or tok.lemma in self.clause_starts)
        )

    def _reports(self, a: Analysis, s: int, e: int) -> bool:
        """The range only asks to be told: "let me know", "tell me"."""
        report = a.cue_at("report", s)
        return report is not None and report.end == e

    def _opens_request(self, a: Analysis, i: int, end: int) -> bool:
        if self._is_verb(a, i):
            return True
        if a.cue_at("report", i) is not None:
            return True
        return any(
            m.start == i and m.end <= end and self.config.intents[m.intent].source is not None
            for m in a.matches
        )

    def _checkable(self, a: Analysis, s: int, e: int) -> bool:
        if s >= e:
            return False
        cands = self.router.candidates(a, s, e, condition=True, referent=True)
        return bool(cands) and cands[0].score >= self.floor

    def _served(self, a: Analysis, s: int, e: int) -> bool:
        if s >= e:
            return False
        report = a.cue_at("report", s)
        if report is not None and report.end == e:
            return True
        cands = self.router.candidates(a, s, e, referent=True)
        return bool(cands) and cands[0].score >= self.floor and cands[0].intent.source is not None

    def _acts(self, a: Analysis, s: int, e: int) -> bool:
        """Is the best reading of the range an action (not a question)?"""
        if s >= e:
            return False
        cands = self.router.candidates(a, s, e, referent=True)
        if not cands or cands[0].score < self.floor:
            return False
        action = cands[0].intent.action
        return cands[0].intent.source is not None and action not in (None, "state")

    def _asks_when(self, a: Analysis, s: int, e: int) -> bool:
        """ "when obama was born", "when my next appointment is": asked, not watched
        for. The past, or a clause ending in its verb or a preposition; "is" inside
        the clause ("when it is five pm") is a state to watch for."""
        words = [t.lower for t in a.tokens[s:e] if not t.is_punct]
        return bool(words) and (words[-1] in self.asked_last or bool(self.asked & set(words)))

    def _else(self, a: Analysis, s: int, end: int) -> Cue | None:
        for cue in a.cues:
            if cue.kind == "else" and s < cue.start and cue.end < end:
                return cue
        return None

    def _trim(self, a: Analysis, s: int, e: int) -> tuple[int, int]:
        while s < e and (a.tokens[s].is_punct or a.tokens[s].lower in self.edge_words):
            s += 1
        while e > s and (a.tokens[e - 1].is_punct or a.tokens[e - 1].lower in self.edge_words):
            e -= 1
        return s, e

    # ------------------------------------------------------------------ forms

    def _leading(self, a: Analysis, lead: Cue, end: int) -> ConditionSplit | None:
        trigger = self.leads[lead.phrase]
        cond_start = lead.end
        otherwise = self._else(a, cond_start, end)
        region_end = otherwise.start if otherwise else end
        boundary = ""
        cut: tuple[int, int] | None = None  # condition end, consequence start
        for i in range(cond_start + 1, region_end):
            tok = a.tokens[i]
            if tok.text in (",", ";"):
                cut, boundary = (i, i + 1), "comma"
                break
            then_cue = a.cue_at("then", i)
            if then_cue is not None and a.tokens[i - 1].lower not in self.edge_words:
                # "and then" joins two requests; it does not close the condition
                cut, boundary = (i, then_cue.end), "then"
                break
        if cut is None:
            # a verb opens the consequence ("... lock it"); failing that, a phrase
            # ("... lights on"); the words before it must read as a condition
            for opens in (self._is_verb, self._opens_request):
                for i in range(cond_start + 1, region_end):
                    if opens(a, i, region_end) and self._checkable(a, cond_start, i):
                        cut, boundary = (i, i), "verb"
                        break
                if cut is not None:
                    break
        if cut is None:
            for i in range(cond_start + MIN_UNCHECKED_CONDITION, region_end):
                if self._is_verb(a, i, region_end) and self._served(a, i, region_end):
                    cut, boundary = (i, i), "verb"
                    break
        if cut is None:
            return None
        cond = self._trim(a, cond_start, cut[0])
        then = self._trim(a, cut[1], region_end)
        if cond[0] >= cond[1] or then[0] >= then[1]:
            return None
        if boundary == "comma" and not (
            self._served(a, *then) or self._checkable(a, *cond) or trigger == "when"
        ):
            return None
        other = self._trim(a, otherwise.end, end) if otherwise else None
        if other is not None and other[0] >= other[1]:
            other = None
        after = None if other else self._question_after(a, then)
        if after is not None:
            then = self._trim(a, then[0], after[0])
        return ConditionSplit("leading", trigger, lead.phrase, cond, then, other, boundary, after)

    def _question_after(self, a: Analysis, then: tuple[int, int]) -> tuple[int, int] | None:
        """A conjunction in the consequence followed by a question word that asks
        rather than acts: the question is a request of its own, not conditioned."""
        for cue in a.cues_of("conj", then[0] + 1, then[1]):
            q = cue.end
            asks = q < then[1] and a.tokens[q].lower in self.question_words
            if asks and not self._acts(a, q, then[1]):
                return q, then[1]
        return None

    def _trailing(self, a: Analysis, start: int, end: int) -> ConditionSplit | None:
        for cue in a.cues:
            if cue.kind != "trailing" or not (start < cue.start and cue.end < end):
                continue
            if self._is_question(a, cue):
                continue
            before = a.tokens[cue.start - 1]
            if before.lower in self.edge_words:
                continue  # "... and if ...": a new clause, decomposition splits it first
            trigger = self.leads.get(cue.phrase, "if")
            then = self._trim(a, start, cue.start)
            if trigger == "when" and not (self._acts(a, *then) or self._reports(a, *then)):
                continue  # "the weather in mexico when i go there": a time, not a trigger
            if trigger == "when" and self._asks_when(a, cue.end, end):
                continue  # "tell me when obama was born": a question
            otherwise = self._else(a, cue.end, end)
            cond = self._trim(a, cue.end, otherwise.start if otherwise else end)
            if then[0] >= then[1] or cond[0] >= cond[1]:
                continue
            if not self._served(a, *then):
                continue
            if not self._checkable(a, *cond) and (cond[1] - cond[0] < MIN_UNCHECKED_CONDITION):
                continue
            # a request inside the condition means this is not a trailing condition
            if any(
                self._is_verb(a, i) and self._served(a, i, cond[1])
                for i in range(cond[0] + 1, cond[1])
            ):
                continue
            other = self._trim(a, otherwise.end, end) if otherwise else None
            if other is not None and other[0] >= other[1]:
                other = None
            return ConditionSplit("trailing", trigger, cue.phrase, cond, then, other, "trailing")
        return None
