"""The item-list guard: "add milk, eggs and bread to the shopping list" is one request.

A conjunction or comma inside a list of items joins items, not requests. A
list of items is what stands between an item verb and the list it goes to
("add milk, eggs and bread to the shopping list", "take eggs and butter off
the list"), or, when the list comes first, what follows it to the end of the
clause ("add to my shopping list milk eggs and bread"). Judged per
occurrence, like the other guards: a conjunction after the list, or one that
opens a request of its own ("... and turn on the light", "... and add
..."), still splits.

The words are data: the slots ``item_verb`` (add, put, remove, check ...)
and ``list_word`` (list, groceries ...) of the intents files, and the
``list_name`` values (shopping, to do ...). Without those slots the guard
does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mnemolis.config import Config
from mnemolis.understand.analysis import Analysis

#: The slots that carry the guard's words.
VERB_SLOT = "item_verb"
LIST_SLOT = "list_word"
NAME_SLOT = "list_name"
#: How far after its verb the list may be named, in tokens.
REACH = 16


class Guarded(Protocol):
    """An occurrence of a conjunction, as `guards.Occurrence` is."""

    kind: str
    start: int
    end: int
    guard: str | None


@dataclass(frozen=True)
class ItemFrame:
    """One "verb ... list" frame: items between verb and list, or after the list."""

    verb: int  # token index of the item verb
    list_start: int  # first token of the list's words ("shopping list")
    list_end: int  # one past the last
    list_first: bool  # "add to my shopping list milk and eggs": the items follow

    def holds(self, position: int, clause_end: int) -> bool:
        if self.list_first:
            return self.list_end <= position < clause_end
        return self.verb < position < self.list_start


class ItemLists:
    """Finds item frames in a query and protects the occurrences inside them."""

    def __init__(self, config: Config) -> None:
        lang = config.language
        self.clause_starts = lang.clause_starts
        self.quiet = lang.stop_words | lang.determiners | lang.prepositions
        self.active = VERB_SLOT in config.slots and LIST_SLOT in config.slots

    def protect(self, a: Analysis, start: int, end: int, occ: Sequence[Guarded]) -> None:
        """Mark each unguarded occurrence that lies inside a list of items."""
        if not self.active or not occ:
            return
        frames = self.frames(a, start, end)
        if not frames:
            return
        verbs = sorted(f.verb for f in frames)
        for o in occ:
            if o.guard is not None:
                continue
            for frame in frames:
                if not frame.holds(o.start, end):
                    continue
                # a second item verb after the occurrence opens a request of its own
                # ("put the music on and add milk to the list")
                limit = frame.list_start if not frame.list_first else end
                if any(o.end <= v < limit for v in verbs):
                    continue
                if self._opens(a, o.end):  # "put the kettle on and what's on the list"
                    continue
                words = a.span_text(frame.list_start, frame.list_end).lower()
                o.guard = f"item list: {a.tokens[frame.verb].lower} ... {words}"
                break

    def frames(self, a: Analysis, start: int, end: int) -> list[ItemFrame]:
        """Every item verb with the list it names within reach, in text order."""
        verbs = [w.start for w in a.slot_words if w.slot == VERB_SLOT and start <= w.start < end]
        lists = sorted(
            (w.start, w.end)
            for w in a.slot_words
            if w.slot in (LIST_SLOT, NAME_SLOT) and start <= w.start and w.end <= end
        )
        frames: list[ItemFrame] = []
        for verb in sorted(set(verbs)):
            after = [(s, e) for s, e in lists if verb < s <= verb + REACH]
            if not after:
                continue
            s, e = self._whole(after)
            between = range(verb + 1, s)
            list_first = all(
                a.tokens[i].lower in self.quiet or a.tokens[i].is_punct for i in between
            )
            frames.append(ItemFrame(verb, s, e, list_first))
        return frames

    @staticmethod
    def _whole(spans: list[tuple[int, int]]) -> tuple[int, int]:
        """The first list words after the verb, joined with the words touching them
        ("shopping" + "list")."""
        s, e = spans[0]
        for s2, e2 in spans[1:]:
            if s2 <= e:
                e = max(e, e2)
            else:
                break
        return s, e

    def _opens(self, a: Analysis, position: int) -> bool:
        if position >= len(a.tokens):
            return False
        tok = a.tokens[position]
        return tok.lower in self.clause_starts or tok.lemma in self.clause_starts
