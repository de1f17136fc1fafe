"""The INTENT_MAP, compiled from YAML into spaCy matchers over lower-case lemmas.

Plain phrases of base forms go to a PhraseMatcher on lemmas, so "turn on"
also matches "turning on"; a word written in an inflected form matches only
as written ("longest" is not "long"). Phrases with gaps, choices, optional
words, slot captures or inflected words become token patterns for the
Matcher, whose
alignments tell which words were the phrase, which were the gap and which
were captured. One pass of each matcher per query finds every phrase of
every intent; routing then looks only at matches inside a part.

A ``{slot}`` of a list slot captures a whole value, of one word or several
("with {topping}" captures "extra cheese"): the phrase becomes one pattern
per length of the slot's values, and a match whose captured words are not
one of its values is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config, ConfigError, IntentSpec
from mnemolis.understand.pattern_buckets import PatternBucket
from mnemolis.understand.spacy_lite import Doc, Matcher, PhraseMatcher
from mnemolis.understand.text import TextPipeline

GAP = "..."
NUMBER = "#"
MAX_GAP = 5
#: A gap of an intent with a list slot that takes several values may also hold that many
#: words of its values ("give the pots and the hanging baskets a drink"): `Analyzer`
#: counts only the others against `MAX_GAP`.
VALUE_GAP = 6
#: A gap right before a captured value ("are ... {state}") may also hold this many
#: determiners ("are the blinds in the living room closed": six words, four of them
#: not "the"): `Analyzer` counts only the others.
DETERMINER_GAP = 2


@dataclass(frozen=True)
class PhraseRule:
    """One compiled phrase of one intent."""

    intent: str
    text: str
    weight: float
    literal_words: int
    # per pattern token: "lit", "gap" or "slot:<name>"
    roles: tuple[str, ...] = ()
    avoid: bool = False  # a word that argues against the intent, not for it
    wide: bool = False  # its gaps may hold values of the intent's list slots, determiners


@dataclass
class Match:
    """A phrase found in the query: the literal tokens it covered and its captures."""

    rule: PhraseRule
    start: int
    end: int
    literal: tuple[int, ...]
    captures: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def intent(self) -> str:
        return self.rule.intent

    def inside(self, start: int, end: int) -> bool:
        return start <= self.start and self.end <= end


def _token_spec(word: str, text: TextPipeline, config: Config, intent: IntentSpec) -> list[Any]:
    """Token pattern(s) for one word of a template, with its role."""
    optional = word.endswith("?") and len(word) > 1
    if optional:
        word = word[:-1]
    if word.startswith("(") and word.endswith(")"):
        word = word[1:-1]
    if word.startswith("{") and word.endswith("}"):
        slot_name = word[1:-1]
        slot = config.slots[slot_name]
        if slot.type == "number":
            spec: dict[str, Any] = {"LIKE_NUM": True}
        else:
            raise ConfigError(
                intent.path,
                intent.line,
                f"intent {intent.name!r}: {{{slot_name}}} cannot be captured in a phrase "
                f"(only list and number slots can)",
            )
        if optional:
            spec["OP"] = "?"
        return [(spec, f"slot:{slot_name}")]
    if word == NUMBER:
        spec = {"LIKE_NUM": True}
        if optional:
            spec["OP"] = "?"
        return [(spec, "lit")]
    if "|" in word:
        choices = [c for c in word.split("|") if c]
        spec = {"LEMMA": {"IN": sorted({text.lemma(c.lower()) for c in choices})}}
        if optional:
            spec["OP"] = "?"
        return [(spec, "lit")]
    out = []
    for form in text.words(word):
        lemma = text.lemma(form)
        # a base form matches every inflection ("turn" ~ "turning"); an inflected
        # form is meant as written ("longest" is not "long", "born" is not "bear")
        spec = {"LEMMA": lemma} if lemma == form else {"LOWER": form}
        if optional:
            spec["OP"] = "?"
        out.append((spec, "lit"))
    return out


def _plain(word: str) -> bool:
    """A word of a template with no syntax of its own (gap, choice, capture, optional)."""
    return word not in (GAP, NUMBER) and not any(c in word for c in "|?{}()")


def _read_as_said(words: list[str], written: Callable[[str], str]) -> list[str]:
    """The template's runs of plain words as a query reads them (`Normalizer.written`),
    its syntax left as it is."""
    out: list[str] = []
    run: list[str] = []
    for word in [*words, GAP]:
        if _plain(word):
            run.append(word)
            continue
        if run:
            out.extend(written(" ".join(run)).split())
            run = []
        out.append(word)
    return out[:-1]


def _first_keys(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """The bucket(s) of a pattern by its first token: a lemma, a word as written, a
    choice of lemmas (one bucket each) or a number."""
    if spec.get("LIKE_NUM"):
        return [("NUM", "")]
    for attr in ("LEMMA", "LOWER"):
        value = spec.get(attr)
        if isinstance(value, dict):
            return [(attr, str(v)) for v in value.get("IN", ())]
        if value is not None:
            return [(attr, str(value))]
    raise ValueError(f"a phrase pattern starts with {spec!r}")  # _add forbids it


class IntentMap:
    """Every intent's phrases, compiled; `find` returns all matches in a Doc."""

    def __init__(
        self, config: Config, text: TextPipeline, written: Callable[[str], str] = str
    ) -> None:
        self.config = config
        self.text = text
        self.written = written  # a phrase as a query reads: "i'd like" -> "i would like"
        self.intents = config.intents
        self._phrases = PhraseMatcher(text.vocab, attr="LEMMA")  # base forms: any inflection
        self._inflected = PhraseMatcher(text.vocab, attr="LOWER")  # inflected words: as written
        self._forms: dict[str, dict[int, set[tuple[str, ...]]]] = {}  # list slots' values
        # gaps, choices, captures: one Matcher per first word, so that a query runs only
        # the patterns that can start on one of its words (a Matcher tries every pattern
        # it holds at every token, and there are hundreds)
        self._patterns: dict[tuple[str, str], PatternBucket] = {}
        self._rules: dict[int, list[PhraseRule]] = {}
        self.phrase_count = 0
        for intent in config.intents.values():
            for phrase in intent.phrases:
                self._add(intent, phrase.text, phrase.weight)
            for phrase in intent.avoid:
                self._add(intent, phrase.text, phrase.weight, avoid=True)

    def _value_forms(self, slot: str) -> dict[int, set[tuple[str, ...]]]:
        """A list slot's spoken forms as lemmas, by their number of words."""
        found = self._forms.get(slot)
        if found is None:
            found = self._forms[slot] = {}
            for spoken in self.config.slots[slot].values:
                form = tuple(self.text.lemmas(self.written(spoken)))
                if form:
                    found.setdefault(len(form), set()).add(form)
        return found

    def _captures(self, word: str, intent: IntentSpec) -> list[list[tuple[Any, str]]] | None:
        """A ``{slot}`` of a list slot: one run of token specs per length of its values
        (none at all, too, when it is optional); None for any other word."""
        optional = word.endswith("?") and len(word) > 1
        name = word[:-1] if optional else word
        if not (name.startswith("{") and name.endswith("}")):
            return None
        slot = self.config.slots.get(name[1:-1])
        if slot is None or slot.type != "list":
            return None
        runs: list[list[tuple[Any, str]]] = [[]] if optional else []
        for length, forms in sorted(self._value_forms(slot.name).items()):
            run = [
                ({"LEMMA": {"IN": sorted({f[k] for f in forms})}}, f"slot:{slot.name}")
                for k in range(length)
            ]
            runs.append(run)
        return runs

    def _add(self, intent: IntentSpec, template: str, weight: float, avoid: bool = False) -> None:
        words = _read_as_said(template.split(), self.written)
        special = any(
            w in (GAP, NUMBER) or "|" in w or w.endswith("?") or w.startswith(("{", "("))
            for w in words
        )
        key = f"{'avoid' if avoid else 'phrase'}|{intent.name}|{template}"
        self.phrase_count += not avoid
        if not special:
            said = " ".join(words)
            inflected = any(self.text.lemma(w) != w for w in self.text.words(said))
            doc = self.text.doc(said.lower())
            rule = PhraseRule(intent.name, template, weight, len(doc), ("lit",) * len(doc), avoid)
            (self._inflected if inflected else self._phrases).add(key, [doc])
            self._rules.setdefault(self.text.vocab.strings[key], []).append(rule)
            return
        wide = any(
            (spec := self.config.slots.get(slot)) is not None
            and spec.type == "list"
            and spec.several
            for slot in intent.slots
        )
        gap = MAX_GAP + VALUE_GAP if wide and GAP in words else MAX_GAP
        variants: list[list[tuple[Any, str]]] = [[]]
        widest = gap
        for i, word in enumerate(words):
            if word == GAP:
                # the words before a value captured ("are ... {state}") may hold a
                # longer noun phrase: more determiners ("the blinds in the living room")
                before_value = i + 1 < len(words) and words[i + 1].startswith("{")
                size = max(gap, MAX_GAP + DETERMINER_GAP) if before_value else gap
                widest = max(widest, size)
                runs = [[({"OP": f"{{0,{size}}}"}, "gap")]]
            else:
                runs = self._captures(word, intent) or [
                    _token_spec(word, self.text, self.config, intent)
                ]
            variants = [v + run for v in variants for run in runs]
        for n, variant in enumerate(variants):
            pattern = [spec for spec, _ in variant]
            roles = tuple(role for _, role in variant)
            if not pattern or pattern[0].get("OP") or pattern[-1].get("OP"):
                raise ConfigError(
                    intent.path,
                    intent.line,
                    f"intent {intent.name!r}: phrase {template!r} must start and end with a word",
                )
            literal = sum(1 for r in roles if r != "gap")
            wide_gap = widest > MAX_GAP
            rule = PhraseRule(intent.name, template, weight, literal, roles, avoid, wide_gap)
            variant_key = key if len(variants) == 1 else f"{key}|{n}"
            for first in _first_keys(pattern[0]):
                bucket = self._patterns.get(first)
                if bucket is None:
                    bucket = self._patterns[first] = PatternBucket(self.text.vocab)
                bucket.add(variant_key, pattern)
            self._rules.setdefault(self.text.vocab.strings[variant_key], []).append(rule)

    def find(self, doc: Doc) -> list[Match]:
        """Every phrase of every intent found in ``doc`` (avoid words included)."""
        matches: list[Match] = []
        for matcher in (self._phrases, self._inflected):
            for match_id, start, end in matcher(doc):
                for rule in self._rules[match_id]:
                    matches.append(Match(rule, start, end, tuple(range(start, end))))
        seen: set[tuple[int, int, int, tuple[int, ...]]] = set()
        for bucket in self._buckets_for(doc):
            found: Any = bucket(doc, with_alignments=True)
            for match_id, start, end, align in found:
                # a pattern whose first word is a choice sits in one bucket per choice
                once = (match_id, start, end, tuple(align))
                if once in seen:
                    continue
                seen.add(once)
                for rule in self._rules[match_id]:
                    literal: list[int] = []
                    captures: dict[str, tuple[int, int]] = {}
                    for offset, role_i in enumerate(align):
                        role = rule.roles[role_i]
                        i = start + offset
                        if role == "lit":
                            literal.append(i)
                        elif role.startswith("slot:"):
                            name = role[5:]
                            s, _ = captures.get(name, (i, i))
                            captures[name] = (s, i + 1)
                            literal.append(i)
                    if self._values_captured(doc, captures):
                        matches.append(Match(rule, start, end, tuple(literal), captures))
        return matches

    def _values_captured(self, doc: Doc, captures: dict[str, tuple[int, int]]) -> bool:
        """Each list slot's capture is one of its values, whole ("extra cheese", not
        "extra onion" made of the words of two)."""
        for name, (s, e) in captures.items():
            forms = self._forms.get(name)
            if forms is not None:
                said = tuple(doc[i].lemma_ for i in range(s, e))
                if said not in forms.get(e - s, set()):
                    return False
        return True

    def _buckets_for(self, doc: Doc) -> list[Matcher]:
        """The pattern Matchers whose first word occurs in ``doc``, each once, each of
        the patterns whose other required words ``doc`` has too."""
        keys: set[tuple[str, str]] = set()
        for token in doc:
            keys.add(("LEMMA", token.lemma_))
            keys.add(("LOWER", token.lower_))
            if token.like_num:
                keys.add(("NUM", ""))
        found = (self._patterns[k].matcher_for(keys) for k in sorted(keys) if k in self._patterns)
        return [m for m in found if m is not None]
