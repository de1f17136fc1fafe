"""Find the config directory and load what everyone shares, naming file and line of
every error: the language file, the intents and slots, the home's devices and
rooms, and each `sources/*.yaml` as raw data. The owner's directory is laid over
the shipped one (`overlay`, `catalog`), and every error is reported, not only
the first (`problems`). Each source validates its own file
(`mnemolis.sources.<name>.settings`) with `yaml_at`'s helpers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config.catalog import build_catalog
from mnemolis.config.home import load_home
from mnemolis.config.intents import (
    SLOT_TYPES,
    Example,
    IntentSpec,
    Origin,
    Phrase,
    SlotSpec,
    check_undos,
    load_slot,
)
from mnemolis.config.language import Language, load_language
from mnemolis.config.overlay import (
    LANGUAGE_FILE,
    Layer,
    YamlFile,
    intent_files,
    layered,
    layers_of,
    source_files,
)
from mnemolis.config.owner_words import yield_to_owner
from mnemolis.config.problems import Problems
from mnemolis.config.questions import DeviceClasses, QuestionWords, read_questions
from mnemolis.config.routines import load_steps
from mnemolis.config.yaml_at import (
    At,
    ConfigError,
    ConfigErrors,
    as_mapping,
    as_strings,
    line_of,
    lower_words,
    read_yaml,
    safe_load,
)
from mnemolis.core.config_dir import (  # found without loading (the CLI's path to the daemon)
    CONFIG_ENV,
    ETC_CONFIG_DIR,
    bundled_config_dir,
    find_config_dir,
)
from mnemolis.core.devices import TYPE_ACTIONS, Device, Floor

__all__ = [
    "CONFIG_ENV",
    "ETC_CONFIG_DIR",
    "SLOT_TYPES",
    "At",
    "Config",
    "ConfigError",
    "ConfigErrors",
    "Example",
    "IntentSpec",
    "Language",
    "Layer",
    "Origin",
    "Phrase",
    "SlotSpec",
    "as_mapping",
    "as_strings",
    "bundled_config_dir",
    "find_config_dir",
    "line_of",
    "load_config",
    "lower_words",
    "safe_load",
]


@dataclass
class Config:
    root: Path
    language: Language
    intents: dict[str, IntentSpec]
    slots: dict[str, SlotSpec]
    device_nouns: dict[str, list[str]]
    device_states: dict[str, list[str]]
    devices: list[Device]
    rooms: dict[str, list[str]]
    sources: dict[str, dict[str, Any]]
    files: list[Path] = field(default_factory=list)
    floors: dict[str, list[str]] = field(default_factory=dict)  # floor -> its rooms
    floor_specs: list[Floor] = field(default_factory=list)  # floors with levels and aliases
    disabled: dict[str, IntentSpec] = field(default_factory=dict)  # switched off by the owner
    layers: list[Layer] = field(default_factory=list)  # shipped first, then the owner's
    #: type nouns that mean one thing ("ac", "air conditioner"): a device named with
    #: one of them is what any of them names first
    noun_groups: list[list[str]] = field(default_factory=list)
    #: type nouns that are also verbs ("switch off the kitchen"): the verb when they
    #: open a request
    verb_nouns: set[str] = field(default_factory=set)
    #: what only a device of a type does ("mop" -> vacuum): the type a request means
    type_work: dict[str, str] = field(default_factory=dict)
    source_paths: dict[str, list[Path]] = field(default_factory=dict)  # stem -> its files
    questions: QuestionWords = field(default_factory=QuestionWords)  # what makes a question
    device_classes: DeviceClasses = field(default_factory=DeviceClasses)  # words per class
    #: the phrases shipped declines gave up to the owner's intents (`owner_words`)
    yielded: dict[str, list[str]] = field(default_factory=dict)

    def intent(self, name: str | None) -> IntentSpec | None:
        return self.intents.get(name) if name else None

    def source_path(self, stem: str) -> Path:
        """The file an owner edits for `sources/<stem>.yaml` (theirs, else the shipped one)."""
        paths = self.source_paths.get(stem)
        return paths[-1] if paths else self.root / "sources" / f"{stem}.yaml"


#: Top-level keys of an intents file.
TOP_LEVEL_KEYS = ("intents", "slots", "device_types", "language", "questions", "device_classes")


# --------------------------------------------------------------------------- entry points


def load_config(
    root: str | os.PathLike[str] | None = None,
    language: str = "en",
    problems: Problems | None = None,
) -> Config:
    """Read and check a configuration: the owner's directory (``root``, else
    `find_config_dir`) laid over the shipped one (`overlay`). Every error found is
    raised together (`ConfigErrors`, which reads as the first), or, given
    ``problems``, kept there and the rest of the configuration returned (what
    `mnemolis check` needs to go on checking)."""
    owner = find_config_dir(root)
    bundled = bundled_config_dir()
    _check_owner_dir(owner, bundled)
    layers = layers_of(owner, bundled)
    keep_going = problems is not None
    problems = problems if problems is not None else Problems()
    files = intent_files(layers, language)
    if not files:
        raise ConfigError(
            owner / "intents" / language, None, "no intents directory for this language"
        )
    read: list[Path] = []
    docs: list[tuple[YamlFile, dict[str, Any]]] = []
    for file in files:
        read.append(file.path)
        with problems.each():
            data = read_yaml(file.path, lines=True)  # every example asks for its line
            docs.append((file, as_mapping(data, At(file.path), "the file")))
    languages = [(f, d) for f, d in docs if f.stem == LANGUAGE_FILE]
    intent_docs = [(f, d) for f, d in docs if f.stem != LANGUAGE_FILE]
    lang = Language()
    if not languages and not problems:
        problems.add(ConfigError(owner / "intents" / language, None, "missing language.yaml"))
    elif languages:
        with problems.each():
            lang = _language(*languages[0])
    slots, device_nouns, device_states, noun_groups, verb_nouns, type_work = _vocabulary(
        intent_docs, problems
    )
    catalog = build_catalog(intent_docs, slots, problems)
    intents = catalog.intents
    # "order a pizza" is the owner's own, when they say so
    yielded = yield_to_owner(intents, lang.stop_words | lang.filler_words)
    questions, device_classes = read_questions(intent_docs, intents, problems)
    if not intents and not problems:
        problems.add(ConfigError(owner / "intents" / language, None, "no intents defined"))
    states = frozenset(s for words in device_states.values() for s in words)
    check_undos(intents, problems)
    for spec in intents.values():
        if spec.raw_do is not None or (spec.say is not None and spec.source is not None):
            spec.steps = load_steps(spec, intents, slots, states, problems)

    sources: dict[str, dict[str, Any]] = {}
    source_paths: dict[str, list[Path]] = {}
    devices: list[Device] = []
    rooms: dict[str, list[str]] = {}
    floors: dict[str, list[str]] = {}
    floor_specs: list[Floor] = []
    for stem, found in source_files(layers).items():
        raw: dict[bool, dict[str, Any]] = {}
        for file in found:
            read.append(file.path)
            with problems.each():
                raw[file.shipped] = as_mapping(read_yaml(file.path), At(file.path), "the file")
        source_paths[stem] = [f.path for f in found]
        sources[stem] = layered(stem, raw.get(True), raw.get(False))
        if stem == "mqtt":
            with problems.each():
                home = load_home(sources[stem], At(found[-1].path))
                devices, rooms, floors = home.devices, home.rooms, home.floors
                floor_specs = home.floor_specs
    if not keep_going:
        problems.raise_any()
    return Config(
        root=owner,
        language=lang,
        intents=intents,
        slots=slots,
        device_nouns=device_nouns,
        device_states=device_states,
        devices=devices,
        rooms=rooms,
        sources=sources,
        files=read,
        floors=floors,
        floor_specs=floor_specs,
        noun_groups=noun_groups,
        verb_nouns=verb_nouns,
        type_work=type_work,
        disabled=catalog.disabled,
        layers=layers,
        source_paths=source_paths,
        questions=questions,
        device_classes=device_classes,
        yielded=yielded,
    )


def _check_owner_dir(owner: Path, bundled: Path) -> None:
    if owner.resolve() == bundled.resolve():
        return
    if not owner.is_dir():
        raise ConfigError(owner, None, "no such configuration directory")
    if not (owner / "intents").is_dir() and not (owner / "sources").is_dir():
        raise ConfigError(
            owner,
            None,
            "no intents directory and no sources directory: an owner's directory holds "
            "intents/<lang>/ and sources/ files, laid over the shipped ones",
        )


def _language(file: YamlFile, data: dict[str, Any]) -> Language:
    """The language file; an owner's one overrides the shipped one key by key."""
    if file.replaces is not None:
        shipped = as_mapping(read_yaml(file.replaces), At(file.replaces), "the file")
        data = layered(LANGUAGE_FILE, shipped, data)
    return load_language(data, At(file.path))


def _vocabulary(
    docs: list[tuple[YamlFile, dict[str, Any]]], problems: Problems
) -> tuple[
    dict[str, SlotSpec],
    dict[str, list[str]],
    dict[str, list[str]],
    list[list[str]],
    set[str],
    dict[str, str],
]:
    """The slots and device words of every intents file."""
    slots: dict[str, SlotSpec] = {}
    device_nouns: dict[str, list[str]] = {}
    device_states: dict[str, list[str]] = {}
    noun_groups: list[list[str]] = []
    verb_nouns: set[str] = set()
    type_work: dict[str, str] = {}
    for file, data in docs:
        at = At(file.path)
        for key in data:
            if key not in TOP_LEVEL_KEYS:
                problems.add((at / key).error(f"unknown top-level key {key!r}"))
        with problems.each():
            entries = as_mapping(data.get("slots"), at / "slots", "slots")
            for name, raw in entries.items():
                with problems.each():
                    if name in slots:
                        raise (at / "slots" / name).error(f"slot {name!r} is defined twice")
                    slots[name] = load_slot(name, raw, at / "slots" / name)
        with problems.each():
            types = as_mapping(data.get("device_types"), at / "device_types", "device_types")
            for dtype, raw in types.items():
                t_at = at / "device_types" / dtype
                with problems.each():
                    if dtype not in TYPE_ACTIONS:
                        raise t_at.error(f"unknown device type {dtype!r}")
                    raw = as_mapping(raw, t_at, "a device type")
                    device_nouns.setdefault(dtype, []).extend(
                        lower_words(raw.get("nouns"), t_at / "nouns", "nouns")
                    )
                    device_states.setdefault(dtype, []).extend(
                        lower_words(raw.get("states"), t_at / "states", "states")
                    )
                    same = raw.get("same") or []
                    if not isinstance(same, list):
                        raise (t_at / "same").error("same: a list of lists of nouns")
                    for n, group in enumerate(same):
                        noun_groups.append(lower_words(group, t_at / "same" / n, "same"))
                    verb_nouns.update(lower_words(raw.get("verbs"), t_at / "verbs", "verbs"))
                    for word in lower_words(raw.get("work"), t_at / "work", "work"):
                        type_work[" ".join(word.split())] = dtype
    return slots, device_nouns, device_states, noun_groups, verb_nouns, type_work
