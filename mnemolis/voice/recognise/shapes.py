"""`data/sentences.yaml`: the sentence shapes of a home request, read once."""

from __future__ import annotations

from functools import cache

from mnemolis.core.package_data import load_package_yaml
from mnemolis.voice.recognise.patterns import expand, expand_rules, type_rules

Shapes = tuple[dict[str, list[tuple[str, ...]]], list[tuple[str, ...]]]


@cache
def _shapes() -> Shapes:
    data = load_package_yaml("mnemolis.voice.recognise", "sentences")
    rules = expand_rules(data.get("rules") or {})
    shapes: list[tuple[str, ...]] = []
    for text in data.get("sentences") or []:
        shapes.extend(expand(str(text), rules))
    return type_rules(rules, shapes), shapes


def sentence_shapes() -> Shapes:
    """The rules (by name) and the sentences (token sequences with <rule> tokens)."""
    rules, shapes = _shapes()
    return dict(rules), list(shapes)
