"""The recogniser's grammar: sentence shapes expanded, merged into the smallest
automaton that says exactly them, and laid out as an FSG with one copy of a class
or rule per place it leads to. Pure: no audio, no engine (the FSG file is read
back as text)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.config import load_config
from mnemolis.voice.recognise.grammar import (
    END,
    GRAMMAR,
    Automaton,
    GrammarInput,
    compile_grammar,
    minimal_automaton,
)
from mnemolis.voice.recognise.patterns import (
    PatternError,
    expand,
    expand_rules,
    type_rules,
    typed_class,
)
from mnemolis.voice.recognise.pronounce import Lexicon
from mnemolis.voice.recognise.shapes import sentence_shapes
from mnemolis.voice.recognise.vocabulary import (
    GARBAGE,
    Vocabulary,
    action_classes,
    typed_classes,
)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("turn on the {device}", [("turn", "on", "the", "[device]")]),
        (
            "(turn|switch) on [the] {device}",
            [
                ("turn", "on", "the", "[device]"),
                ("turn", "on", "[device]"),
                ("switch", "on", "the", "[device]"),
                ("switch", "on", "[device]"),
            ],
        ),
        ("set a timer for 5 minutes", [("set", "a", "timer", "for", "five", "minutes")]),
        ("what's [the] weather", [("what's", "the", "weather"), ("what's", "weather")]),
        ("[please] stop", [("please", "stop"), ("stop",)]),
    ],
)
def test_patterns_expand_to_token_sequences(pattern: str, expected: list[tuple[str, ...]]) -> None:
    assert sorted(expand(pattern)) == sorted(expected)


def test_a_rule_stays_one_token() -> None:
    rules = expand_rules({"the": "[the|my]", "one": "<the> {device}"})
    assert sorted(rules["one"]) == [("<the>", "[device]")]
    assert expand("turn on <one>", rules) == [("turn", "on", "<one>")]


def test_a_rule_said_with_actions_names_only_what_can_do_them() -> None:
    rules = expand_rules(
        {"the": "[the|my]", "named": "(<the> {device}|all the {noun})", "one": "(<named>|it)"}
    )
    seqs = expand("(lock|unlock) <one:lock+unlock>", rules)
    typed = type_rules(rules, seqs)
    assert sorted(typed["one:lock+unlock"]) == [("<named:lock+unlock>",), ("it",)]
    assert sorted(typed["named:lock+unlock"]) == [
        ("<the>", "[device.lock]"),  # named by the types that can
        ("all", "the", "[noun.lock]"),
    ]
    assert "the:lock+unlock" not in typed  # it names no device: the rule itself serves
    order = list(typed)  # a rule after the rules it says: the grammar lays them out so
    assert order.index("named:lock+unlock") < order.index("one:lock+unlock")
    assert typed["named"] == rules["named"]  # the untyped rule is unchanged


def test_a_class_said_with_actions_holds_the_devices_that_can() -> None:
    config = load_config()
    vocab = Vocabulary()
    wanted = typed_classes([("lock", "the", "[device.lock]"), ("[noun.light]",)])
    assert wanted == {"device.lock", "noun.light"}
    action_classes(vocab, config, None, wanted)
    locks = [d for d in config.devices if d.type == "lock"]
    assert locks, "the demo home has a lock"
    assert set(vocab.classes["device.lock"].values()) == {n for d in locks for n in d.names}
    assert set(vocab.classes["noun.light"].values()) == set(config.device_nouns["light"])
    assert typed_class("device", "open+close") == "device.cover+lock+valve"
    assert typed_class("device", "turn_on+turn_off") == typed_class("device", "turn_off")


@pytest.mark.parametrize("broken", ["turn (on|off", "turn on]", "(a|b))", "[a (b] c)"])
def test_unbalanced_brackets_are_refused(broken: str) -> None:
    with pytest.raises(PatternError):
        expand(broken)


def test_an_unknown_rule_is_refused() -> None:
    with pytest.raises(PatternError, match="<nowhere>"):
        expand("go <nowhere>", {})


def test_the_shipped_shapes_read() -> None:
    rules, shapes = sentence_shapes()
    assert {"target", "duration", "where"} <= rules.keys()
    assert any("<onoff>" in s for s in shapes)
    assert len(shapes) > 50


def _accepted(auto: Automaton) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()

    def walk(state: int, said: tuple[str, ...]) -> None:
        for tok, nxt in auto.arcs[state].items():
            if tok == END:
                assert nxt == auto.sink
                out.add(said)
            else:
                walk(nxt, (*said, tok))

    walk(auto.root, ())
    return out


_WORDS = st.sampled_from(["turn", "on", "off", "the", "[device]", "lights", "in", "[area]"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=6).map(tuple), min_size=1, max_size=12))
def test_the_automaton_says_exactly_its_sentences(seqs: list[tuple[str, ...]]) -> None:
    auto = minimal_automaton(seqs)
    assert _accepted(auto) == set(seqs)
    # no two states say the same endings: merged bottom-up
    assert len({tuple(sorted(a.items())) for a in auto.arcs}) == len(auto.arcs)


def test_shared_endings_share_states() -> None:
    auto = minimal_automaton(
        [("turn", "on", "the", "[device]"), ("switch", "on", "the", "[device]")]
    )
    # root, then one state each after the verb (both verbs), "on", "the", the device, and
    # the sink: 6, where the trie had 10
    assert len(auto.arcs) == 6
    assert auto.arcs[auto.root]["turn"] == auto.arcs[auto.root]["switch"]


def _lexicon(words: set[str]) -> Lexicon:
    lexicon = Lexicon()
    for word in words:
        lexicon.entries[word] = [tuple("AH" for _ in word[:3])]
    return lexicon


def _fsg(tmp_path: Path, vocab: Vocabulary, given_: GrammarInput) -> list[list[str]]:
    words = vocab.words() | given_.words()
    compile_grammar(vocab, _lexicon(words), tmp_path, "test", given_)
    lines = (tmp_path / GRAMMAR).read_text(encoding="utf-8").splitlines()
    return [line.split() for line in lines if line.startswith("TRANSITION")]


def test_a_class_is_laid_out_once_per_place_it_leads_to(tmp_path: Path) -> None:
    vocab = Vocabulary()
    for name in ("kitchen light", "desk lamp", "porch light"):
        vocab.add_member("device", name.split(), name)
    for verb in ("turn", "switch", "power"):
        vocab.add(["<s>", verb, "on", "the", "[device]", "</s>"])
    vocab.add(["<s>", "is", "the", "[device]", "on", "</s>"])
    trans = _fsg(tmp_path, vocab, GrammarInput(garbage=0))
    members = [t for t in trans if len(t) == 5 and t[4].startswith("device:")]
    # two places a device leads to (the end; "on" then the end): two copies, not four
    assert len(members) == 2 * 3


def test_a_name_in_several_classes_is_one_dictionary_word(tmp_path: Path) -> None:
    """The devices that can lock and the devices that can open share the front door: one
    dictionary entry (a 2,000-device home's dictionary grew threefold, and its load with it,
    when each class had its own)."""
    vocab = Vocabulary()
    for cls in ("device", "device.lock", "device.cover+lock+valve"):
        vocab.add_member(cls, ["front", "door"], "front door")
    vocab.add(["<s>", "lock", "the", "[device.lock]", "</s>"])
    vocab.add(["<s>", "open", "the", "[device.cover+lock+valve]", "</s>"])
    vocab.add(["<s>", "is", "the", "[device]", "open", "</s>"])
    trans = _fsg(tmp_path, vocab, GrammarInput(garbage=0))
    assert {t[4] for t in trans if len(t) == 5 and ":" in t[4]} == {"device:front_door"}
    entries = (tmp_path / "words.dict").read_text(encoding="utf-8").splitlines()
    assert [e.split()[0] for e in entries if e.startswith("device")] == ["device:front_door"]


def test_a_sentence_with_a_class_this_home_lacks_is_left_out(tmp_path: Path) -> None:
    vocab = Vocabulary()
    vocab.add_member("device", ["lamp"], "lamp")
    vocab.add(["<s>", "turn", "on", "the", "[device]", "</s>"])
    vocab.add(["<s>", "turn", "on", "the", "[floor]", "</s>"])
    trans = _fsg(tmp_path, vocab, GrammarInput(garbage=0))
    assert not any(t[-1].startswith("floor:") for t in trans)
    assert any(t[-1] == "device:lamp" for t in trans)


def test_garbage_is_a_way_through_only_when_asked(tmp_path: Path) -> None:
    vocab = Vocabulary()
    vocab.add_member("device", ["lamp"], "lamp")
    vocab.add_member(GARBAGE, ["banana"], "banana")
    vocab.add(["<s>", "turn", "on", "the", "[device]", "</s>"])
    without = _fsg(tmp_path, vocab, GrammarInput(garbage=0))
    assert not any(t[-1].startswith("garbage:") for t in without)
    with_garbage = _fsg(tmp_path / "g", vocab, GrammarInput(garbage=0.01))
    loop = [t for t in with_garbage if t[-1] == "garbage:banana"]
    assert len(loop) == 2  # into the loop, and round it
    assert all(float(t[3]) < 1.0 for t in loop)


def test_nothing_sayable_is_a_clear_error(tmp_path: Path) -> None:
    vocab = Vocabulary()
    vocab.add(["<s>", "turn", "on", "the", "[device]", "</s>"])  # no device at all
    with pytest.raises(ValueError, match="no sentence"):
        compile_grammar(vocab, _lexicon({"turn", "on", "the"}), tmp_path, "x", GrammarInput())


def test_a_class_of_thousands_is_laid_out_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mnemolis.voice.recognise.grammar as grammar

    monkeypatch.setattr(grammar, "SHARED_ABOVE", 2)
    vocab = Vocabulary()
    for name in ("kitchen light", "desk lamp", "porch light"):
        vocab.add_member("device", name.split(), name)
    vocab.add(["<s>", "turn", "on", "the", "[device]", "</s>"])
    vocab.add(["<s>", "is", "the", "[device]", "on", "</s>"])
    trans = _fsg(tmp_path, vocab, GrammarInput(garbage=0))
    assert len([t for t in trans if len(t) == 5 and t[4].startswith("device:")]) == 3
