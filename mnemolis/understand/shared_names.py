"""Several devices that share the name said: all of them, or the one a word picks.

"turn off the ceiling fans", "all the ceiling fans": a shared name said in the
plural (its own name is singular) or with an all-word means every device of
that name, not "which one". "the kids desk lamp": a word said just before a
shared name that belongs to the name of one of their areas only (the "kids room",
"emma's room"; "bedroom" of a living room's and a master bedroom's), picks those; a word
of several of their areas ("room"), or of none, picks nothing and the part still asks
which one.
A name said with an area none of its devices is in ("the upstairs ecobee") is the
device named with the same words that is in that area ("Ecobee Upstairs").
"""

from __future__ import annotations

from collections.abc import Callable

from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import AreaScope
from mnemolis.understand.names import NameHit, NameIndex


def every_one(
    a: Analysis,
    hit: NameHit,
    start: int,
    devices: list[Device],
    all_words: set[str],
    area: bool = False,
) -> bool:
    """True when the shared name is said in the plural or after an all-word; a plural
    name ("Blinds") said with an area holding several (``area``: "the blinds downstairs")
    is all of them there too."""
    if any(a.tokens[i].lower in all_words for i in range(start, hit.start)):
        return True
    last = a.tokens[hit.end - 1]
    plural = last.lower != last.lemma and last.lower.endswith("s")
    own = {d.name.lower().split()[-1] for d in devices if d.name.split()}
    return area or (plural and last.lower not in own)


class AreaWords:
    """The lemmas of each area's name and aliases, kept until the areas change."""

    def __init__(self, names: NameIndex) -> None:
        self.names = names
        self._key: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self._words: dict[str, set[str]] = {}

    def words(self) -> dict[str, set[str]]:
        rooms = self.names.registry.rooms()
        key = tuple(sorted((r, tuple(al)) for r, al in rooms.items()))
        if key != self._key:
            lemmas = self.names.text.lemmas
            self._words = {
                room: {w for n in (room, *aliases) for w in lemmas(n.lower())}
                for room, aliases in rooms.items()
            }
            self._key = key
        return self._words

    def pick(
        self,
        a: Analysis,
        hit: NameHit,
        start: int,
        pool: list[Device],
        quiet: Callable[[str], bool],
    ) -> list[Device]:
        """Those of ``pool`` whose area's name has a word said just before the name."""
        said: list[str] = []
        i = hit.start - 1
        while i >= start and not a.tokens[i].is_punct and not quiet(a.tokens[i].lower):
            said.append(a.tokens[i].lemma)
            i -= 1
        if not said:
            return pool
        words = self.words()
        # of the areas the devices are in: "bedroom" is the master bedroom's, of the two
        # ceiling fans' areas, whatever other bedrooms there are
        theirs = [w for room, w in words.items() if any(d.room == room for d in pool)]
        for word in said:
            if sum(word in w for w in theirs) != 1:
                continue  # "room", "upstairs": a word of several of their areas picks none
            having = [d for d in pool if d.room is not None and word in words.get(d.room, ())]
            if having and len(having) < len(pool):
                return having
        return pool


def namesake_in(
    names: NameIndex,
    said: list[str],
    pool: list[Device],
    scope: AreaScope | None,
    roaming: frozenset[str],
) -> list[Device]:
    """ "the upstairs ecobee": a name said with an area none of the devices it names is
    in is the device named with the same words that is there ("Ecobee Upstairs"), when
    one is: a named area is respected. Otherwise the devices named."""
    if scope is None or scope.everywhere or any(scope.holds(d, roaming) for d in pool):
        return pool
    kinds = {d.type for d in pool}
    there = [
        d
        for i in names.named_with(said)
        if (d := names.device(i)) is not None and d.type in kinds and scope.holds(d, roaming)
    ]
    return there if len(there) == 1 else pool
