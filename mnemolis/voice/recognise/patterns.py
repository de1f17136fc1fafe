"""Sentence patterns in the template syntax owners know from Home Assistant
(hassil): ``(a|b)`` alternatives, ``[optional words]``, ``{class}`` a class of
names or values, ``<rule>`` a named pattern, expanded into token sequences.

``set [the] {device} brightness to {number} percent`` becomes, among others,
``set the [device] brightness to [number] percent``: classes stay classes (one
[class] token each) and rules stay rules (one <rule> token each), so a pattern
costs a handful of sequences, not one per name or per way to name a device.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from mnemolis.core.devices import TYPE_ACTIONS
from mnemolis.voice.recognise.spoken import spoken_words
from mnemolis.voice.recognise.vocabulary import TYPED, class_token

#: At most this many sequences from one pattern (alternatives multiply).
MAX_EXPANSIONS = 400


class PatternError(ValueError):
    """A pattern that cannot be read: unbalanced brackets, an unknown rule."""


@dataclass
class _Seq:
    """A run of parts said one after the other."""

    parts: list[_Node]


@dataclass
class _Alt:
    """One of several runs; ``optional`` adds the empty run."""

    options: list[_Seq]
    optional: bool = False


_Node = str | _Seq | _Alt


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    word = ""
    for ch in text:
        if ch in "()[]|":
            if word.strip():
                out.extend(word.split())
            word = ""
            out.append(ch)
        else:
            word += ch
    if word.strip():
        out.extend(word.split())
    return out


def parse(text: str) -> _Seq:
    """The pattern as a tree (raises PatternError)."""
    toks = _tokens(text)
    pos = 0

    def alternatives(closer: str | None) -> _Alt:
        nonlocal pos
        options: list[_Seq] = [_Seq([])]
        while pos < len(toks):
            tok = toks[pos]
            pos += 1
            if tok == "|":
                options.append(_Seq([]))
            elif tok in ")]":
                if tok != closer:
                    raise PatternError(f"unexpected {tok!r} in {text!r}")
                return _Alt(options, optional=tok == "]")
            elif tok in "([":
                options[-1].parts.append(alternatives(")" if tok == "(" else "]"))
            else:
                options[-1].parts.append(tok)
        if closer is not None:
            raise PatternError(f"{closer!r} missing in {text!r}")
        return _Alt(options)

    top = alternatives(None)
    return _Seq([top])


def _word(tok: str, rules: Mapping[str, list[tuple[str, ...]]]) -> list[tuple[str, ...]]:
    if tok.startswith("{") and tok.endswith("}"):
        base, dot, actions = tok[1:-1].partition(".")
        if dot and base in TYPED:  # {device.activate+press}: the devices that can
            return [(class_token(typed_class(base, actions)),)]
        return [(class_token(tok[1:-1]),)]
    if tok.startswith("<") and tok.endswith(">"):
        if tok[1:-1].split(":", 1)[0] not in rules:
            raise PatternError(f"no rule {tok}")
        return [(tok,)]  # a rule stays one token: the grammar holds it once per place
    return [tuple(spoken_words(tok))]


def _expand(node: _Node, rules: Mapping[str, list[tuple[str, ...]]]) -> list[tuple[str, ...]]:
    if isinstance(node, str):
        return _word(node, rules)
    if isinstance(node, _Alt):
        out: list[tuple[str, ...]] = []
        for option in node.options:
            out.extend(_expand(option, rules))
        if node.optional:
            out.append(())
        return list(dict.fromkeys(out))
    runs = [_expand(part, rules) for part in node.parts]
    combos = itertools.islice(itertools.product(*runs), MAX_EXPANSIONS)
    return list(dict.fromkeys(tuple(t for part in combo for t in part) for combo in combos))


Rules = Mapping[str, list[tuple[str, ...]]]


def expand(text: str, rules: Rules | None = None) -> list[tuple[str, ...]]:
    """Every token sequence the pattern allows (at most MAX_EXPANSIONS)."""
    return [seq for seq in _expand(parse(text), rules or {}) if seq][:MAX_EXPANSIONS]


def is_rule(token: str) -> bool:
    return len(token) > 2 and token[0] == "<" and token[-1] == ">"


def expand_rules(raw: Mapping[str, str | list[str]]) -> dict[str, list[tuple[str, ...]]]:
    """Named patterns (each may use the ones written before it), by name."""
    rules: dict[str, list[tuple[str, ...]]] = {}
    for name, body in raw.items():
        texts = [body] if isinstance(body, str) else list(body)
        seqs: list[tuple[str, ...]] = []
        for text in texts:
            seqs.extend(_expand(parse(text), rules))
        rules[name] = list(dict.fromkeys(seqs))
    return rules


def typed_class(cls: str, actions: str) -> str:
    """``device`` said with ``open+close``: the class of the devices that can, named by
    their types (``device.cover+lock+valve``), so that "turn off the [device]" of an
    intent's example and the shapes' "(turn|switch) <onoff> <target:turn_on+turn_off>"
    name one class, not two that split the same names' share between them."""
    can = set(actions.split("+"))
    types = sorted(t for t, acts in TYPE_ACTIONS.items() if can & set(acts))
    return f"{cls}.{'+'.join(types) or 'none'}"


def type_rules(
    rules: Mapping[str, list[tuple[str, ...]]], seqs: list[tuple[str, ...]]
) -> dict[str, list[tuple[str, ...]]]:
    """``rules`` with a copy of each rule that ``seqs`` (or another copy) says with device
    actions, ``<named:turn_on>``: its {device} and {noun} become the classes of the
    devices and nouns that can do one of the actions (``+`` between them), so "lock the
    porch light" or "activate the standing light" is no sentence the grammar knows."""
    out = dict(rules)
    mentions: dict[str, bool] = {}

    def mentioned(name: str) -> bool:  # whether a rule says a device or a noun, at any depth
        if name not in mentions:
            mentions[name] = False
            mentions[name] = any(
                t in (class_token(c) for c in TYPED) or (is_rule(t) and mentioned(t[1:-1]))
                for seq in rules[name]
                for t in seq
            )
        return mentions[name]

    said = [*seqs, *(seq for body in rules.values() for seq in body)]
    todo = [t[1:-1] for seq in said for t in seq if is_rule(t) and ":" in t]
    while todo:
        name = todo.pop()
        if name in out:
            continue
        base, actions = name.split(":", 1)
        copies: list[tuple[str, ...]] = []
        for seq in rules[base]:
            typed: list[str] = []
            for tok in seq:
                if tok[1:-1] in TYPED and tok == class_token(tok[1:-1]):
                    typed.append(class_token(typed_class(tok[1:-1], actions)))
                elif is_rule(tok) and mentioned(tok[1:-1]):
                    typed.append(f"<{tok[1:-1]}:{actions}>")
                    todo.append(f"{tok[1:-1]}:{actions}")
                else:
                    typed.append(tok)
            copies.append(tuple(typed))
        out[name] = copies
    return _in_order(out)


def _in_order(rules: dict[str, list[tuple[str, ...]]]) -> dict[str, list[tuple[str, ...]]]:
    """The rules with every rule after the rules it says (the grammar keeps a rule's
    expansion only when the rules in it are already laid out)."""
    done: dict[str, list[tuple[str, ...]]] = {}

    def visit(name: str) -> None:
        if name in done or name not in rules:
            return
        done[name] = []  # a placeholder against cycles; filled below
        for seq in rules[name]:
            for tok in seq:
                if is_rule(tok):
                    visit(tok[1:-1])
        del done[name]
        done[name] = rules[name]

    for name in rules:
        visit(name)
    return done
