"""The lemma tables the router reads, shipped with the package.

Copied from spacy-lookups-data 1.0.5 (MIT, © ExplosionAI GmbH; its English
tables come from WordNet 3.0, © Princeton University): ``en_lemma_lookup``
as it is, and the verbs of ``en_lemma_index`` as a sorted list. The whole of
spacy-lookups-data is ~99 MB of tables for every language; these two are
230 kB. Both licences ask that their notice travel with the copies:
``data/LICENSE-spacy-lookups-data.txt`` and ``data/LICENSE-WordNet.txt``.
"""

from __future__ import annotations

import gzip
import json
from importlib.resources import files
from typing import Any


def _read(name: str) -> Any:
    data = files("mnemolis.understand").joinpath("data", name)
    try:
        raw = data.read_bytes()
    except FileNotFoundError:
        return None
    return json.loads(gzip.decompress(raw))


def lemma_lookup(code: str) -> dict[str, str]:
    """Word -> lemma for the language ``code``; a language without a shipped table
    is a `ValueError` naming the file it needs."""
    table: Any = _read(f"{code}_lemma_lookup.json.gz")
    if not isinstance(table, dict):
        raise ValueError(
            f"no lemma table for the language {code!r}: Mnemolis ships "
            f"mnemolis/understand/data/{code}_lemma_lookup.json.gz for English only"
        )
    return table  # every value a string: checked when the table was copied


def base_verbs(code: str) -> frozenset[str]:
    """The base forms of the language's verbs ("help", "locate"); none when not shipped."""
    verbs = _read(f"{code}_verbs.json.gz")
    return frozenset(str(v) for v in verbs) if isinstance(verbs, list) else frozenset()
