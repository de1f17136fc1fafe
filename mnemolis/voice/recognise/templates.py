"""The configuration's sentences as templates: examples with their names, values and
free text turned into [class] tokens, phrases expanded into fragments, and the
spoken joins of `data/spoken.yaml`.

An example "turn on the kitchen light" with ``slots: {device: kitchen light}``
becomes "turn on the [device]", so it teaches the model a way to say a request
about every device; a phrase "switch|turn ... on" becomes the fragments "switch
the [device] on", "turn the [noun] on", ... (n-grams only, not whole sentences).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from mnemolis.config import Config, IntentSpec
from mnemolis.config.intents import Example
from mnemolis.core.devices import READ_ACTION
from mnemolis.core.package_data import load_package_yaml
from mnemolis.voice.recognise.patterns import typed_class
from mnemolis.voice.recognise.spoken import number_words, spoken_words
from mnemolis.voice.recognise.vocabulary import (
    FREE,
    NAME_CLASSES,
    NUMBER,
    Vocabulary,
    class_token,
    is_class,
)

#: A phrase's gap ("turn ... on"): what usually stands there.
GAP_FILLS: tuple[tuple[str, ...], ...] = (("the", "[device]"), ("the", "[noun]"), ("it",))
#: At most this many fragments from one phrase (choices multiply).
MAX_VARIANTS = 12
#: Free text in an example is this many [free] words at most.
MAX_FREE = 6
#: Classes that may be empty in a home, and the free words that stand in for them.
FALLBACK: dict[str, tuple[str, ...]] = {
    "item": (FREE,),
    "music": (FREE, FREE),
    "title": (FREE, FREE),
}
_NUMBER_WORDS = frozenset(w for n in (*range(20), *range(20, 100, 10)) for w in number_words(n)) | {
    "hundred",
    "thousand",
}
PHRASE_WEIGHT = 0.5
OPENER_WEIGHT = 0.05


def spoken_scaffold() -> dict[str, list[str]]:
    """`data/spoken.yaml`: fragments and sentences with [class] slots."""
    data = load_package_yaml("mnemolis.voice.recognise", "spoken")
    return {k: [str(x) for x in data.get(k) or []] for k in ("fragments", "sentences")}


def _find(words: Sequence[str], span: Sequence[str], taken: Sequence[bool]) -> int:
    n = len(span)
    for i in range(len(words) - n + 1):
        if list(words[i : i + n]) == list(span) and not any(taken[i : i + n]):
            return i
    return -1


class ExampleReader:
    """Turns examples into templates, claiming names, slot values and numbers."""

    def __init__(self, vocab: Vocabulary, config: Config) -> None:
        self.vocab, self.config = vocab, config
        self.names: dict[tuple[str, ...], str] = {}
        for cls in reversed(NAME_CLASSES):  # a device's name wins over an area's
            for key in vocab.classes.get(cls, {}):
                self.names[key] = cls
        self.longest = max((len(k) for k in self.names), default=0)

    def _slot_spans(self, name: str, value: Any) -> tuple[list[list[str]], str | None]:
        """The spoken forms a labelled slot's value may take in the text, and its class."""
        slot = self.config.slots.get(name)
        if slot is None or value is None or isinstance(value, bool | dict | list):
            return [], None
        text = str(value)
        forms = [spoken_words(text)]
        if slot.type == "device":
            return forms, "device"
        if slot.type == "room":
            return forms, "area"
        if slot.type == "place":
            return forms, "location"
        if slot.type == "list":
            forms += [spoken_words(f) for f, v in slot.values.items() if v == text]
            return forms, f"slot.{slot.name}"
        if slot.type == "number":
            if isinstance(value, int | float) and float(value).is_integer():
                forms.append(number_words(int(value)))
            forms += [spoken_words(f) for f, v in slot.values.items() if v == text]
            return forms, NUMBER
        if slot.type in ("text", "topic"):
            return forms, FREE
        return [], None

    def read(self, example: Example) -> list[list[str]]:
        """One example's templates (two for free text that may also be a title)."""
        words = spoken_words(example.text)
        if not words:
            return []
        out: list[str | None] = list(words)
        taken = [False] * len(words)
        titles = False
        for name, value in example.slots.items():
            forms, cls = self._slot_spans(name, value)
            for form in sorted((f for f in forms if f), key=len, reverse=True):
                i = _find(words, form, taken)
                if i < 0:
                    continue
                n = len(form)
                if cls == FREE:
                    fill = [class_token(FREE)] * min(n, MAX_FREE)
                    titles = titles or self.config.slots[name].type == "topic"
                else:
                    fill = [class_token(cls or "")]
                out[i : i + n] = [" ".join(fill)] + [None] * (n - 1)
                taken[i : i + n] = [True] * n
                break
        self._claim_names(words, out, taken)
        self._claim_numbers(words, out, taken)
        tokens = [t for tok in out if tok for t in tok.split()]
        found = [tokens]
        if titles:
            found.append(_collapse(tokens, class_token(FREE), class_token("title")))
        return found

    def _claim_names(self, words: list[str], out: list[str | None], taken: list[bool]) -> None:
        i = 0
        while i < len(words):
            for n in range(min(self.longest, len(words) - i), 0, -1):
                cls = self.names.get(tuple(words[i : i + n]))
                if cls and not any(taken[i : i + n]):
                    out[i : i + n] = [class_token(cls)] + [None] * (n - 1)
                    taken[i : i + n] = [True] * n
                    i += n
                    break
            else:
                i += 1

    @staticmethod
    def _claim_numbers(words: list[str], out: list[str | None], taken: list[bool]) -> None:
        i = 0
        while i < len(words):
            if words[i] in _NUMBER_WORDS and not taken[i]:
                j = i
                while j < len(words) and words[j] in _NUMBER_WORDS and not taken[j]:
                    j += 1
                out[i:j] = [class_token(NUMBER)] + [None] * (j - i - 1)
                taken[i:j] = [True] * (j - i)
                i = j
            else:
                i += 1


def _collapse(tokens: list[str], run: str, into: str) -> list[str]:
    """Every run of ``run`` tokens replaced by one ``into``."""
    out: list[str] = []
    for tok in tokens:
        if tok == run:
            if not out or out[-1] != into:
                out.append(into)
        else:
            out.append(tok)
    return out


def phrase_variants(text: str, config: Config) -> list[list[str]]:
    """A phrase template's fragments: gaps filled, choices and optional words spread."""
    options: list[list[list[str]]] = []
    for raw in text.lower().split():
        optional = raw.endswith("?") and len(raw) > 1
        word = raw[:-1] if optional else raw
        if word.startswith("(") and word.endswith(")"):
            word = word[1:-1]
        if word == "...":
            choices = [list(f) for f in GAP_FILLS]
        elif word == "#":
            choices = [[class_token(NUMBER)]]
        elif word.startswith("{") and word.endswith("}"):
            slot = config.slots.get(word[1:-1])
            if slot is None:
                return []
            cls = NUMBER if slot.type == "number" else f"slot.{slot.name}"
            choices = [[class_token(cls)]]
        else:
            choices = [spoken_words(c) for c in word.split("|") if c]
            choices = [c for c in choices if c]
        if optional:
            choices.append([])
        if not choices:
            return []
        options.append(choices)
    variants = []
    for combo in itertools.islice(itertools.product(*options), MAX_VARIANTS):
        tokens = [t for part in combo for t in part]
        if tokens:
            variants.append(tokens)
    return variants


def intent_templates(vocab: Vocabulary, config: Config, intents: Iterable[IntentSpec]) -> None:
    """Every intent's examples (whole sentences) and phrases (fragments)."""
    reader = ExampleReader(vocab, config)
    for spec in intents:
        acts = spec.source == "mqtt" and spec.action is not None and spec.action != READ_ACTION
        for example in spec.examples:
            for tokens in reader.read(example):
                if acts:  # "lock the [device]" names only what can lock
                    tokens = [_typed(t, str(spec.action)) for t in tokens]
                vocab.add(["<s>", *tokens, "</s>"], 1.0)
        for phrase in spec.phrases:
            variants = phrase_variants(phrase.text, config)
            for tokens in variants:
                vocab.add(tokens, PHRASE_WEIGHT * phrase.weight / len(variants), whole=False)


def _typed(token: str, action: str) -> str:
    if token in (class_token("device"), class_token("noun")):
        return class_token(typed_class(token[1:-1], action))
    return token


def scaffold_templates(vocab: Vocabulary) -> None:
    """The joins of `data/spoken.yaml`."""
    scaffold = spoken_scaffold()
    for line in scaffold["fragments"]:
        vocab.add(line.split(), 1.0, whole=False)
    for line in scaffold["sentences"]:
        vocab.add(["<s>", *line.split(), "</s>"], 1.0)


def opener_templates(vocab: Vocabulary, config: Config) -> None:
    """Polite openers, wake words and politeness before the first words of a request."""
    firsts = sorted({t.tokens[1] for t in vocab.templates if t.whole and len(t.tokens) > 2})
    lang = config.language
    for opener in (*lang.polite_openers, *lang.wake_words):
        words = spoken_words(opener)
        for first in firsts:
            vocab.add(["<s>", *words, first], OPENER_WEIGHT, whole=False)
    for word in lang.politeness:
        words = spoken_words(word)
        vocab.add([*words, "</s>"], OPENER_WEIGHT * 10, whole=False)


def resolve_fallbacks(vocab: Vocabulary) -> None:
    """A template naming a class that may be empty gets a twin in free words; an
    empty class's templates keep only the twin."""
    kept = []
    for tpl in vocab.templates:
        classes = {t[1:-1] for t in tpl.tokens if is_class(t)}
        needs = classes & FALLBACK.keys()
        if not needs:
            kept.append(tpl)
            continue
        twin: list[str] = []
        for tok in tpl.tokens:
            cls = tok[1:-1] if is_class(tok) else ""
            if cls in FALLBACK:
                twin.extend(class_token(c) for c in FALLBACK[cls])
            else:
                twin.append(tok)
        if all(vocab.classes.get(c) for c in needs):
            kept.append(tpl)
        kept.append(type(tpl)(tuple(twin), tpl.weight, tpl.whole))
    missing = {
        tpl for tpl in kept if any(is_class(t) and t[1:-1] not in vocab.classes for t in tpl.tokens)
    }
    vocab.templates = [t for t in kept if t not in missing]
