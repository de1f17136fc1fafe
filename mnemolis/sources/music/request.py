"""What a music request asks for, read from the words of its part (pure, no I/O).

Understanding says which intent a part is and names the room; what to play
("some jazz", "the album kind of blue", "my workout playlist", "something by
the beatles"), how loud, and whether shuffle goes on or off are read here
from the part's own words, with the word lists of `sources/music.yaml`. The
names themselves are looked up in the player's library later (`library`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mnemolis.core.plan import Part
from mnemolis.sources.music.words import MusicWords
from mnemolis.sources.phrasing import Words, ends, starts

_EDGE_PUNCT = ',.;:!?"“”()'


def spoken_words(text: str) -> list[str]:
    """Lower-case words without the punctuation at their edges."""
    out = []
    for raw in text.lower().split():
        word = raw.strip(_EDGE_PUNCT)
        if word:
            out.append(word)
    return out


def _find(words: Sequence[str], phrase: Words) -> int:
    for i in range(len(words) - len(phrase) + 1):
        if tuple(words[i : i + len(phrase)]) == phrase:
            return i
    return -1


def strip_area(words: list[str], areas: Iterable[str], mw: MusicWords) -> list[str]:
    """Drop "in the kitchen", "on the kitchen player", "in here": the player is chosen
    from the part's room, not from its words."""
    forms = sorted({tuple(a.split()) for a in areas if a.strip()}, key=len, reverse=True)
    for i in range(len(words) - 1, -1, -1):
        if words[i] not in mw.areas:
            continue
        j = i + 1
        if j < len(words) and words[j] in ("the", "my", "our"):
            j += 1
        for form in forms:
            if tuple(words[j : j + len(form)]) == form:
                k = j + len(form)
                for noun in mw.player_nouns:
                    if tuple(words[k : k + len(noun)]) == noun:
                        k += len(noun)
                        break
                return words[:i] + words[k:]
    for phrase in mw.here:
        if ends(words, phrase):
            return words[: len(words) - len(phrase)]
    return words


@dataclass(frozen=True)
class PlayQuery:
    """What "play ..." asks for: a kind of name (or None: any kind) and the name."""

    kind: str | None  # artist | album | genre | playlist | title | None
    query: str  # "" when nothing is named: whatever is queued, else the library
    artist: str | None = None  # "so what by miles davis": the title's artist
    shuffle: bool = False
    spoken: str = ""  # the name before fillers were trimmed ("all of me")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "query": self.query,
            "artist": self.artist,
            "shuffle": self.shuffle,
        }


def _trim(words: list[str], mw: MusicWords) -> list[str]:
    changed = True
    while words and changed:
        changed = False
        for phrase in mw.filler_phrases:
            if starts(words, phrase):
                words, changed = words[len(phrase) :], True
            elif ends(words, phrase):
                words, changed = words[: len(words) - len(phrase)], True
        if words and words[0] in mw.fillers:
            words, changed = words[1:], True
        if words and words[-1] in mw.fillers:
            words, changed = words[:-1], True
    return words


def _strip_lead(words: list[str], mw: MusicWords) -> tuple[list[str], bool]:
    """Play verbs and shuffle words at the start, in any order ("shuffle", "play me")."""
    shuffle = False
    changed = True
    while words and changed:
        changed = False
        for phrase in mw.shuffle:
            if starts(words, phrase):
                words, shuffle, changed = words[len(phrase) :], True, True
                break
        for phrase in mw.play_verbs:
            if starts(words, phrase):
                words, changed = words[len(phrase) :], True
                break
    for phrase in mw.shuffle:
        if ends(words, phrase) and len(words) > len(phrase):
            words, shuffle = words[: len(words) - len(phrase)], True
            break
    return words, shuffle


def read_play(text: str, mw: MusicWords, areas: Iterable[str] = ()) -> PlayQuery:
    """ "play the album kind of blue in the kitchen" -> album "kind of blue"."""
    words, shuffle = _strip_lead(strip_area(spoken_words(text), areas, mw), mw)
    kind: str | None = None
    changed = True
    while words and changed:
        changed = False
        if kind is None:
            for name, phrases in mw.before.items():
                marker = next(
                    (p for p in phrases if starts(words, p) and len(words) > len(p)), None
                )
                if marker is not None:
                    kind, words, changed = name, words[len(marker) :], True
                    break
        trimmed = _trim(words, mw)
        if trimmed != words and trimmed:
            words, changed = trimmed, True
    spoken = " ".join(words)
    words = _trim(words, mw)
    for name, phrases in mw.after.items():
        if kind not in (None, name):
            continue
        marker = next((p for p in phrases if ends(words, p) and len(words) > len(p)), None)
        if marker is not None:
            kind, words = name, _trim(words[: len(words) - len(marker)], mw)
            break
    artist = None
    if kind in (None, "title", "album"):
        for i in range(1, len(words) - 1):
            if words[i] in mw.by:
                artist = " ".join(_trim(words[i + 1 :], mw)) or None
                words = _trim(words[:i], mw)
                break
    return PlayQuery(kind, " ".join(words), artist, shuffle, spoken)


@dataclass(frozen=True)
class VolumeChange:
    """A level to set, or a step up or down; neither when nothing was said."""

    level: int | None = None
    step: int | None = None


def read_volume(part: Part, mw: MusicWords) -> VolumeChange:
    """ "to 30", "by 20", "up 10", "to max": a level or a step, from the slot or the words."""
    words = spoken_words(part.text)
    number = part.slots.get("volume")
    if not isinstance(number, int | float) or isinstance(number, bool):
        number = next((int(float(w)) for w in words if _is_number(w)), None)
    for word, level in mw.levels.items():
        if _find(words, tuple(word.split())) >= 0 and number is None:
            return VolumeChange(level=level)
    if number is None:
        return VolumeChange()
    value = max(0, min(100, int(number)))
    before = _word_before_number(words, value)
    if before in mw.step_markers:
        return VolumeChange(step=value)
    if before in mw.level_markers or part.intent == "music.volume_set":
        return VolumeChange(level=value)
    return VolumeChange(step=value)


def _is_number(word: str) -> bool:
    try:
        float(word.rstrip("%"))
    except ValueError:
        return False
    return True


def _word_before_number(words: list[str], value: int) -> str | None:
    for i, w in enumerate(words):
        if _is_number(w) and int(float(w.rstrip("%"))) == value:
            return words[i - 1] if i > 0 else None
    return None


def read_switch(part: Part, mw: MusicWords) -> bool | None:
    """On or off ("turn shuffle off", "stop shuffling", "no repeat"); None when unsaid."""
    state = part.slots.get("state")
    if state in ("on", "off"):
        return bool(state == "on")
    words = spoken_words(part.text)
    if any(_find(words, p) >= 0 for p in mw.off):
        return False
    if any(_find(words, p) >= 0 for p in mw.on):
        return True
    return None
