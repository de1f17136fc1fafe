"""From a loaded configuration to a compiled model on disk, once per vocabulary.

The vocabulary is gathered every start (a fraction of a second); its digest, with
the owner's pronunciations and the settings that shape the model, names the
cached model. A start with a known digest loads the cached files; any change to
what can be said (an intent, a device, an alias, a list item) compiles anew.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import pocketsphinx

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.voice.recognise import cache
from mnemolis.voice.recognise.general import common_words_kept, model_path
from mnemolis.voice.recognise.grammar import GRAMMAR, GrammarInput, compile_grammar
from mnemolis.voice.recognise.loadable import write_alternates
from mnemolis.voice.recognise.model import DICTIONARY as WORDS
from mnemolis.voice.recognise.model import META, ModelInfo, add_garbage, compile_model
from mnemolis.voice.recognise.pronounce import build_lexicon
from mnemolis.voice.recognise.settings import RecogniserSettings
from mnemolis.voice.recognise.shapes import sentence_shapes
from mnemolis.voice.recognise.spoken import spoken_words
from mnemolis.voice.recognise.templates import (
    intent_templates,
    opener_templates,
    resolve_fallbacks,
    scaffold_templates,
)
from mnemolis.voice.recognise.vocabulary import (
    Vocabulary,
    action_classes,
    common_items,
    free_words,
    garbage_words,
    home_names,
    numbers,
    slot_values,
    source_names,
    typed_classes,
)

#: Bumped when the way a model is compiled changes, so old caches are not reused.
BUILD_VERSION = 11
DICTIONARY = "en-us/cmudict-en-us.dict"
#: The common words garbage is chosen from (those the requests do not use).
GARBAGE_POOL = 5000


@dataclass(frozen=True)
class Compiled:
    """A model ready to load: its folder, what it holds, and whether it was built now."""

    path: Path
    info: ModelInfo
    built: bool
    ms: float


def gather(
    config: Config,
    settings: RecogniserSettings,
    registry: DeviceRegistry | None = None,
    names: Mapping[str, Iterable[str]] | None = None,
    state_dir: Path | None = None,
) -> Vocabulary:
    """Everything the configuration can understand, as templates and classes (the
    common words kept in ``state_dir``'s cache: `general.common_words_kept`)."""
    kept = cache.cache_root(state_dir) if state_dir is not None else None
    vocab = Vocabulary()
    home_names(vocab, config, registry)
    numbers(vocab)
    slot_values(vocab, config)
    source_names(vocab, names or {}, settings.names_limit)
    common_items(vocab)
    free_words(vocab, common_words_kept(settings.free_words, kept))
    intent_templates(vocab, config, config.intents.values())
    scaffold_templates(vocab)
    rules, shapes = sentence_shapes()
    said = [*(t.tokens for t in vocab.templates), *shapes, *(s for r in rules.values() for s in r)]
    action_classes(vocab, config, registry, typed_classes(said))
    opener_templates(vocab, config)
    resolve_fallbacks(vocab)
    garbage_words(vocab, common_words_kept(GARBAGE_POOL, kept), settings.garbage_words)
    if settings.model == "ngram":
        add_garbage(vocab, settings.garbage)
    return vocab


def grammar_input(config: Config, settings: RecogniserSettings) -> GrammarInput:
    """The shapes of `data/sentences.yaml`, and the language's polite openers and closers."""
    rules, shapes = sentence_shapes()
    lang = config.language
    return GrammarInput(
        extra=shapes,
        rules=rules,
        openers=[spoken_words(o) for o in lang.polite_openers],
        closers=[spoken_words(w) for w in lang.politeness],
        garbage=settings.garbage,
        # "and" and "and then" (a bare "then" or "also" was heard in noise)
        joins=[["and"], *_and_joins(lang.strong_conjunctions)],
        compound=settings.compound,
    )


def _and_joins(conjunctions: Iterable[str]) -> list[list[str]]:
    """The conjunctions that begin with "and" ("and then"): a bare "then" or "also"
    between two requests was heard in speech that was no request."""
    out = []
    for conjunction in conjunctions:
        words = list(spoken_words(conjunction))
        if len(words) > 1 and words[0] == "and":
            out.append(words)
    return out


def owner_pronunciations(config: Config, settings: RecogniserSettings) -> Path:
    return config.root / settings.pronunciations


def digest_of(
    vocab: Vocabulary, settings: RecogniserSettings, owner_file: Path, given: object = None
) -> str:
    """The compiled model's key: the vocabulary, the owner's pronunciations, the settings
    that shape the model. Computed at every start, cached or not, so in one pass (a
    2,000-device home's 20,000 members, each its own JSON text, took a tenth of a second)."""
    try:
        owned = owner_file.read_text(encoding="utf-8") if owner_file.is_file() else ""
    except (OSError, UnicodeDecodeError):
        owned = "unreadable"
    templates = sorted((t.tokens, round(t.weight, 6), t.whole) for t in vocab.templates)
    classes = []
    for cls in sorted(vocab.classes):
        weights = vocab.weights.get(cls, {})
        members = vocab.classes[cls]
        classes.append((cls, [(k, members[k], weights.get(k, 1.0)) for k in sorted(members)]))
    extra = (BUILD_VERSION, pocketsphinx.__file__, settings.model, settings.discount, owned)
    h = hashlib.sha256(repr((templates, classes, extra, settings.garbage)).encode())
    h.update(json.dumps(given, sort_keys=True, default=str).encode())
    return h.hexdigest()[:24]


def compile_cached(
    vocab: Vocabulary,
    settings: RecogniserSettings,
    state_dir: Path,
    owner_file: Path,
    given: GrammarInput | None = None,
) -> Compiled:
    """The compiled model of ``vocab`` (a grammar with ``given``'s shapes, or an
    n-gram model): from the cache, else built now and cached."""
    t0 = time.perf_counter()
    grammar = settings.model == "grammar"
    if grammar and given is None:
        given = GrammarInput(garbage=settings.garbage)
    digest = digest_of(vocab, settings, owner_file, asdict(given) if grammar and given else None)
    found = cache.cached(state_dir, digest)
    if found is not None:
        return Compiled(found[0], found[1], False, (time.perf_counter() - t0) * 1000)

    def build(folder: Path, final: Path) -> ModelInfo:
        if grammar and given is not None:
            words = vocab.words() | given.words()
            lexicon = build_lexicon(words, model_path(DICTIONARY), owner_file)
            info = compile_grammar(vocab, lexicon, folder, digest, given)
            write_alternates(folder / GRAMMAR, folder / WORDS)  # loads in a tenth of the time
            info.alternates = True
            (folder / META).write_text(info.to_json(), encoding="utf-8")
            return info
        lexicon = build_lexicon(vocab.words(), model_path(DICTIONARY), owner_file)
        return compile_model(vocab, lexicon, folder, settings.discount, digest, final)

    path, info = cache.store(state_dir, digest, build)
    return Compiled(path, info, True, (time.perf_counter() - t0) * 1000)
