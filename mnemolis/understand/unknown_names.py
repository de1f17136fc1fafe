"""Words that name something the home does not have: an area, or a device of a kind.

A request that names a place or a device the home lacks is about that thing, not
about the nearest thing the home has: "turn on the lights in the cellar" is no
request for every light of the house, "activate the ninja scene" none for the one
scene there is. So, for the devices a part asks for:

- after an area lead (``areas.leads`` of the language file: "in", "at") that
  follows the devices asked for, words that are not a name of the home, a value,
  a number nor a quiet word name an area the home does not have;
- words said between a naming determiner (``naming_determiners``: "the", "my")
  and a type word ("the *ninja* scene") narrow it to the devices named with
  them; when no device is, and they are words the home does not know (not a
  name's word, a phrase's, a value, a number, nor close to a word of the name of
  a device of that kind), they name a device it does not have;
- words said right after a type word or a brand that go on like a name (numbers and
  words of the home's names, "sonoff *basic 3*") narrow it to the devices named
  with them all; when none is, they name a device the home does not have, never
  the one device the brand alone would mean ("sonoff_basic_1"; of several, which?).

Either way the part gets no device and says what it did not find (`Targets.unknown`,
the part's ``unknown`` provenance), so the answer can name what exists.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.names import NameHit, NameIndex

#: A word that starts a name's word (or that a name's word starts) is that word said
#: another way when it is at least this long ("robotic" and "robot").
PREFIX = 4


class UnknownNames:
    """Finds the words of a part that name an area or a device the home lacks."""

    def __init__(self, config: Config, names: NameIndex) -> None:
        lang = config.language
        self.names = names
        self.leads = frozenset(lang.areas.leads)
        self.determiners = lang.determiners
        self.naming = lang.naming_determiners
        self.quiet = lang.stop_words | lang.filler_words | lang.determiners
        self.all_words = lang.all_words

    def area(
        self, a: Analysis, start: int, end: int, hits: Sequence[NameHit]
    ) -> tuple[int, int] | None:
        """The words after an area lead that name no area ("in the cellar"), when the
        lead follows the devices asked for (a type word or a name)."""
        named = {i for h in hits for i in range(h.start, h.end)}
        values = {i for w in a.slot_words for i in range(w.start, w.end)}
        asked = [h for h in hits if h.kind in ("noun", "device")]
        toks = a.tokens
        for i in range(start, end - 1):
            if toks[i].lower not in self.leads:
                continue
            if not any(
                h.end <= i and all(toks[k].lower in self.quiet for k in range(h.end, i))
                for h in asked
            ):
                continue
            j = i + 1
            while j < end and toks[j].lower in self.determiners:
                j += 1
            k = j
            while k < end and not self._explained(a, k, named, values):
                k += 1
            if k > j and (k == end or toks[k].is_punct or toks[k].lower in self.quiet):
                return j, k
        return None

    def _explained(self, a: Analysis, i: int, named: set[int], values: set[int]) -> bool:
        tok = a.tokens[i]
        return tok.is_punct or tok.is_num or tok.lower in self.quiet or i in named or i in values

    def narrow(
        self,
        a: Analysis,
        noun: NameHit,
        start: int,
        skip: set[int],
        tiers: list[list[Device]],
    ) -> tuple[list[list[Device]], tuple[int, int] | None]:
        """ "the bedside lamps": words said before a type word narrow it to the devices
        whose names have them, when some do; when none does and the words are unknown to
        the home ("the ninja scene"), no device, and the words that named nothing."""
        words: list[str] = []
        i = noun.start - 1
        while i >= start and i not in skip:
            tok = a.tokens[i]
            # a quiet word may be a name's own ("the right bedside lamp")
            quiet = tok.lower in self.quiet and not self.names.is_name_word(tok.lemma)
            if tok.is_punct or quiet or tok.lower in self.all_words:
                break
            words.insert(0, tok.lemma)
            i -= 1
        if not words:
            return tiers, None
        # an alias's words too: "the ceiling light" is the kitchen's "kitchen ceiling
        # light" as much as the "bedroom ceiling", so one of them is asked about
        having = self.names.named_with(words, aliases=True)
        if having:
            for tier in tiers:
                narrowed = [d for d in tier if d.id in having]
                if narrowed:
                    return [narrowed], None
            if self._names_others(a, range(i + 1, noun.start), tiers):
                # "is the car charged": the car is named, and no device of the car's
                # charges; never the phone's charging sensor
                return [], (i + 1, noun.end)
            return tiers, None
        said = range(i + 1, noun.start)
        if i < start or i in skip or a.tokens[i].lower not in self.naming:
            return tiers, None  # "change light colour", "a new light": not a name
        # a word of a phrase ("how many lights"), a value, a number or a name's word says
        # something of its own: only words the home does not know at all name nothing
        known = {k for w in a.slot_words for k in range(w.start, w.end)}
        known |= {k for m in a.matches for k in m.literal}
        unknown = all(
            not a.tokens[k].is_num
            and k not in known
            and not self.names.is_name_word(a.tokens[k].lemma)
            and not self.names.is_noun(a.tokens[k].lower)
            for k in said
        )
        if unknown and self._heard_as(a, said, tiers):
            unknown = False  # "the robotic vacuum": the "robot vacuum", said another way
        return ([], (said.start, noun.end)) if unknown else (tiers, None)

    def after(
        self, a: Analysis, noun: NameHit, end: int, skip: set[int], tiers: list[list[Device]]
    ) -> tuple[list[list[Device]], tuple[int, int] | None]:
        """ "turn off sonoff basic 3": the numbers and name words said right after a type
        word or a brand narrow it to the devices named with them all (their own names or
        an alias); when none is, the words named a device the home does not have (of
        several the word alone means, the part asks which)."""
        known = {k for w in a.slot_words for k in range(w.start, w.end)}
        known |= {k for m in a.matches for k in m.literal}
        words: list[str] = []
        k = noun.end
        while k < end and k not in skip and k not in known:
            tok = a.tokens[k]
            if tok.lower in self.quiet or not (tok.is_num or self.names.is_name_word(tok.lemma)):
                break
            words.append(tok.lemma)
            k += 1
        if not words or not any(w.isdigit() for w in words):
            return tiers, None
        having = self.names.named_with([noun.key, *words], aliases=True)
        narrowed = [[d for d in tier if d.id in having] for tier in tiers]
        if any(narrowed):
            return [t for t in narrowed if t], None
        if tiers and len(tiers[0]) > 1:
            return tiers, None  # "switch off lamp 3" with lamps 1 and 2: which lamp?
        return [], (noun.start, k)

    def _names_others(self, a: Analysis, said: range, tiers: list[list[Device]]) -> bool:
        """Every word said names other devices than those of the kind asked for, and
        none of the kind's names has it: a device of another kind is meant."""
        kind = {w for tier in tiers for d in tier for w in self.names.name_words(d)}
        lemmas = [a.tokens[k].lemma for k in said]
        return all(
            self.names.is_name_word(w) and not self.names.is_noun(w) and w not in kind
            for w in lemmas
        )

    def _heard_as(self, a: Analysis, said: range, tiers: list[list[Device]]) -> bool:
        """A word said close to a word of the name of a device of the kind asked for (one
        the start of the other, or near by `fuzzy_name_cutoff`)."""
        words = {w for tier in tiers for d in tier for w in self.names.name_words(d)}
        for k in said:
            lemma = a.tokens[k].lemma
            for word in words:
                short, long_ = sorted((lemma, word), key=len)
                if len(short) >= PREFIX and long_.startswith(short):
                    return True
                if fuzz.ratio(lemma, word) >= self.names.fuzzy_cutoff:
                    return True
        return False
