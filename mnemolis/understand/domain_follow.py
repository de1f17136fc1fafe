"""A part of a request that keeps to the domain the part before it is in.

"take the olives off and add a coke": the first part is the takeaway's, and "add a coke"
is made of "add", which the takeaway's own phrase "add ... to the order" begins with, and
a value of the takeaway's slots. Said after the order, the phrase's tail is left unsaid:
the part is the order's, not an item for the shopping list. Only a part whose words are
all that phrase's and values of that intent's list slots follows; "and add milk to the
shopping list" names a list of its own and stays the list's.

"a large stuffed crust meat feast please": a part that is nothing but values of the list
slots of an intent marked `values_alone` (and polite or quiet words, and how many: "one
large meat feast") is that intent, as a device's name alone is the intent marked
`name_alone` for it.

"water the hanging baskets daily": a part routed to one of a domain's intents by a phrase
("water") that another of its intents' phrases begins with ("water ... every"), with words
left that are values of that other intent's list slots only ("daily", a weekday), is that
other intent's: the values say which of the two is meant.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.intents import GAP
from mnemolis.understand.route import Routed


@dataclass(frozen=True)
class Follow:
    """The intent of the previous part's domain that the part means, and its words."""

    intent: str
    said: tuple[int, ...]


def domain_of(intent: str) -> str:
    return intent.split(".", 1)[0]


def follows(config: Config, a: Analysis, before: Part | None, routed: Routed) -> Follow | None:
    """The intent of ``before``'s domain whose phrase ``routed``'s words begin, when the
    rest of the part is values of that intent's list slots."""
    best = routed.best
    if before is None or before.intent is None or best is None:
        return None
    domain = domain_of(before.intent)
    if domain_of(best.intent.name) == domain or not best.match.literal:
        return None
    return _begun(config, a, routed, domain, set(), punct=True)


def sibling(config: Config, a: Analysis, routed: Routed) -> Follow | None:
    """The other intent of ``routed``'s domain whose phrase its phrase's words begin, when
    the words its own intent leaves are values of that intent's list slots."""
    best = routed.best
    if best is None or best.intent.source is None or not best.match.literal:
        return None
    own = _valued(config, a, best.intent.slots)
    name = best.intent.name
    return _begun(config, a, routed, domain_of(name), own, punct=False, but=name)


def _valued(config: Config, a: Analysis, slots: list[str]) -> set[int]:
    """The tokens said as values of these of an intent's slots that are lists."""
    lists = {s for s in slots if (slot := config.slots.get(s)) and slot.type == "list"}
    return {i for w in a.slot_words if w.slot in lists for i in range(w.start, w.end)}


def _begun(
    config: Config,
    a: Analysis,
    routed: Routed,
    domain: str,
    own: set[int],
    *,
    punct: bool,
    but: str = "",
) -> Follow | None:
    """The intent of ``domain`` (not ``but``) with a phrase ``routed``'s phrase words
    begin, whose list slots' values are every word left (not ``own``, not quiet; with
    ``punct``, a punctuation mark is a word left too)."""
    said = routed.best.match.literal if routed.best else ()
    words = [a.tokens[i].lower for i in said]
    quiet = config.language.stop_words | config.language.determiners
    rest = [
        i
        for i in range(routed.start, routed.end)
        if i not in said and i not in own and a.tokens[i].lower not in quiet
        if punct or not a.tokens[i].is_punct
    ]
    if not rest:
        return None
    for name, spec in config.intents.items():
        if domain_of(name) != domain or name == but or spec.source is None:
            continue
        if not _valued(config, a, spec.slots).issuperset(rest):
            continue
        for phrase in spec.phrases:
            head = phrase.text.split(GAP, 1)[0].split()
            if GAP in phrase.text and head == words:
                return Follow(name, said)
    return None


def values_alone(config: Config, a: Analysis, start: int, end: int) -> str | None:
    """The intent marked `values_alone` whose list slots' values are every word of the
    part but quiet and polite ones; of several, the one of highest priority."""
    lang = config.language
    quiet = lang.stop_words | lang.determiners | lang.filler_words | set(lang.politeness)
    quiet |= set(lang.numbers)  # "one large meat feast": how many is no word left over
    rest = [i for i in range(start, end) if a.tokens[i].lower not in quiet]
    rest = [i for i in rest if not a.tokens[i].is_punct and not a.tokens[i].lower.isdigit()]
    if not rest or any(m.inside(start, end) for m in a.matches):
        return None
    found = []
    for name, spec in config.intents.items():
        if not spec.values_alone or spec.source is None:
            continue
        if _valued(config, a, spec.slots).issuperset(rest):
            found.append((spec.priority, name))
    return max(found)[1] if found else None
