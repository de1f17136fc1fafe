"""The ``areas:`` section of the language file: the words that name a part of the house.

"upstairs", "downstairs", "everywhere", "in here" and "the first floor" are
worked out from the home's floors (their levels) and from where a request
comes from, so the words live in YAML and the arithmetic in
`mnemolis.understand.areas`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config.yaml_at import At, as_mapping, lower_words


@dataclass
class AreaWords:
    """Spoken forms of places that are not one area's own name."""

    upstairs: list[str] = field(default_factory=list)  # the floors above
    downstairs: list[str] = field(default_factory=list)  # the floors below
    everywhere: list[str] = field(default_factory=list)  # every area (and none)
    here: list[str] = field(default_factory=list)  # the area the request comes from
    floor_nouns: list[str] = field(default_factory=list)  # "floor", "storey", "level"
    floor_leads: list[str] = field(default_factory=list)  # "on the" (first floor)
    #: Words before an area's name ("in", "at"): after the devices asked for, what follows
    #: them names an area, one the home may not have ("the lights in the cellar").
    leads: list[str] = field(default_factory=list)
    floor_levels: dict[str, int] = field(default_factory=dict)  # "ground" -> 0, "first" -> 1
    #: Words with a meaning of their own that fuzzy matching never turns into a
    #: device or an area ("halfway" is not "hallway", "hot" is not "hob").
    not_names: set[str] = field(default_factory=set)
    #: Device types that go where they are sent ("vacuum the kitchen"): one with no
    #: area of its own serves any area named.
    roaming_types: set[str] = field(default_factory=set)

    def floor_phrases(self) -> dict[str, int]:
        """ "ground floor", "1st floor", "first storey" ... -> their level."""
        phrases: dict[str, int] = {}
        for word, level in self.floor_levels.items():
            for noun in self.floor_nouns:
                phrases[f"{word} {noun}"] = level
        return phrases


_LISTS = ("upstairs", "downstairs", "everywhere", "here", "floor_nouns", "floor_leads", "leads")


def load_areas(data: Any, at: At) -> AreaWords:
    raw = as_mapping(data, at, "areas")
    known = {*_LISTS, "floor_levels", "not_names", "roaming_types"}
    for key in raw:
        if key not in known:
            raise (at / key).error(f"areas: unknown key {key!r} ({', '.join(sorted(known))})")
    words = AreaWords()
    for key in _LISTS:
        setattr(words, key, lower_words(raw.get(key), at / key, key))
    words.not_names = set(lower_words(raw.get("not_names"), at / "not_names", "not_names"))
    words.roaming_types = set(lower_words(raw.get("roaming_types"), at / "roaming_types", "types"))
    levels = as_mapping(raw.get("floor_levels"), at / "floor_levels", "floor_levels")
    for word, level in levels.items():
        if not isinstance(level, int) or isinstance(level, bool):
            raise (at / "floor_levels" / word).error(f"floor level of {word!r} must be an integer")
        words.floor_levels[" ".join(str(word).lower().split())] = level
    return words
