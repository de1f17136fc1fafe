"""Compile a vocabulary into a finite-state grammar pocketsphinx reads (an FSG file):
only the sentences the configuration knows can be heard, each name or value
wherever its class stands.

The sentences (token sequences, ``[class]`` tokens for names and values) are
merged into the smallest automaton that says them all (shared beginnings and
shared endings). A class is one arc per member (the member's words as one
dictionary entry, so it reads back as the name the configuration writes), and
the arcs of one class that lead to the same state share one copy of it: what
may follow a name depends only on where it leads, so sharing loses nothing and
a 2,000-device home costs a few copies of its names, not one per sentence.
Speech that is no request has its own way through: a loop of common words the
requests do not use (``[garbage]``), which the judge rejects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mnemolis.voice.recognise.model import META, ModelInfo, member_token, pronunciations
from mnemolis.voice.recognise.patterns import is_rule
from mnemolis.voice.recognise.pronounce import Lexicon
from mnemolis.voice.recognise.vocabulary import (
    FREE,
    GARBAGE,
    TYPED,
    Vocabulary,
    class_token,
    is_class,
)

GRAMMAR = "home.fsg"
DICTIONARY = "words.dict"
END = "</s>"
EDGES = ("<s>", "</s>")
#: Classes whose members loop (any number of words): free text and garbage.
LOOPING = (FREE, GARBAGE)
#: What each garbage word costs beside a word of a sentence (speech that is a request
#: is never better explained as common words, measured on espeak-ng's voices).
GARBAGE_WORD = 0.3
#: A class with more members than this is laid out once for all the places it leads
#: to, not once per place (pocketsphinx loads 150,000 transitions in about 4 s).
SHARED_ABOVE = 500
#: A member's pronunciations (its words' combined).
Ways = tuple[tuple[str, ...], ...]


@dataclass
class Automaton:
    """States as {label: next state}; ``root`` starts, ``sink`` ends every sentence."""

    arcs: list[dict[str, int]] = field(default_factory=list)
    root: int = 0
    sink: int = 0


def sentences(vocab: Vocabulary, extra: Iterable[Sequence[str]] = ()) -> list[tuple[str, ...]]:
    """The whole sentences of ``vocab`` (and ``extra``), edges off, free-text runs as one."""
    out: dict[tuple[str, ...], None] = {}
    for toks in [*(t.tokens for t in vocab.templates if t.whole), *extra]:
        seq: list[str] = []
        for tok in toks:
            if tok in EDGES or (tok == class_token(FREE) and seq and seq[-1] == tok):
                continue
            seq.append(tok)
        if seq and class_token(GARBAGE) not in seq:
            out[tuple(seq)] = None
    return list(out)


def minimal_automaton(seqs: Iterable[Sequence[str]]) -> Automaton:
    """The smallest automaton accepting exactly ``seqs`` (a trie, then equal endings
    merged bottom-up)."""
    trie: list[dict[str, int]] = [{}]
    for seq in seqs:
        node = 0
        for tok in (*seq, END):
            nxt = trie[node].get(tok)
            if nxt is None:
                nxt = len(trie)
                trie.append({})
                trie[node][tok] = nxt
            node = nxt
    canon: dict[int, int] = {}
    register: dict[tuple[tuple[str, int], ...], int] = {}
    out = Automaton()
    # children have larger ids than parents in a trie: walk backwards (post-order)
    for node in range(len(trie) - 1, -1, -1):
        sig = tuple(sorted((tok, canon[child]) for tok, child in trie[node].items()))
        found = register.get(sig)
        if found is None:
            found = len(out.arcs)
            out.arcs.append(dict(sig))
            register[sig] = found
        canon[node] = found
    out.root = canon[0]
    out.sink = register[()]
    return out


class _Fsg:
    """FSG lines being written: numbered states and transitions (uniform per state)."""

    def __init__(self, states: int) -> None:
        self.states = states
        self.trans: list[tuple[int, int, str]] = []

    def new(self) -> int:
        self.states += 1
        return self.states - 1

    def add(self, src: int, dst: int, word: str = "") -> None:
        self.trans.append((src, dst, word))

    def path(self, src: int, dst: int, words: Sequence[str]) -> tuple[int, int, str]:
        """``words`` one after the other from ``src`` to ``dst``; the first transition."""
        first: tuple[int, int, str] | None = None
        for word in words[:-1]:
            nxt = self.new()
            self.add(src, nxt, word)
            first = first or (src, nxt, word)
            src = nxt
        last = words[-1] if words else ""
        self.add(src, dst, last)
        return first or (src, dst, last)

    def text(
        self, name: str, start: int, final: int, weights: dict[tuple[int, int, str], float]
    ) -> str:
        probs: dict[tuple[int, int, str], float] = {}
        fan: dict[int, int] = {}
        for src, _, _ in self.trans:
            fan[src] = fan.get(src, 0) + 1
        for src, dst, word in self.trans:
            key = (src, dst, word)
            probs[key] = max(probs.get(key, 0.0), weights.get(key, 1.0) / fan[src])
        lines = [f"FSG_BEGIN {name}", f"NUM_STATES {self.states}"]
        lines += [f"START_STATE {start}", f"FINAL_STATE {final}"]
        for (src, dst, word), prob in probs.items():
            lines.append(f"TRANSITION {src} {dst} {min(prob, 1.0):.6g} {word}".rstrip())
        lines.append("FSG_END")
        return "\n".join(lines) + "\n"


@dataclass
class GrammarInput:
    """What the grammar says besides the vocabulary's sentences: sentences with
    <rule> tokens, the rules, polite openers and closers, the share of garbage."""

    extra: list[tuple[str, ...]] = field(default_factory=list)
    rules: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    openers: list[list[str]] = field(default_factory=list)
    closers: list[list[str]] = field(default_factory=list)
    #: how likely a polite opener or closer is, beside going straight on
    polite: float = 0.001
    garbage: float = 0.05
    #: the words that join one request to the next ("and", "and then"), and how likely
    #: a request goes on after them rather than ending
    joins: list[list[str]] = field(default_factory=list)
    compound: float = 0.0

    def words(self) -> set[str]:
        """Every plain word of the shapes, rules, openers and closers."""
        seqs: list[Sequence[str]] = [*self.extra, *(s for r in self.rules.values() for s in r)]
        seqs += [*self.openers, *self.closers, *self.joins]
        return {t for seq in seqs for t in seq if not (is_class(t) or is_rule(t))}


class _Writer:
    """Lays the automata out as FSG states: words as arcs, one copy of a class or a
    rule per place it leads to."""

    def __init__(self, fsg: _Fsg, members: dict[str, list[tuple[str, Ways]]], lexicon: Lexicon):
        self.fsg, self.members, self.lexicon = fsg, members, lexicon
        self.rules: dict[str, Automaton] = {}
        self.copies: dict[tuple[str, int], int] = {}
        self.words: dict[str, Ways] = {}
        self.weights: dict[tuple[int, int, str], float] = {}
        self.shared: dict[str, tuple[int, int]] = {}
        self.guessed = set(lexicon.guessed)

    def sayable(self, seq: Sequence[str]) -> bool:
        for tok in seq:
            if is_class(tok):
                if tok[1:-1] not in self.members:
                    return False
            elif is_rule(tok):
                if tok[1:-1] not in self.rules:
                    return False
            elif tok in self.guessed or tok in self.lexicon.missing or not self.lexicon.of(tok):
                # a word of a sentence (not a name) the dictionary lacks is a typo kept
                # on purpose for typing ("turn on the kichen light"): never heard
                return False
        return True

    def add_rule(self, name: str, expansions: Iterable[Sequence[str]]) -> None:
        said = [s for s in expansions if self.sayable(s)]
        if said:
            self.rules[name] = minimal_automaton(said)

    def path(self, src: int, dst: int, words: Sequence[str], weight: float = 1.0) -> None:
        if self.sayable(words):
            first = self.fsg.path(src, dst, words)
            self.words.update((w, tuple(self.lexicon.of(w))) for w in words)
            if weight != 1.0:
                self.weights[first] = weight

    def lay(self, auto: Automaton, root: int, sink: int, end: Callable[[int], None]) -> None:
        """``auto``'s states from ``root`` (a state already made) to ``sink``; ``end(q)``
        joins a state where a sentence may end to what follows."""
        ids = {auto.root: root, auto.sink: sink}
        for state in range(len(auto.arcs)):
            ids.setdefault(state, self.fsg.new())
        for state, arcs in enumerate(auto.arcs):
            for tok, nxt in arcs.items():
                src, dst = ids[state], ids[nxt]
                if tok == END:
                    end(src)
                elif is_class(tok) or is_rule(tok):
                    self.fsg.add(src, self.copy(tok, dst))
                else:
                    self.fsg.add(src, dst, tok)
                    self.words[tok] = tuple(self.lexicon.of(tok))

    def copy(self, tok: str, nxt: int) -> int:
        """The entry of the copy of a class or rule that leads to ``nxt``."""
        entry = self.copies.get((tok, nxt))
        if entry is not None:
            return entry
        entry = self.copies[(tok, nxt)] = self.fsg.new()
        name = tok[1:-1]
        if is_rule(tok):
            exit_ = self.fsg.new()
            self.lay(self.rules[name], entry, exit_, lambda q: self.fsg.add(q, nxt))
            return entry
        members = self.members[name]
        self.words.update(members)
        if name not in LOOPING and len(members) > SHARED_ABOVE:
            # one copy for every place: its end leads to each of them, so a name may be
            # followed by what follows a name elsewhere (a little more freedom, a load of
            # seconds less for a home of thousands of names)
            shared = self.shared.get(name)
            if shared is None:
                shared = self.shared[name] = (self.fsg.new(), self.fsg.new())
                for token, _ in members:
                    self.fsg.add(shared[0], shared[1], token)
            self.fsg.add(entry, shared[0])
            self.fsg.add(shared[1], nxt)
            return entry
        if name in LOOPING:
            inner = self.fsg.new()
            each = GARBAGE_WORD if name == GARBAGE else 1.0
            for token, _ in members:
                self.fsg.add(entry, inner, token)
                self.fsg.add(inner, inner, token)
                if each != 1.0:  # every garbage word costs: a request is never garbage
                    self.weights[(entry, inner, token)] = each
                    self.weights[(inner, inner, token)] = each
            self.fsg.add(inner, nxt)
        else:
            for token, _ in members:
                self.fsg.add(entry, nxt, token)
        return entry


def compile_grammar(
    vocab: Vocabulary,
    lexicon: Lexicon,
    out: Path,
    digest: str,
    given: GrammarInput,
) -> ModelInfo:
    """Write the grammar and its dictionary into ``out``; return what they hold."""
    out.mkdir(parents=True, exist_ok=True)
    info = ModelInfo(digest=digest, guessed=lexicon.guessed, owned=lexicon.owned)
    members: dict[str, list[tuple[str, Ways]]] = {}
    for cls, entries in vocab.classes.items():
        kept = []
        # the devices that can do something (`device.cover+lock`) are words of the
        # device class: one dictionary entry a name, however many classes hold it
        head = cls.split(".", 1)[0]
        base = head if head in TYPED else cls
        for words, display in sorted(entries.items()):
            ways = pronunciations(words, lexicon)
            if ways:
                # free words read back as themselves; garbage is told by its class
                token = words[0] if cls == FREE else member_token(base, words)
                kept.append((token, tuple(ways)))
                if cls != FREE:
                    info.members.setdefault(token, [base, display])
        if kept:
            members[cls] = kept
    fsg = _Fsg(0)
    writer = _Writer(fsg, members, lexicon)
    for name, expansions in given.rules.items():
        writer.add_rule(name, expansions)
    said = [s for s in sentences(vocab, given.extra) if writer.sayable(s)]
    if not said:
        raise ValueError("no sentence of the configuration could be compiled")
    start, root, final = fsg.new(), fsg.new(), fsg.new()

    def end(state: int) -> None:
        fsg.add(state, final)
        for closer in given.closers:
            writer.path(state, final, closer, given.polite)
        if given.compound > 0:  # "... and <another request>": back to the first word
            for join in given.joins:
                writer.path(state, root, join, given.compound / len(given.joins))

    writer.lay(minimal_automaton(said), root, fsg.new(), end)
    fsg.add(start, root)
    for opener in given.openers:
        writer.path(start, root, opener, given.polite)
    if given.garbage > 0 and GARBAGE in members:
        loop = writer.copy(class_token(GARBAGE), final)
        fsg.add(start, loop)
        # the start's transitions share 1; garbage takes its share of them all
        writer.weights[(start, loop, "")] = given.garbage * (2 + len(given.openers))
    (out / GRAMMAR).write_text(fsg.text("home", start, final, writer.weights), encoding="utf-8")
    spoken = writer.words
    with (out / DICTIONARY).open("w", encoding="utf-8") as handle:
        for word in sorted(w for w in spoken if spoken[w]):
            for n, phones in enumerate(spoken[word]):
                name = word if n == 0 else f"{word}({n + 1})"
                handle.write(f"{name} {' '.join(phones)}\n")
    info.words = len(spoken)
    info.templates = len(said)
    info.missing = sorted(lexicon.missing)
    (out / META).write_text(info.to_json(), encoding="utf-8")
    return info
