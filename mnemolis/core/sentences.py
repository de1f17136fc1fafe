"""Small text rules for spoken replies: capitals, full stops, sentence edges.

Sources answer in lower-case fragments ("done: the porch light is on") or
whole sentences ("Tomorrow: 80% chance of rain."); a reply joins them, so
each piece is made a sentence here, and split back into sentences where a
reply has to be shortened or a fact said twice dropped.
"""

from __future__ import annotations

import re

ENDINGS = (".", "!", "?")
#: A sentence may end at . ! or ? followed by a space and a capital, a digit or a quote.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“])")
#: ... but not after an initial or a short title ("J. R. R. Tolkien", "Mr. Babbage").
_ABBREVIATION = re.compile(r"(?:^|\s)[A-Z][a-z]{0,2}\.$")
_WORDS = re.compile(r"\w+")


def capitalise(text: str) -> str:
    """The first letter upper-case, the rest untouched ("iPhone" stays only mid-sentence)."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
        if not (ch.isspace() or ch in "\"'“(¿¡"):
            return text
    return text


def as_sentence(text: str) -> str:
    """One sentence: trimmed, capitalised and closed by a full stop when it has none."""
    text = " ".join(text.split())
    if not text:
        return ""
    text = capitalise(text)
    if not text.endswith(ENDINGS) and not text.endswith((".)", '."', ".”")):
        text += "."
    return text


def clause(text: str) -> str:
    """A sentence as the first half of a longer one: no closing full stop."""
    text = " ".join(text.split())
    while text.endswith("."):
        text = text[:-1].rstrip()
    return text


def split_sentences(text: str) -> list[str]:
    """The sentences of a reply, each as said."""
    text = " ".join(text.split())
    out: list[str] = []
    start = 0
    for cut in _BOUNDARY.finditer(text):
        before = text[start : cut.start()]
        if _ABBREVIATION.search(before):
            continue
        out.append(before)
        start = cut.end()
    out.append(text[start:])
    return [s for s in out if s]


def fact_key(sentence: str) -> str:
    """What makes two sentences the same fact: their words, case and punctuation aside."""
    return " ".join(_WORDS.findall(sentence.lower()))
