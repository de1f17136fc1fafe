"""A shipped decline never takes a word the owner's own intents say.

The shipped ``decline.*`` intents (source null) name requests Mnemolis does
not serve ("order a pizza": `decline.shopping`). An owner who writes intents
of their own for such requests ("takeaway.order": "order", "where is my
pizza") serves them now. So a phrase of a shipped decline that is a phrase
of the owner's own served intents, or a single word (not a stop word) that
their phrases say, is given up to the owner: the decline keeps its other
phrases, and `mnemolis check` lists what it gave up. Done once, when the
configuration is read.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from mnemolis.config.intents import IntentSpec

#: A phrase's syntax around its words: gaps, captures, choices, optional marks.
_SYNTAX = re.compile(r"\.\.\.|\{[^}]*\}\??|[()?|]")


def phrase_words(text: str) -> set[str]:
    """The words a phrase says ("where is my (pizza|order)" -> where, is, my, pizza, order)."""
    return {w for w in _SYNTAX.sub(" ", text.lower()).split() if w != "#"}


def _owners(spec: IntentSpec) -> bool:
    """Defined (or overridden) in the owner's files, and served."""
    return spec.source is not None and any(
        not o.shipped and o.how in ("defined", "overridden") for o in spec.origins
    )


def _said(text: str) -> str:
    return " ".join(text.lower().split())


def yield_to_owner(intents: dict[str, IntentSpec], quiet: Collection[str]) -> dict[str, list[str]]:
    """Take from every shipped decline the owner's phrases and the owner's words (those
    not in ``quiet``); what each gave up, by decline."""
    phrases: set[str] = set()
    words: set[str] = set()
    for spec in intents.values():
        if _owners(spec):
            for phrase in spec.phrases:
                phrases.add(_said(phrase.text))
                words |= phrase_words(phrase.text) - set(quiet)
    if not phrases:
        return {}
    given: dict[str, list[str]] = {}
    for spec in intents.values():
        if spec.source is not None or not spec.origins or not spec.origins[0].shipped:
            continue
        taken = [p for p in spec.phrases if _said(p.text) in phrases or _said(p.text) in words]
        if taken:
            spec.phrases = [p for p in spec.phrases if p not in taken]
            given[spec.name] = [p.text for p in taken]
    return given
