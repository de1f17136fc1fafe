"""How each word sounds, in the acoustic model's phones (CMU ARPAbet, no stress).

Three places, in this order: the owner's ``pronunciations.yaml`` in the
configuration directory (a name said the house's own way), the model's
dictionary (135,000 English words), and for a word in neither a guess from
espeak-ng's phonemes (`data/ipa_cmu.yaml`), which reads brand and place names
("zigbee", "tado", "ecobee") about as people do. A word that none can say is
left out of the model and reported, never a failure.

An owner's file::

    pronunciations:
      mnemolis: N EH M AH L IH S        # phones
      tado: [T AA D OW, T EY D OW]      # several ways
      nyx: {sounds like: nicks}         # words that sound the same
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mnemolis.config.yaml_at import At, ConfigError, as_mapping, read_yaml
from mnemolis.core.package_data import load_package_yaml

PRONUNCIATIONS_FILE = "pronunciations.yaml"
ESPEAK = "espeak-ng"
#: The model's phones: anything else in an owner's phones is a typo.
PHONES = frozenset(
    [
        "AA",
        "AE",
        "AH",
        "AO",
        "AW",
        "AY",
        "B",
        "CH",
        "D",
        "DH",
        "EH",
        "ER",
        "EY",
        "F",
        "G",
        "HH",
        "IH",
        "IY",
        "JH",
        "K",
        "L",
        "M",
        "N",
        "NG",
        "OW",
        "OY",
        "P",
        "R",
        "S",
        "SH",
        "T",
        "TH",
        "UH",
        "UW",
        "V",
        "W",
        "Y",
        "Z",
        "ZH",
    ]
)
_STRESS = str.maketrans("", "", "ˈˌ")


@dataclass
class Lexicon:
    """Word -> pronunciations (phone lists), and the words guessed or owned."""

    entries: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    guessed: list[str] = field(default_factory=list)
    owned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def of(self, word: str) -> list[tuple[str, ...]]:
        return self.entries.get(word, [])


def read_dictionary(path: Path, wanted: set[str]) -> dict[str, list[tuple[str, ...]]]:
    """The entries of a CMU-format dictionary for ``wanted`` words (``word(2)`` too)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            head, _, rest = line.partition(" ")
            word = head.split("(", 1)[0]
            if word in wanted:
                found.setdefault(word, []).append(tuple(rest.split()))
    return found


def load_owner_pronunciations(
    path: Path, known: Mapping[str, list[tuple[str, ...]]] | None = None
) -> dict[str, list[tuple[str, ...]]]:
    """The owner's ``pronunciations:``; a wrong entry names its file and line."""
    if not path.is_file():
        return {}
    at = At(path)
    data = as_mapping(read_yaml(path), at, "the file")
    entries = as_mapping(data.get("pronunciations"), at / "pronunciations", "pronunciations")
    out: dict[str, list[tuple[str, ...]]] = {}
    for word, raw in entries.items():
        w_at = at / "pronunciations" / word
        key = " ".join(str(word).lower().split())
        if not key or " " in key:
            raise w_at.error(f"{word!r}: one word a line (say each word of a name alone)")
        ways = raw if isinstance(raw, list) else [raw]
        for n, way in enumerate(ways):
            out.setdefault(key, []).append(
                _one_way(way, w_at / n if len(ways) > 1 else w_at, known)
            )
    return out


def _one_way(
    way: object, at: At, known: Mapping[str, list[tuple[str, ...]]] | None
) -> tuple[str, ...]:
    if isinstance(way, dict) and set(way) == {"sounds like"}:
        words = str(way["sounds like"]).lower().split()
        phones: list[str] = []
        for w in words:
            prons = (known or {}).get(w)
            if not prons:
                raise at.error(f"sounds like: {w!r} is not a word the dictionary knows")
            phones.extend(prons[0])
        return tuple(phones)
    if not isinstance(way, str) or not way.split():
        raise at.error("a pronunciation is phones (N EH M ...) or {sounds like: words}")
    phones_ = tuple(way.upper().split())
    wrong = [p for p in phones_ if p not in PHONES]
    if wrong:
        raise at.error(
            f"unknown phone(s) {', '.join(wrong)}: the phones are {' '.join(sorted(PHONES))}"
        )
    return phones_


def guess(words: Iterable[str], voice: str = "en-us") -> dict[str, tuple[str, ...]]:
    """espeak-ng's reading of each word, in CMU phones; words it cannot read are left out."""
    todo = [w for w in words if w.replace("'", "").isalpha()]
    exe = shutil.which(ESPEAK)
    if not todo or exe is None:
        return {}
    text = "".join(f"{w}.\n" for w in todo)
    try:
        done = subprocess.run(
            [exe, "-q", "--ipa", "--sep=_", "-v", voice, "--stdin"],
            input=text,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
    if len(lines) != len(todo):
        return {}
    table = ipa_table()
    out: dict[str, tuple[str, ...]] = {}
    for word, line in zip(todo, lines, strict=True):
        phones = ipa_to_cmu(line, table)
        if phones:
            out[word] = phones
    return out


def ipa_table() -> dict[str, tuple[str, ...]]:
    data = load_package_yaml("mnemolis.voice.recognise", "ipa_cmu")
    return {str(k): tuple(v) for k, v in data["phones"].items()}


def ipa_to_cmu(line: str, table: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``k_ˈɛɹ`` (espeak-ng, phonemes joined by _ and words by spaces) -> K EH R; empty
    when a phoneme has no CMU phone."""
    phones: list[str] = []
    for unit in line.translate(_STRESS).replace(" ", "_").split("_"):
        unit = unit.strip()
        if not unit:
            continue
        mapped = table.get(unit) or _split_unit(unit, table)
        if mapped is None:
            return ()
        phones.extend(mapped)
    return tuple(phones)


def _split_unit(unit: str, table: Mapping[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """A unit not in the table read as the longest known pieces, left to right."""
    out: list[str] = []
    i = 0
    while i < len(unit):
        for j in range(len(unit), i, -1):
            if unit[i:j] in table:
                out.extend(table[unit[i:j]])
                i = j
                break
        else:
            if unit[i] in "ː̩̃":  # a length or syllabic mark left alone
                i += 1
                continue
            return None
    return tuple(out)


def build_lexicon(words: set[str], dictionary: Path, owner_file: Path | None) -> Lexicon:
    """Pronunciations for ``words``: the owner's first, then the dictionary's, then guesses."""
    base = read_dictionary(dictionary, words)
    owned: dict[str, list[tuple[str, ...]]] = {}
    if owner_file is not None and owner_file.is_file():
        known = read_dictionary(dictionary, _sounds_like_words(owner_file)) | base
        owned = load_owner_pronunciations(owner_file, known)
    lexicon = Lexicon()
    for word in sorted(words):
        if word in owned:
            lexicon.entries[word] = owned[word]
            lexicon.owned.append(word)
        elif word in base:
            lexicon.entries[word] = base[word]
    unknown = sorted(w for w in words if w not in lexicon.entries)
    guessed = guess(unknown)
    for word in unknown:
        if word in guessed:
            lexicon.entries[word] = [guessed[word]]
            lexicon.guessed.append(word)
        else:
            lexicon.missing.append(word)
    return lexicon


def _sounds_like_words(path: Path) -> set[str]:
    """The words an owner's ``sounds like`` entries lean on (read before checking)."""
    try:
        data = read_yaml(path)
    except ConfigError:
        return set()
    entries = data.get("pronunciations") if isinstance(data, dict) else None
    found: set[str] = set()
    for raw in (entries or {}).values() if isinstance(entries, dict) else ():
        for way in raw if isinstance(raw, list) else [raw]:
            if isinstance(way, dict) and "sounds like" in way:
                found.update(str(way["sounds like"]).lower().split())
    return found
