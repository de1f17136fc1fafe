"""A name said with words of a longer one before it: the longer one.

"turn on the floor lamp" where two devices are called "Lamp" and one "LR Floor Lamp 2":
the exact name "lamp" leaves "floor" unexplained, and the words together are the
floor lamp's (its name, or an alias, has every one of them; a number said after the
name counts too: "floor lamp 2"). Only words that are no area, no value and none of the
intent's own words count, and only when none of the devices named exactly has them.
"""

from __future__ import annotations

from collections.abc import Collection

from mnemolis.understand.analysis import Analysis
from mnemolis.understand.names import NameHit, NameIndex


def fuller(
    names: NameIndex,
    a: Analysis,
    hits: list[NameHit],
    start: int,
    taken: Collection[int],
    quiet: Collection[str],
) -> list[NameHit]:
    """The devices named with the words said before the first of ``hits`` (down to
    ``start``, not into ``taken``: areas, the intent's words; nor into a value) and
    its own, when none of those named exactly on its span is; else none."""
    hit = hits[0]
    values = {k for w in a.slot_words for k in range(w.start, w.end)}
    taken = {*taken, *values}
    toks = a.tokens
    i = hit.start
    while i > start and (k := i - 1) not in taken and not toks[k].is_punct:
        if toks[k].lower in quiet and not names.is_name_word(toks[k].lemma):
            break
        i = k
    if i == hit.start:
        return []
    words = [t.lemma for t in toks[i : hit.end]]
    end = hit.end
    if end < len(toks) and toks[end].is_num:  # "floor lamp 2"
        words.append(toks[end].lower)
        end += 1
    found = names.named_with(words, aliases=True)
    on_span = [h for h in hits if (h.start, h.end) == (hit.start, hit.end)]
    same = {k for h in on_span for k in (h.key, *h.alternatives)}
    if not found or found & same:
        return []
    return [NameHit("device", key, i, end) for key in sorted(found)]
