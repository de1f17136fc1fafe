"""Which article answers a topic, and what the topic is when no slot says.

Titles are compared on a key: lower case, "&" read as "and", punctuation and
a leading article ("The Beatles") ignored. An exact title wins, then a title
that differs only by its qualifier ("Mercury (planet)"), then near spellings,
then titles that contain the topic or are contained in it. List pages lose
unless a list was asked for. All word lists come from the language file and
`sources/kiwix.yaml`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz

from mnemolis.config import Language
from mnemolis.sources.kiwix.article_text import is_list_title
from mnemolis.sources.kiwix.settings import TextRules

#: A match this good ends the search: no further stage or book is asked.
STRONG = 90.0
#: A match this good makes full-text search unnecessary.
GOOD = 80.0
#: Below this a title does not answer the topic by itself.
ACCEPT = 55.0
LIST_PENALTY = 30.0

_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
_NOT_WORD = re.compile(r"[^\w\s]+")
_WORDS = re.compile(r"[\w'’&.-]+")


@dataclass(frozen=True)
class TitleMatch:
    """How well a title fits a topic; ``how`` says why, for provenance."""

    score: float
    how: str  # exact | qualified | near | contains | within | weak


def strip_qualifier(title: str) -> str:
    return _QUALIFIER.sub("", title)


class TitleMatcher:
    def __init__(self, language: Language, rules: TextRules) -> None:
        self.rules = rules
        self.minor = language.stop_words  # words a title keeps in lower case
        self.articles = {w for w in language.determiners if w in language.stop_words}
        self.empty = language.stop_words | language.filler_words

    def key(self, text: str) -> str:
        lowered = text.casefold().replace("&", " and ").replace("’", "'").replace("'", "")
        words = _NOT_WORD.sub(" ", lowered).split()
        if len(words) > 1 and words[0] in self.articles:
            words = words[1:]
        return " ".join(words)

    def content_words(self, text: str) -> set[str]:
        return {w for w in self.key(text).split() if w not in self.empty}

    def variants(self, topic: str) -> list[str]:
        """Spellings to look up exactly: as said, "Sentence case", "Title Case", and
        "Title Case with minor words small" ("Pride and Prejudice")."""
        words = topic.split()
        if not words:
            return []
        capital = [w[:1].upper() + w[1:] for w in words]
        styled = [
            c if i == 0 or w.lower() not in self.minor else w.lower()
            for i, (w, c) in enumerate(zip(words, capital, strict=True))
        ]
        sentence = [capital[0], *words[1:]]
        out: list[str] = []
        for form in (words, sentence, styled, capital):
            text = " ".join(form)
            if text not in out:
                out.append(text)
        return out

    def match(self, topic: str, title: str) -> TitleMatch:
        found = self._match(topic, title)
        if is_list_title(title, self.rules) and not is_list_title(topic, self.rules):
            return TitleMatch(found.score - LIST_PENALTY, found.how)
        return found

    def _match(self, topic: str, title: str) -> TitleMatch:
        wanted = self.key(topic)
        full = self.key(title)
        if not wanted or not full:
            return TitleMatch(0.0, "weak")
        if wanted == full:
            return TitleMatch(100.0, "exact")
        bare = self.key(strip_qualifier(title))
        if wanted == bare:
            return TitleMatch(STRONG, "qualified")
        ratio = fuzz.ratio(wanted, bare)
        if ratio >= 85:  # "mercuri", "ada lovelase": heard or spelt slightly wrong
            return TitleMatch(78.0 + (ratio - 85) * 11 / 15, "near")
        topic_words = self.content_words(topic) or set(wanted.split())
        title_words = self.content_words(strip_qualifier(title)) or set(bare.split())
        if topic_words <= title_words:
            return TitleMatch(60.0 + 20.0 * len(topic_words) / len(title_words), "contains")
        if title_words <= topic_words:
            return TitleMatch(50.0 + 20.0 * len(title_words) / len(topic_words), "within")
        return TitleMatch(fuzz.token_set_ratio(wanted, bare) * 0.5, "weak")

    def mentions(self, topic: str, text: str) -> bool:
        """Does ``text`` contain every content word of the topic?"""
        words = self.content_words(topic)
        have = set(self.key(text).split())
        return bool(words) and words <= have


class TopicCleaner:
    """The topic of a knowledge question when understanding gave no slot:
    question frames, framing, stop words and filler come off the edges; the
    words inside a name ("pride and prejudice") stay."""

    def __init__(self, language: Language, frames: Iterable[str] = ()) -> None:
        phrases = {*language.topic_framing, *language.colloquial_questions, *frames}
        self.frames = sorted((p for p in phrases if p), key=len, reverse=True)
        self.edge = language.stop_words | language.filler_words | language.question_words
        self.contractions = language.contractions

    def clean(self, text: str) -> str:
        words: list[str] = []
        for word in _WORDS.findall(text.lower().replace("’", "'")):
            word = word.strip(".-")
            if word:
                words.extend(self.contractions.get(word, word).split())
        changed = True
        while changed and words:
            changed = False
            joined = " ".join(words)
            for frame in self.frames:
                if joined == frame or joined.startswith(frame + " "):
                    words = words[len(frame.split()) :]
                    changed = True
                    break
            while words and words[0] in self.edge:
                words.pop(0)
                changed = True
            while words and words[-1] in self.edge:
                words.pop()
                changed = True
        return " ".join(words)


def plain_phrases(phrases: Iterable[str]) -> list[str]:
    """Intent phrases that are plain words ("who wrote"), usable as question frames."""
    return [p for p in phrases if re.fullmatch(r"[a-z' ]+", p)]
