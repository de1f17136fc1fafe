"""Written names and numbers as they are spoken: the words a recogniser can hear.

A device called ``shelly1pm-kitchen`` or ``Lamp 2`` is said "shelly one p m
kitchen", "lamp two"; the recogniser hears those words and gives back the name
as the configuration writes it (`Vocabulary.display`), so understanding sees
the name it knows.
"""

from __future__ import annotations

import re

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)*|\d+")


def number_words(n: int) -> list[str]:
    """0..999,999 in words, as people say them ("one hundred twenty five")."""
    if n < 0:
        return ["minus", *number_words(-n)]
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        tens, ones = divmod(n, 10)
        return [_TENS[tens]] + ([_ONES[ones]] if ones else [])
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return [_ONES[hundreds], "hundred"] + (number_words(rest) if rest else [])
    if n < 1_000_000:
        thousands, rest = divmod(n, 1000)
        return [*number_words(thousands), "thousand"] + (number_words(rest) if rest else [])
    return [_ONES[int(d)] for d in str(n)]  # a long id is read digit by digit


def _digits(text: str) -> list[str]:
    """A run of digits: a year-like or long id digit by digit, else as a number."""
    if len(text) > 1 and text.startswith("0"):
        return [_ONES[int(d)] for d in text]
    return number_words(int(text))


def spoken_words(text: str) -> list[str]:
    """The words of a written name or sentence, lower-case, numbers in words."""
    text = text.lower().replace("’", "'").replace("&", " and ").replace("+", " plus ")
    words: list[str] = []
    for token in _TOKEN.findall(text):
        words.extend(_digits(token) if token.isdigit() else [token])
    return words
