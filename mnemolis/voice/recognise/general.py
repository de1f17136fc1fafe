"""Common English words, most frequent first, from the general model pocketsphinx
ships: what free text is made of, and what speech that is no request sounds like.

Reading them loads the general model and the whole dictionary (0.6 s, 66 MB at its
peak, 32 MB still held after): every start gathers them, so they are kept in the
state directory (`common_words_kept`) and the model is read once per install.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
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


def common_words_kept(count: int, folder: Path | None) -> tuple[tuple[str, float], ...]:
    """`common_words`, kept in ``folder`` (None: not kept) under a name that changes
    with the general model's files, so an upgraded pocketsphinx reads them anew."""
    if folder is None or count <= 0:
        return common_words(count)
    sources = [model_path("en-us/en-us.lm.bin"), model_path("en-us/cmudict-en-us.dict")]
    stamp = "|".join(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in sources)
    key = hashlib.sha1(stamp.encode()).hexdigest()[:16]
    path = folder / f"common-words-{count}-{key}.json"
    try:
        return tuple((str(w), float(p)) for w, p in json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    words = common_words(count)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".common-words-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(words, f)
        os.replace(tmp, path)
    except OSError:  # a read-only state directory: read the model every start
        pass
    return words
