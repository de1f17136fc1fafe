"""The tail's and the cold start's speed-ups answer as the slow paths did.

The fuzzy name search asked again of a span with other tokens taken finds
what a search without the analysis' memo finds; quantity words looked up by
their first word are those a scan of every form finds; a YAML file's line
numbers, kept from the one compose that read it, are those a fresh compose
gives; the words `TextPipeline` keeps are the tokenizer's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml

from mnemolis.config import yaml_at
from mnemolis.understand import Understander
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.quantity_words import QuantityWords
from mnemolis.understand.text import Token

QUERIES = [
    "turn on the kitchen lite and the bedrom lamp",
    "set the humidity in the bedroom to 50%",
    "switch off the living room ceiling lite please",
    "what is the temperature in the kichen",
    "dim the hallway lights to 20 percent brightness",
]


def _fuzzy_by_scan(
    names: NameIndex,
    tokens: list[Token],
    start: int,
    end: int,
    skip: set[int],
    whole: bool,
    known: set[int],
) -> list[NameHit]:
    """The search as it was: every span tried again on every call."""
    c = names._compiled
    hits: list[NameHit] = []
    taken = set(skip)
    for size in (3, 2, 1):
        for s in range(start, start + 1 if whole else end - size + 1):
            if s + size > end:
                continue
            span = range(s, s + size)
            if any(i in taken for i in span) or any(tokens[i].is_punct for i in span):
                continue
            words = [tokens[i].lower for i in span]
            if known and all(i in known for i in span):
                continue
            if words[0] in names.config.language.stop_words:
                continue
            found = names._fuzzy_span(c, c.forms, words, 0, size, whole)
            if found:
                hits.append(dataclasses.replace(found, start=s, end=s + size))
                taken.update(span)
    return hits


def test_fuzzy_with_the_memo_finds_what_a_fresh_search_finds(understander: Understander) -> None:
    names = understander.names
    for query in QUERIES:
        a = understander.analyzer.analyze(understander.normalizer.normalize(query).text)
        n = len(a.tokens)
        for skip in (set(), {0}, {1, 2}, set(range(n // 2))):
            for start, end in ((0, n), (1, n), (0, max(1, n - 2))):
                for whole in (False, True):
                    known = {i for h in a.names if h.kind == "noun" for i in range(h.start, h.end)}
                    memo = names.fuzzy(a.tokens, start, end, skip, whole, known, memo=a.memo)
                    fresh = _fuzzy_by_scan(names, a.tokens, start, end, skip, whole, known)
                    assert memo == fresh, (query, skip, start, end, whole)


def _named_by_scan(
    q: QuantityWords, tokens: list[Token], start: int, end: int, inside: set[int]
) -> set[str]:
    found = set()
    for form, slot in q.forms:
        for s in range(start, end - len(form) + 1):
            if any(s + k in inside for k in range(len(form))):
                continue
            if all(tokens[s + k].lower == w for k, w in enumerate(form)):
                found.add(slot)
    return found


def test_quantity_words_by_first_word_are_those_a_scan_finds(understander: Understander) -> None:
    q = understander.router.quantities
    assert q.forms
    queries = [*QUERIES, *(" ".join(form) + " to 20" for form, _ in q.forms)]
    for query in queries:
        tokens = understander.analyzer.analyze(query).tokens
        n = len(tokens)
        for start, end in ((0, n), (1, n), (0, max(0, n - 1)), (2, 2)):
            for inside in (set(), {0}, {1, 2}):
                got = q.named(tokens, start, end, inside)
                assert got == _named_by_scan(q, tokens, start, end, inside), (query, start, end)


def test_line_numbers_kept_from_the_read_are_a_fresh_compose(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("intents:\n  a:\n    examples:\n      - one\n\n      - two\n", "utf-8")
    merged = tmp_path / "merged.yaml"
    merged.write_text("base: &b\n  x: 1\nuse:\n  <<: *b\n  y: 2\n", "utf-8")
    for path, keys in ((plain, ("intents", "a", "examples", 1)), (merged, ("use", "y"))):
        assert yaml_at.read_yaml(path) == yaml.safe_load(path.read_text("utf-8"))
        assert not [k for k in yaml_at._COMPOSED if k[0] == str(path)]  # kept only when asked
        data = yaml_at.read_yaml(path, lines=True)
        assert data == yaml.safe_load(path.read_text("utf-8"))
        kept = yaml_at.line_of(path, keys)
        yaml_at._COMPOSED.clear()
        assert kept == yaml_at.line_of(path, keys)
    assert yaml_at.line_of(plain, ("intents", "a", "examples", 1)) == 6
    assert yaml_at.line_of(merged, ("use", "y")) == 5


def test_the_words_kept_are_the_tokenizers(understander: Understander) -> None:
    text = understander.text
    for phrase in ["Turn ON the lights", "what's the weather", "set it to 20%", "turn on"]:
        first = text.words(phrase)
        first.append("changed by a caller")
        assert text.words(phrase) == [t.lower_ for t in text.nlp.make_doc(phrase)]
