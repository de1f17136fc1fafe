"""Normalisation: the text every later stage can rely on.

Unicode is folded, control characters removed, whitespace collapsed, the
query cut at a word boundary when it is too long, wake words and politeness
dropped, contractions expanded and numbers in words turned into digits.
Case is kept as typed (capitals help find proper-noun pairs) but nothing
later depends on it: speech arrives lower-case and without commas.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from mnemolis.config import Language

_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "“": '"', "”": '"', "„": '"'})
_SPACE = re.compile(r"\s+")
_HALF = re.compile(r"\b(\d+) and a half\b", re.IGNORECASE)  # "2 and a half" -> "2.5"


@dataclass
class Normalized:
    """The normalised query and what was done to it, for `explain`."""

    original: str
    text: str
    truncated: bool = False
    changes: list[str] = field(default_factory=list)


def _words_pattern(phrases: list[str]) -> re.Pattern[str] | None:
    if not phrases:
        return None
    alts = "|".join(
        re.escape(p).replace(r"\ ", r"\s+") for p in sorted(phrases, key=len, reverse=True)
    )
    return re.compile(rf"(?<![\w'])(?:{alts})(?![\w'])", re.IGNORECASE)


class Normalizer:
    """Compiled once from the language file; `normalize` is pure."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self.max_chars = language.max_query_chars
        wake = _words_pattern(language.wake_words)
        self._wake = (
            re.compile(rf"^\s*(?:{wake.pattern})[\s,.!:;]*", re.IGNORECASE) if wake else None
        )
        # the assistant named at the end is spoken to, not about: "thanks a lot, olly"
        self._wake_end = (
            re.compile(rf"[\s,]+(?:{wake.pattern})[\s,.!?:;]*$", re.IGNORECASE) if wake else None
        )
        self._polite = _words_pattern(language.politeness)
        kept = _words_pattern(language.politeness_kept_before)
        if self._polite and kept:  # "thank you for the help" is the thanks itself
            self._polite = re.compile(
                rf"{self._polite.pattern}(?!\s+(?:{kept.pattern}))", re.IGNORECASE
            )
        self._said_plainly = {**language.sayings, **language.contractions}
        self._contractions = _words_pattern(list(self._said_plainly))
        self._ordinal = None
        if language.ordinals:
            units = "|".join(sorted(language.ordinals, key=len, reverse=True))
            tens = "|".join(w for w, v in language.numbers.items() if v >= 20 and v % 10 == 0)
            months = "|".join(language.months) or "(?!)"
            self._ordinal = re.compile(
                rf"(?<![\w'])(?P<month_before>(?:{months})\s+(?:the\s+)?)?"
                rf"(?P<ord>(?:(?P<tens>{tens})[\s-]+)?(?P<unit>{units}))"
                rf"(?P<month_after>\s+(?:of\s+)?(?:{months}))?(?![\w'])",
                re.IGNORECASE,
            )
        number_words = list(language.numbers) + list(language.multipliers)
        self._number_run = (
            re.compile(
                r"(?<![\w'])(?:{w})(?:(?:[\s-]+(?:and[\s-]+)?)(?:{w}))*(?![\w'])".format(
                    w="|".join(sorted(number_words, key=len, reverse=True))
                ),
                re.IGNORECASE,
            )
            if number_words
            else None
        )

    def normalize(self, query: str) -> Normalized:
        out = Normalized(original=query, text="")
        text = unicodedata.normalize("NFKC", query).translate(_QUOTES)
        cleaned = text
        if not text.isprintable():  # printable text has none of these: most skip the scan
            cleaned = "".join(
                " "
                if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
                else ch
                for ch in text
            )
        if cleaned != text and cleaned.strip() != text.strip():
            out.changes.append("control characters removed")
        text = _SPACE.sub(" ", cleaned).strip()
        if len(text) > self.max_chars:
            cut = text.rfind(" ", 0, self.max_chars + 1)
            text = text[: cut if cut > self.max_chars // 2 else self.max_chars].rstrip()
            out.truncated = True
            out.changes.append(f"cut to {len(text)} characters at a word boundary")
        if self._wake:
            m = self._wake.match(text)
            if m and m.end() < len(text):
                out.changes.append(f"wake word {m.group(0).strip(' ,.!:;')!r} removed")
                text = text[m.end() :]
        if self._wake_end:
            m = self._wake_end.search(text)
            if m and any(ch.isalnum() for ch in text[: m.start()]):
                out.changes.append(f"wake word {m.group(0).strip(' ,.!?:;')!r} removed")
                text = text[: m.start()]
        if self._polite:
            new = self._polite.sub(" ", text)
            # politeness around a request goes; politeness alone is the request ("thank you")
            if new != text and any(ch.isalnum() for ch in new):
                out.changes.append("politeness removed")
                text = new
        text = _HALF.sub(lambda m: f"{m.group(1)}.5", self._words(text, out))
        text = re.sub(r"\s+([,.!?;:])", r"\1", _SPACE.sub(" ", text))
        text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text).strip(" ,;:")
        out.text = text
        return out

    def written(self, text: str) -> str:
        """A phrase or a slot value as written in YAML, read the way a query is:
        contractions expanded and numbers in words as digits ("we'd like" -> "we would
        like", "four cheese" -> "4 cheese"), nothing dropped; so what an owner writes
        matches what is said."""
        return _SPACE.sub(" ", self._words(text, Normalized(original=text, text=""))).strip()

    def _words(self, text: str, out: Normalized) -> str:
        """Contractions expanded, ordinals and numbers in words as digits."""
        if self._contractions:
            text = self._contractions.sub(lambda m: self._expand(m, out), text)
        if self._ordinal:
            text = self._ordinal.sub(lambda m: self._ordinal_digits(m, out), text)
        if self._number_run:
            text = self._number_run.sub(lambda m: self._digits(m, out), text)
        return text

    def _ordinal_digits(self, m: re.Match[str], out: Normalized) -> str:
        """ "twenty fifth" -> "25th"; a lone "fifth" only next to a month."""
        tens, unit = m.group("tens"), m.group("unit")
        if tens is None and not (m.group("month_before") or m.group("month_after")):
            return m.group(0)
        value = self.language.ordinals[unit.lower()]
        if tens is not None:
            value += self.language.numbers[tens.lower()]
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(
            value % 10 if value % 100 not in (11, 12, 13) else 0, "th"
        )
        digits = f"{value}{suffix}"
        out.changes.append(f"{m.group('ord')!r} -> {digits}")
        return m.group(0).replace(m.group("ord"), digits)

    def _expand(self, m: re.Match[str], out: Normalized) -> str:
        word = m.group(0)
        full = self._said_plainly.get(" ".join(word.lower().split()), word)
        if word[:1].isupper():
            full = full[:1].upper() + full[1:]
        if full != word:
            out.changes.append(f"{word!r} -> {full!r}")
        return full

    def _digits(self, m: re.Match[str], out: Normalized) -> str:
        """ "twenty two" -> "22", "one hundred and five" -> "105", "seven thirty" -> "7 30"."""
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w]
        if words == ["one"]:
            return m.group(0)  # "which one", "the one in the kitchen"
        numbers, multipliers = self.language.numbers, self.language.multipliers
        pieces: list[str] = []
        total = current = 0
        started = False
        previous = ""

        def flush() -> None:
            nonlocal total, current, started
            if started:
                pieces.append(str(total + current))
            total = current = 0
            started = False

        for w in words:
            if w == "and":
                if previous not in multipliers:
                    flush()
                    pieces.append("and")
                previous = w
                continue
            if w in multipliers:
                current = max(current, 1) * multipliers[w]
                if multipliers[w] >= 1000:
                    total, current = total + current, 0
            else:
                v = numbers[w]
                if not started:
                    current = v
                elif current and current % 100 == 0 and v < 100:
                    current += v
                elif not current and total and v < 1000:
                    current = v
                elif 20 <= current < 100 and current % 10 == 0 and v < 10:
                    current += v
                else:
                    flush()
                    current = v
            started = True
            previous = w
        flush()
        result = " ".join(pieces)
        if result != m.group(0):
            out.changes.append(f"{m.group(0)!r} -> {result}")
        return result
