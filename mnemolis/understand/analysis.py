"""One pass over a normalised query: tokens, phrases, slot words, names and cues.

Every later stage works on token ranges of this one Analysis, so the text is
tokenised once and each matcher runs once per query, however many ways
decomposition tries to split it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config
from mnemolis.understand.intents import MAX_GAP, IntentMap, Match
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.spacy_lite import Doc, PhraseMatcher
from mnemolis.understand.text import TextPipeline, Token

#: Cue kinds, each from one list of the language file.
CUE_KINDS = (
    "conj",
    "nosplit",
    "lead",
    "trailing",
    "then",
    "else",
    "cquestion",
    "report",
    "colloquial",
    "opener",
    "ellipsis",
    "framing",
    "exclude",
)


@dataclass(frozen=True)
class Cue:
    """A language cue found in the query ("as well as", "if", "compare")."""

    kind: str
    phrase: str
    start: int
    end: int


@dataclass(frozen=True)
class SlotWord:
    """A spoken form of a list slot value ("raining" -> metric=rain)."""

    slot: str
    value: str
    start: int
    end: int


@dataclass
class Analysis:
    text: str
    doc: Doc
    tokens: list[Token]
    matches: list[Match]  # intent phrases
    avoid: list[Match]  # words that argue against an intent
    slot_words: list[SlotWord]
    names: list[NameHit]
    cues: list[Cue]
    origin_room: str | None = None  # the area the request comes from, when a front-end knows
    #: What later stages worked out once for this text (fuzzy names are tried for each
    #: candidate intent of a part: the same spans, the same answers).
    memo: dict[Any, Any] = field(default_factory=dict)

    def span_text(self, start: int, end: int) -> str:
        if start >= end:
            return ""
        return self.text[self.tokens[start].start : self.tokens[end - 1].end]

    def cues_of(self, kind: str, start: int = 0, end: int | None = None) -> list[Cue]:
        stop = len(self.tokens) if end is None else end
        return [c for c in self.cues if c.kind == kind and start <= c.start and c.end <= stop]

    def cue_at(self, kind: str, position: int) -> Cue | None:
        """The longest cue of ``kind`` that starts at ``position``."""
        best = None
        for c in self.cues:
            if c.kind == kind and c.start == position and (best is None or c.end > best.end):
                best = c
        return best


#: the verbs a yes-no question starts with ("is ... on"): after "it" they state
QUESTION_VERBS = frozenset({"is", "are", "was", "were"})


class Analyzer:
    """Owns the compiled matchers; `analyze` is the per-query entry point."""

    def __init__(
        self,
        config: Config,
        text: TextPipeline,
        intents: IntentMap,
        names: NameIndex,
        written: Callable[[str], str] = str,
    ):
        self.config = config
        self.text = text
        self.intents = intents
        self.names = names
        lang = config.language
        self._cues = PhraseMatcher(text.vocab, attr="LOWER")
        lists = {
            "conj": lang.conjunctions,
            "nosplit": lang.no_split,
            "lead": list(lang.condition_leads),
            "trailing": lang.condition_trailing,
            "then": lang.condition_then,
            "else": lang.condition_else,
            "cquestion": lang.condition_questions,
            "report": lang.condition_report,
            "colloquial": lang.colloquial_questions,
            "opener": lang.polite_openers,
            "ellipsis": lang.ellipsis_openers,
            "framing": lang.topic_framing,
            "exclude": lang.exclusions,
        }
        for kind, phrases in lists.items():
            for phrase in phrases:
                self._cues.add(f"{kind}\t{phrase}", [text.nlp.make_doc(phrase)])
        self._slots = PhraseMatcher(text.vocab, attr="LEMMA")
        # one inflected word is meant as written: "colder" is a change down, "cold" (as
        # in "I'm a bit cold") is not; a base form matches every inflection
        self._slots_as_written = PhraseMatcher(text.vocab, attr="LOWER")
        for slot in config.slots.values():
            for form, value in slot.values.items():
                # as a query reads it: "four cheese" is said "4 cheese"
                said = text.doc(written(form))
                one = len(said) == 1 and said[0].lemma_ != said[0].lower_
                matcher = self._slots_as_written if one else self._slots
                matcher.add(f"{slot.name}\t{value}", [said])
                if (plural := _plural(slot.type, said)) is not None:
                    # "two margheritas": a list value said in the plural, which the
                    # lemmas do not know for words of the owner's own ("pepperonis")
                    self._slots_as_written.add(f"{slot.name}\t{value}", [text.doc(plural)])

    def _gaps_fit(
        self, doc: Doc, m: Match, slot_words: list[SlotWord], names: list[NameHit]
    ) -> bool:
        """A wide gap holds at most `MAX_GAP` words that are neither determiners nor
        values of the intent's list slots."""
        if not m.rule.wide or m.end - m.start - len(m.literal) <= MAX_GAP:
            return True
        slots = self.config.intents[m.rule.intent].slots
        lists = {
            s for s in slots if (spec := self.config.slots.get(s)) is not None and spec.several
        }
        lists = {s for s in lists if self.config.slots[s].type == "list"}
        values = {i for w in slot_words if w.slot in lists for i in range(w.start, w.end)}
        literal = set(m.literal)
        quiet = self.config.language.determiners
        gap = [i for i in range(m.start, m.end) if i not in literal and i not in values]
        if len([i for i in gap if doc[i].lower_ not in quiet]) > MAX_GAP:
            return False
        if len(gap) <= MAX_GAP:
            return True
        # a gap longer for its determiners ends where a name does: "what's the battery of
        # the front door lock" says no state "lock"
        said = set(gap)
        return not any(
            h.kind == "device" and h.start in said and h.end - 1 in literal for h in names
        )

    def _stated(self, doc: Doc, m: Match) -> bool:
        """ "it's cold in the living room": a phrase that asks with its first verb ("is
        ... cold") said after a statement's subject is no question, unless an "if" or a
        "whether" before it asks it ("tell me if it is on")."""
        lang = self.config.language
        first = m.rule.text.split()[0]
        if first not in QUESTION_VERBS or m.start == 0 or m.start != m.literal[0]:
            return False
        if doc[m.start - 1].lower_ not in lang.statement_subjects:
            return False
        return m.start < 2 or doc[m.start - 2].lower_ not in lang.embedded_question_leads

    def _exists(self, doc: Doc, m: Match) -> bool:
        """ "is there any sound from the baby monitor": the word a question's "is ..."
        would take as a state follows "there" and determiners only: it names what exists."""
        lang = self.config.language
        if m.rule.text.split()[0] not in QUESTION_VERBS or m.start != m.literal[0]:
            return False
        said = set(m.literal) | {i for s, e in m.captures.values() for i in range(s, e)}
        after = min((i for i in said if i > m.start), default=m.end)
        gap = list(range(m.start + 1, after))
        if not gap or doc[gap[0]].lower_ not in lang.existence_words:
            return False
        return all(doc[i].lower_ in lang.determiners for i in gap[1:])

    def _verb_form(self, doc: Doc, hit: NameHit) -> bool:
        """ "what's switched on upstairs": a type word that is also a verb (devices.yaml
        `verbs`), inflected otherwise than a plural ("switches"), names no device."""
        if hit.kind != "noun" or hit.end - hit.start != 1:
            return False
        word, lemma = doc[hit.start].lower_, doc[hit.start].lemma_
        if lemma not in self.config.verb_nouns or word == lemma:
            return False
        return word not in (lemma + "s", lemma + "es")

    def analyze(self, text: str) -> Analysis:
        doc = self.text.doc(text)
        strings = self.text.vocab.strings
        cues = []
        for match_id, start, end in self._cues(doc):
            kind, phrase = strings[match_id].split("\t", 1)
            cues.append(Cue(kind, phrase, start, end))
        cues.sort(key=lambda c: (c.start, -c.end))
        slot_words = []
        for match_id, start, end in [*self._slots(doc), *self._slots_as_written(doc)]:
            slot, value = strings[match_id].split("\t", 1)
            slot_words.append(SlotWord(slot, value, start, end))
        names = [h for h in self.names.find(doc) if not self._verb_form(doc, h)]
        found = [
            m
            for m in self.intents.find(doc)
            if self._gaps_fit(doc, m, slot_words, names)
            and not self._stated(doc, m)
            and not self._exists(doc, m)
        ]
        return Analysis(
            text=text,
            doc=doc,
            tokens=self.text.tokens(doc),
            matches=[m for m in found if not m.rule.avoid],
            avoid=[m for m in found if m.rule.avoid],
            slot_words=slot_words,
            names=names,
            cues=cues,
        )


def _plural(kind: str, said: Doc) -> str | None:
    """A list value's plural as said ("margheritas"), when its last word is a word that
    takes an "s" and the lemmas do not already make it one."""
    last = said[-1].lower_ if len(said) else ""
    if kind != "list" or not last.isalpha() or len(last) < 3 or last.endswith("s"):
        return None
    if said[-1].lemma_ != last:
        return None
    return " ".join([*(t.lower_ for t in said[:-1]), last + "s"])
