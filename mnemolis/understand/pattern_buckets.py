"""The token patterns that start on one word, run only as far as a query can match them.

`IntentMap` keeps one spaCy Matcher per first word of its token patterns.
The bucket of "is" holds over a hundred ("is ... low", "is ... going off",
"is ... {state}"), each with a gap, and a Matcher tries every pattern it
holds at every token: "what is the weather" pays for all of them, though
none of their other words is there. A pattern can only match a query that
has each of its required words (a word that is neither optional nor a gap),
so a large bucket runs a Matcher of just the patterns whose required words
the query has, in the bucket's order. A Matcher's states are kept in order
and a pattern that cannot match adds no match, so these Matchers find
exactly the bucket's matches, in the same order.
"""

from __future__ import annotations

from typing import Any

from mnemolis.understand.spacy_lite import Matcher, Vocab

#: Buckets with fewer patterns run whole: checking them would cost what it saves.
SMALL = 16
#: Matchers of subsets kept per bucket (the same few subsets recur).
KEPT = 256
#: Which patterns a query's words leave viable, kept per bucket by those words.
KEPT_VIABLE = 256

Key = tuple[str, str]


def spec_keys(spec: dict[str, Any]) -> tuple[Key, ...] | None:
    """The words (as `IntentMap` keys a query's tokens) one of which a token spec
    needs, or None when it needs none: optional, a gap, or a kind not told apart."""
    if spec.get("OP"):
        return None
    if spec.get("LIKE_NUM") is True and len(spec) == 1:
        return (("NUM", ""),)
    if len(spec) != 1:
        return None
    attr, value = next(iter(spec.items()))
    if attr not in ("LEMMA", "LOWER"):
        return None
    if isinstance(value, str):
        return ((attr, value),)
    if isinstance(value, dict) and set(value) == {"IN"}:
        return tuple((attr, str(v)) for v in value["IN"])
    return None


class PatternBucket:
    """The patterns of one first word: a Matcher of all, and of the subsets a query needs."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.matcher = Matcher(vocab)
        self._entries: list[tuple[str, list[dict[str, Any]], list[frozenset[Key]]]] = []
        self._subsets: dict[tuple[int, ...], Matcher] = {}
        self._relevant: set[Key] = set()  # every word some pattern requires
        self._viable: dict[frozenset[Key], tuple[int, ...]] = {}  # by the query's words

    def add(self, key: str, pattern: list[dict[str, Any]]) -> None:
        required = [frozenset(k) for k in map(spec_keys, pattern) if k is not None]
        self._entries.append((key, pattern, required))
        self._relevant.update(*required)
        self._viable.clear()
        self.matcher.add(key, [pattern])

    def matcher_for(self, keys: set[Key]) -> Matcher | None:
        """The Matcher for a query whose tokens give ``keys``; None when no pattern of
        the bucket can match it."""
        if len(self._entries) < SMALL:
            return self.matcher
        said = frozenset(keys & self._relevant)  # all that decides which patterns may match
        viable = self._viable.get(said)
        if viable is None:
            viable = tuple(
                i
                for i, (_, _, required) in enumerate(self._entries)
                if all(not said.isdisjoint(spec) for spec in required)
            )
            if len(self._viable) < KEPT_VIABLE:
                self._viable[said] = viable
        if not viable:
            return None
        if len(viable) == len(self._entries):
            return self.matcher
        found = self._subsets.get(viable)
        if found is None:
            found = Matcher(self.vocab)
            for i in viable:
                key, pattern, _ = self._entries[i]
                found.add(key, [pattern])
            if len(self._subsets) < KEPT:
                self._subsets[viable] = found
        return found
