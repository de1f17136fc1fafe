"""Compile a vocabulary into the files pocketsphinx reads: a trigram model of the
templates (ARPA, class tokens as words), one class definition per class, a
dictionary cut to the words in use, and the control file that ties them.

A class member is one dictionary entry (``device:kitchen_light``) whose
pronunciation is its words' run together, so "every value fits wherever its
slot stands" costs one entry per value, not one sentence per value and place.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pocketsphinx.lm import ArpaBoLM

from mnemolis.voice.recognise.pronounce import Lexicon
from mnemolis.voice.recognise.vocabulary import FREE, GARBAGE, Vocabulary, class_token, is_class

ARPA = "lm.arpa"
CLASSES = "classes.def"
DICTIONARY = "words.dict"
CONTROL = "lm.ctl"
META = "meta.json"
LM_NAME = "home"
#: Classes of thousands of common words (free text, garbage): reachable by backing
#: off, they would outscore the requests everywhere, so only their n-grams lead in.
CLOSED = (class_token(FREE), class_token(GARBAGE))
CLOSED_UNIGRAM = 1e-7
#: A member's pronunciations are its words' combined, at most this many ways.
MAX_WAYS = 4


@dataclass
class ModelInfo:
    """What was compiled, kept beside the files: enough to read a hypothesis back."""

    #: member token -> [class, text to give back]
    members: dict[str, list[str]] = field(default_factory=dict)
    words: int = 0
    templates: int = 0
    guessed: list[str] = field(default_factory=list)
    owned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    digest: str = ""
    #: the grammar carries its words' other pronunciations (`loadable`): pocketsphinx
    #: must not add them again
    alternates: bool = False

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelInfo:
        data: dict[str, Any] = json.loads(text)
        return cls(**data)


def member_token(cls: str, words: tuple[str, ...]) -> str:
    return f"{cls}:{'_'.join(words)}"


def pronunciations(words: tuple[str, ...], lexicon: Lexicon) -> list[tuple[str, ...]]:
    ways: list[tuple[str, ...]] = [()]
    for word in words:
        prons = lexicon.of(word)
        if not prons:
            return []
        ways = [w + p for w in ways for p in prons][:MAX_WAYS]
    return ways


def add_garbage(vocab: Vocabulary, share: float, longest: int = 4) -> None:
    """Whole sentences of [garbage] words: what speech that is no request becomes."""
    if share <= 0 or not vocab.classes.get(GARBAGE):
        return
    total = sum(t.weight for t in vocab.templates if t.whole)
    each = share * total / longest
    for n in range(1, longest + 1):
        vocab.add(["<s>", *([class_token(GARBAGE)] * n), "</s>"], each)


def compile_model(
    vocab: Vocabulary,
    lexicon: Lexicon,
    out: Path,
    discount: float,
    digest: str,
    final: Path | None = None,
) -> ModelInfo:
    """Write the model's files into ``out`` (the control file naming them in ``final``,
    where they will be read) and return what they hold."""
    out.mkdir(parents=True, exist_ok=True)
    final = final or out
    info = ModelInfo(digest=digest, guessed=lexicon.guessed, owned=lexicon.owned)
    dict_lines: dict[str, list[tuple[str, ...]]] = {}
    missing = set(lexicon.missing)

    # classes: members whose words can all be said
    class_lines: list[str] = []
    live: set[str] = set()
    for cls in sorted(vocab.classes):
        weights = vocab.weights.get(cls, {})
        kept: list[tuple[str, float]] = []
        for words, display in sorted(vocab.classes[cls].items()):
            ways = pronunciations(words, lexicon)
            if not ways:
                continue
            token = member_token(cls, words)
            dict_lines[token] = ways
            info.members[token] = [cls, display]
            kept.append((token, weights.get(words, 1.0)))
        if not kept:
            continue
        live.add(class_token(cls))
        total = sum(w for _, w in kept)
        class_lines.append(f"LMCLASS {class_token(cls)}")
        class_lines += [f"{token} {w / total:.8g}" for token, w in kept]
        class_lines.append(f"END {class_token(cls)}")

    # templates: those whose words can all be said and whose classes have members
    lm = ArpaBoLM(discount_mass=discount)
    used = 0
    for tpl in vocab.templates:
        toks = tpl.tokens
        if any((t in missing) or (is_class(t) and t not in live) for t in toks):
            continue
        used += 1
        _count(lm, toks, tpl.weight)
        for t in toks:
            if not is_class(t) and t not in ("<s>", "</s>"):
                dict_lines.setdefault(t, lexicon.of(t))
    if not used:
        raise ValueError("no sentence of the configuration could be compiled")
    for edge in ("<s>", "</s>"):
        if edge not in lm.grams_1:
            lm.grams_1[edge] = 1e-3
    lm.compute()
    for token in CLOSED:  # entered only where a template leads, never by backing off
        if token in lm.prob_1:
            lm.prob_1[token] = CLOSED_UNIGRAM
    lm.write_file(str(out / ARPA))
    (out / CLASSES).write_text("\n".join(class_lines) + "\n", encoding="utf-8")
    with (out / DICTIONARY).open("w", encoding="utf-8") as handle:
        for word in sorted(dict_lines):
            for n, phones in enumerate(dict_lines[word]):
                name = word if n == 0 else f"{word}({n + 1})"
                handle.write(f"{name} {' '.join(phones)}\n")
    classes = " ".join(sorted(live))
    (out / CONTROL).write_text(
        f"{{ {final / CLASSES} }}\n{final / ARPA} {LM_NAME} {{\n {classes}\n}}\n", encoding="utf-8"
    )
    info.words = len(dict_lines)
    info.templates = used
    info.missing = sorted(missing)
    (out / META).write_text(info.to_json(), encoding="utf-8")
    return info


def _count(lm: ArpaBoLM, toks: tuple[str, ...], weight: float) -> None:
    """Weighted n-gram counts of one template (ArpaBoLM takes fractional counts)."""
    g1: defaultdict[str, float] = lm.grams_1
    for j, w1 in enumerate(toks):
        g1[w1] += weight
        if j + 1 < len(toks):
            w2 = toks[j + 1]
            lm.grams_2[w1][w2] += weight
            if j + 2 < len(toks):
                lm.grams_3[w1][w2][toks[j + 2]] += weight
