"""Titles as known names: "pride and prejudice" is one thing, not two requests.

Decomposition asks about "X and Y" spans while it splits a query, so the
answer must be instant: a set of lower-cased titles that contain a joiner
("and", "&", "plus"), filled once at start. Only such titles are kept, a small
share of any encyclopedia.
"""

from __future__ import annotations

import re

_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
_PUNCT = re.compile(r"[,;:!?\"“”]+")


class TitleNames:
    """Lower-cased titles with a joiner inside; safe to read while it is filled."""

    def __init__(self, joiners: list[str]) -> None:
        self.joiners = [j for j in joiners if j]
        self._marks = tuple(f" {j} " for j in self.joiners)
        self._names: set[str] = set()

    def __len__(self) -> int:
        return len(self._names)

    def key(self, title: str) -> str | None:
        """The spoken form of a title, or None when it has no joiner in it.

        "Fire and Rain (song)" -> "fire and rain"; "Earth, Wind & Fire" ->
        "earth wind & fire" (its "and" form is added by `add`).
        """
        text = _QUALIFIER.sub("", title).lower().replace("’", "'")
        text = " ".join(_PUNCT.sub(" ", text).split())
        padded = f" {text} "
        return text if any(m in padded for m in self._marks) else None

    def add(self, title: str) -> None:
        key = self.key(title)
        if key is None:
            return
        self._names.add(key)
        if " & " in key and "and" in self.joiners:
            self._names.add(key.replace(" & ", " and "))

    def is_name(self, text: str) -> bool:
        """``text`` is lower-case and single-spaced, as decomposition sends it."""
        if "'" in text:
            text = text.replace(" '", "'")  # the tokenizer split "philosopher 's"
        return text in self._names
