"""Devices called by their name without its type word: "the stairs" for the "stair lights".

A device whose own name ends in a word for its own type ("stair lights", a
light; "porch lamp") is also called by the words before that word, but only
when those words are all a part says besides its verb ("turn off the
stairs"): "night" in "set night mode" is no "night light", and an area said
makes the usual rules apply (a type word only where no run of a name holds it:
"tradfri bulb 3 off" is the "IKEA Tradfri Bulb 3"). So is a device by any run of its
name's words that holds a word no dictionary has, a brand or a model ("the
dyson" for "Dyson Pure Cool", "s31 03" for "Sonoff S31 03"); a run several
devices share is all of them, to ask which. A brand heard slightly wrong ("the elgatto"),
said in words no dictionary has either, is the one brand close enough to it
(`fuzzy_name_cutoff`, with `fuzzy_name_margin` over the next), as a weaker hit.
A word a declined domain's phrase is ("tv": a television, which the home may not have)
names that thing, and is neither a brand nor a stem: "turn on the tv" in a home with no TV
is not the "tv backlight", nor the "tv lamp".
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from mnemolis.core.devices import Device, name_key
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.meaningful_words import meaningful_words
from mnemolis.understand.names import NameHit, NameIndex

_DIGITS = re.compile(r"\d+")

#: A stem heard is a weaker hit than a name said whole (the hit's score).
STEM_SCORE = 95.0


class NameStems:
    """The stem index, rebuilt when the name index's devices change."""

    def __init__(self, names: NameIndex, quiet: frozenset[str] | set[str]) -> None:
        self.names = names
        self.quiet = quiet
        self._built_for: dict[str, Device] | None = None
        self._stems: dict[str, list[str]] = {}
        self._brands: dict[tuple[str, ...], list[str]] = {}  # by the numbers they hold
        self._meaningful: frozenset[str] | None = None

    def hits(self, a: Analysis, start: int, end: int, skip: set[int]) -> list[NameHit]:
        """The devices whose stem is every word of tokens[start:end] but the verb's
        and the quiet ones, when those words run together."""
        said = [
            i
            for i in range(start, end)
            if i not in skip and not a.tokens[i].is_punct and a.tokens[i].lower not in self.quiet
        ]
        if not said:
            return []
        if said[-1] - said[0] + 1 != len(said):
            return self._named_at_end(a, start, end, skip)
        stem = " ".join(a.tokens[i].lemma for i in said)
        index = self._index()
        ids, score = index.get(stem, []), STEM_SCORE
        if not ids and not any(self.names.text.is_dictionary_word(a.tokens[i].lower) for i in said):
            stem, score = self._heard(stem)  # "the elgatto"
            ids = index.get(stem, [])
        return [NameHit("device", i, said[0], said[-1] + 1, score) for i in ids]

    def _named_at_end(self, a: Analysis, start: int, end: int, skip: set[int]) -> list[NameHit]:
        """ "is there post in the mailbox": a stem said last, after "the" or "my", is its
        device when no word of it means anything else (an area, a kind, a class, a value),
        and one device has it."""
        last = end - 1
        while last > start and a.tokens[last].is_punct:
            last -= 1
        for first in range(last, start, -1):
            if a.tokens[first - 1].lower not in self.names.config.language.naming_determiners:
                continue
            if any(i in skip for i in range(first, last + 1)):
                return []
            lemmas = [a.tokens[i].lemma for i in range(first, last + 1)]
            ids = self._index().get(" ".join(lemmas), [])
            known = any(
                h.kind != "device" and h.start <= last and first < h.end for h in a.names
            )  # an area, a room or a kind said there
            if len(ids) == 1 and not known and not any(map(self._means_else, lemmas)):
                return [NameHit("device", ids[0], first, last + 1, STEM_SCORE)]
            return []
        return []

    def _means_else(self, lemma: str) -> bool:
        if self._meaningful is None:
            self._meaningful = frozenset(meaningful_words(self.names.config))
        return self.names.is_noun(lemma) or lemma in self.quiet or lemma in self._meaningful

    def _heard(self, said: str) -> tuple[str, float]:
        """The brand run close enough to ``said``, and how close; else none. Its numbers
        are said exactly: "sonoff s31 04" is no "Sonoff S31 03" heard wrong."""
        brands = self._brands.get(tuple(_DIGITS.findall(said)), [])
        found = process.extract(said, brands, scorer=fuzz.ratio, limit=2)
        cutoff, margin = self.names.fuzzy_cutoff, self.names.fuzzy_margin
        if not found or found[0][1] < cutoff:
            return "", 0.0
        if len(found) > 1 and found[0][1] - found[1][1] < margin:
            return "", 0.0
        return found[0][0], min(found[0][1], STEM_SCORE - 1)

    def _index(self) -> dict[str, list[str]]:
        devices = self.names.devices
        if devices is not self._built_for:
            self._stems = _stems(self.names, devices)
            known = self.names.text.is_dictionary_word
            self._brands = {}
            for stem in self._stems:
                if not all(map(known, stem.split())):
                    self._brands.setdefault(tuple(_DIGITS.findall(stem)), []).append(stem)
            self._built_for = devices
        return self._stems


def _stems(names: NameIndex, devices: dict[str, Device]) -> dict[str, list[str]]:
    stems: dict[str, list[str]] = {}
    things = _declined_words(names)
    for device in devices.values():
        lemmas = names.text.lemmas(name_key(device.name))
        for cut in range(len(lemmas) - 1, 0, -1):
            if things.intersection(lemmas[:cut]):
                break
            if device.type in names.noun_types(" ".join(lemmas[cut:])):
                stems.setdefault(" ".join(lemmas[:cut]), []).append(device.id)
                break
        for run in _brand_runs(names, lemmas, things):
            if device.id not in stems.setdefault(run, []):
                stems[run].append(device.id)
    return stems


def _brand_runs(names: NameIndex, lemmas: list[str], things: set[str]) -> list[str]:
    """The runs of a name's words, shorter than the name, that hold a word that is
    neither a dictionary word nor a number ("dyson", "s31 03", "tradfri bulb")."""
    text = names.text
    brand = [
        not w.isdigit() and w.isalnum() and not text.is_dictionary_word(w) and w not in things
        for w in lemmas
    ]
    runs = []
    for i in range(len(lemmas)):
        for j in range(i + 1, len(lemmas) + 1):
            if j - i < len(lemmas) and any(brand[i:j]):
                runs.append(" ".join(lemmas[i:j]))
    return runs


def _declined_words(names: NameIndex) -> set[str]:
    """The one-word phrases of declined domains ("tv", "radio"): things of their own."""
    return {
        p.text.lower()
        for intent in names.config.intents.values()
        if intent.source is None
        for p in intent.phrases
        if p.text.isalpha()
    }
