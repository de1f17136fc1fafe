"""What a list request asks for, read from the words of its part (pure, no I/O).

"Add milk, eggs and bread to the shopping list": the list is the one the
``list_name`` slot names, else the words before "list" ("the packing list",
"a list called camping"); the items are what is left once the opening words
("add", "i need to buy"), the destination ("to the shopping list") and the
closing words ("off", "as done") are taken away, split at commas and at
"and". Speech has no commas, so a run of words made only of known things to
buy ("milk eggs") is split into them; anything else stays one item.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mnemolis.sources.lists.settings import ListsSettings, ListWords
from mnemolis.sources.phrasing import Words, ends, phrases, starts

GLUE = "\x00"  # joins the words of a name that must not be split
_PUNCT = re.compile(r"[^\w\s',&-]+")


def words_of(text: str) -> list[str]:
    """Lower-case words, commas kept as their own word (they split items)."""
    text = _PUNCT.sub(" ", text.lower()).replace(",", " , ")
    return text.split()


def singular(word: str) -> str:
    """A plain English singular, enough to match "eggs" with "egg"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("oes", "sses", "shes", "ches", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def item_key(text: str) -> str:
    """How an item is compared: lower case, single spaces, its last word singular."""
    words = [w.strip("'") for w in _PUNCT.sub(" ", text.lower()).replace(",", " ").split()]
    words = [w for w in words if w]
    if not words:
        return ""
    return " ".join([*words[:-1], singular(words[-1])])


@dataclass(frozen=True)
class ListRequest:
    """The list meant (None: the default, or the one used last) and the items named."""

    list: str | None
    items: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"list": self.list, "items": list(self.items)}


@dataclass(frozen=True)
class _Mention:
    start: int  # the destination preposition, or the mention itself
    end: int
    name: str | None  # the list's name, when the words give one


class ListReader:
    """Reads list requests with the words of `sources/lists.yaml` and the spoken
    forms of the ``list_name`` slot (``spoken`` -> list name)."""

    def __init__(
        self, settings: ListsSettings, spoken: Mapping[str, str], pairs: Iterable[str] = ()
    ) -> None:
        self.settings = settings
        # names that hold a joiner: the language's fixed pairs and such known items
        joined = [*pairs, *(" ".join(i) for i in settings.words.known_items)]
        self.pairs = phrases(
            [p for p in joined if any((w,) in settings.words.joiners for w in p.split())]
        )
        self.w: ListWords = settings.words
        self.spoken = sorted(
            ((tuple(form.split()), name) for form, name in spoken.items()),
            key=lambda pair: -len(pair[0]),
        )
        self.known = {tuple(item_key(" ".join(i)).split()) for i in self.w.known_items}
        self.longest_known = max((len(k) for k in self.known), default=1)

    # ------------------------------------------------------------------ the list

    def _mention(self, words: list[str], slot: str | None) -> _Mention | None:
        """Where the list is named ("to the packing list"), and its name."""
        w = self.w
        for i, word in enumerate(words):
            hit: tuple[int, str | None] | None = None
            for form, value in self.spoken:
                if tuple(words[i : i + len(form)]) == form:
                    hit = (i + len(form), value)
                    break
            if hit is None and word not in w.list_words:
                continue
            name: str | None
            end, name = hit if hit is not None else (i + 1, None)
            if end < len(words) and words[end] in w.list_words:
                end += 1
            start = i
            if hit is None:  # "the packing list": the words before "list" name it
                while (
                    start > 0
                    and words[start - 1] not in w.destinations
                    and words[start - 1] not in w.determiners
                    and words[start - 1] != ","
                    and words[start - 1] not in w.not_names
                    and i - start < 3
                ):
                    start -= 1
                name = " ".join(words[start:i]) or None
            if name is None and end < len(words) and words[end] in w.named:
                tail = self._strip_tail(words[end + 1 :])  # "a list called camping gear"
                while tail and tail[0] in w.determiners:
                    tail = tail[1:]
                name = " ".join(tail) or None
                end = len(words)
            while start > 0 and words[start - 1] in w.determiners:
                start -= 1
            if start > 0 and words[start - 1] in w.destinations:
                start -= 1
            return _Mention(start, end, slot or name)
        return None

    # ------------------------------------------------------------------ items

    def _strip_lead(self, words: list[str], leads: tuple[Words, ...]) -> list[str]:
        changed = True
        while words and changed:
            changed = False
            for phrase in leads:
                if starts(words, phrase):
                    words, changed = words[len(phrase) :], True
                    break
        return words

    def _strip_tail(self, words: list[str]) -> list[str]:
        changed = True
        while words and changed:
            changed = False
            for phrase in self.w.tail:
                if ends(words, phrase):
                    words, changed = words[: len(words) - len(phrase)], True
                    break
        return words

    def _glue(self, words: list[str]) -> list[str]:
        """Known names with a joiner inside ("fish and chips") become one word."""
        out: list[str] = []
        i = 0
        while i < len(words):
            pair = next((p for p in self.pairs if starts(words[i:], p)), None)
            if pair is None:
                out.append(words[i])
                i += 1
            else:
                out.append(GLUE.join(pair))
                i += len(pair)
        return out

    def _pieces(self, words: list[str], split: bool) -> list[list[str]]:
        pieces: list[list[str]] = [[]]
        i = 0
        while i < len(words):
            if words[i] == ",":
                pieces.append([])
                i += 1
                continue
            joiner = next((j for j in self.w.joiners if split and starts(words[i:], j)), None)
            if joiner is not None:  # ", and bread": the joiner after a comma joins nothing
                if pieces[-1]:
                    pieces.append([])
                i += len(joiner)
                continue
            pieces[-1].append(words[i].replace(GLUE, " "))
            i += 1
        return [p for p in pieces if p]

    def _known_run(self, piece: list[str]) -> list[str] | None:
        """ "milk eggs" -> ["milk", "eggs"] when every word is a known thing to buy."""
        out: list[str] = []
        i = 0
        while i < len(piece):
            for size in range(min(self.longest_known, len(piece) - i), 0, -1):  # longest first
                candidate = piece[i : i + size]
                if tuple(item_key(" ".join(candidate)).split()) in self.known:
                    out.append(" ".join(candidate))
                    i += size
                    break
            else:
                return None
        return out

    def split_items(self, words: list[str], split: bool = True) -> list[str]:
        items: list[str] = []
        for piece in self._pieces(self._glue(words), split):
            while len(piece) > 1 and piece[0] in self.w.item_fillers:
                piece = piece[1:]
            if piece and piece[0] in self.w.item_fillers and len(piece) == 1:
                continue
            run = self._known_run(piece) if split and len(piece) > 1 else None
            items.extend(run or [" ".join(piece)])
        seen: set[str] = set()
        out = []
        for item in items:
            key = item_key(item)
            if key and key not in seen:
                seen.add(key)
                out.append(item)
        return out

    def read(
        self, text: str, slot: str | None, items: bool = True, asking: bool = False
    ) -> ListRequest:
        """The list and the items of one part ("add milk and eggs to the shopping list");
        ``items`` off reads only the list, ``asking`` reads the items of a question ("is
        milk on the list"), and none when the part is not one."""
        words = words_of(text)
        mention = self._mention(words, slot)
        name = mention.name if mention else slot
        if mention is not None:
            words = words[: mention.start] + words[mention.end :]
        if not items:
            return ListRequest(name)
        if asking:
            if any(starts(words, p) for p in self.w.ask):
                words = self._strip_lead(words, self.w.ask)
            elif len(words) > 1 and (words[-1],) in self.w.ask and words[0] not in self.w.not_names:
                # "if milk is on the list"
                words = words[:-1]
            else:  # "what is on the list": a question about the list, not about items
                return ListRequest(name)
        else:
            words = self._strip_lead(words, self.w.lead)
        words = self._strip_tail(words)
        while words and words[0] in (",", *self.w.determiners):
            words = words[1:]
        split = self.settings.splits(name or self.settings.default_list)
        return ListRequest(name, tuple(self.split_items(words, split)))
