"""Common English words, most frequent first, from the general model pocketsphinx
ships: what free text is made of, and what speech that is no request sounds like.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import pocketsphinx

#: pocketsphinx's log base (``logbase``): probabilities come back as log_1.0001.
_LOG_BASE = math.log(1.0001)


def model_path(name: str) -> Path:
    return Path(pocketsphinx.get_model_path(name))


@cache
def common_words(count: int) -> tuple[tuple[str, float], ...]:
    """The ``count`` most likely single words of the general model, with their
    unigram probability (relative), letters and apostrophes only."""
    if count <= 0:
        return ()
    config = pocketsphinx.Config()
    lm = pocketsphinx.NGramModel(
        config, pocketsphinx.LogMath(), str(model_path("en-us/en-us.lm.bin"))
    )
    scored: list[tuple[int, str]] = []
    seen: set[str] = set()
    with model_path("en-us/cmudict-en-us.dict").open(encoding="utf-8", errors="replace") as f:
        for line in f:
            word = line.split(" ", 1)[0]
            if "(" in word or word in seen or not word.replace("'", "").isalpha():
                continue
            seen.add(word)
            try:
                scored.append((lm.prob([word]), word))
            except (KeyError, RuntimeError, ValueError):
                continue
    scored.sort(reverse=True)
    return tuple((w, math.exp(p * _LOG_BASE)) for p, w in scored[:count])
