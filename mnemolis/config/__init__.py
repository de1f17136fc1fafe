"""Find the config directory and load what everyone shares, naming file and line of
every error: the language file, the intents and slots, the home's devices and
rooms, and each `sources/*.yaml` as raw data. Each source validates its own
file (`mnemolis.sources.<name>.settings`) with `yaml_at`'s helpers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config.home import load_devices
from mnemolis.config.intents import (
    SLOT_TYPES,
    Example,
    IntentSpec,
    Phrase,
    SlotSpec,
    load_intent,
    load_slot,
)
from mnemolis.config.language import Language, load_language
from mnemolis.config.yaml_at import (
    At,
    ConfigError,
    as_mapping,
    as_strings,
    line_of,
    lower_words,
    read_yaml,
    safe_load,
)
from mnemolis.config_dir import (  # found without loading (the CLI's path to the daemon)
    CONFIG_ENV,
    ETC_CONFIG_DIR,
    bundled_config_dir,
    find_config_dir,
)
from mnemolis.devices import TYPE_ACTIONS, Device

__all__ = [
    "CONFIG_ENV",
    "ETC_CONFIG_DIR",
    "SLOT_TYPES",
    "At",
    "Config",
    "ConfigError",
    "Example",
    "IntentSpec",
    "Language",
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

    def intent(self, name: str | None) -> IntentSpec | None:
        return self.intents.get(name) if name else None


# --------------------------------------------------------------------------- entry points


def _yaml_files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))


def load_config(root: str | os.PathLike[str] | None = None, language: str = "en") -> Config:
    """Read and validate a config directory holding ``intents/`` and ``sources/``."""
    base = find_config_dir(root)
    intent_dir = base / "intents" / language
    if not intent_dir.is_dir():
        raise ConfigError(intent_dir, None, "no intents directory for this language")
    files: list[Path] = []
    lang_data: dict[str, Any] | None = None
    lang_path: Path | None = None
    intent_docs: list[tuple[Path, dict[str, Any]]] = []
    for path in _yaml_files(intent_dir):
        files.append(path)
        data = as_mapping(read_yaml(path), At(path), "the file")
        if path.stem == "language":
            lang_data, lang_path = data, path
        else:
            intent_docs.append((path, data))
    if lang_data is None or lang_path is None:
        raise ConfigError(intent_dir, None, "missing language.yaml")
    lang = load_language(lang_data, At(lang_path))

    slots: dict[str, SlotSpec] = {}
    device_nouns: dict[str, list[str]] = {}
    device_states: dict[str, list[str]] = {}
    for path, data in intent_docs:
        at = At(path)
        for key in data:
            if key not in ("intents", "slots", "device_types", "language"):
                raise (at / key).error(f"unknown top-level key {key!r}")
        for name, raw in as_mapping(data.get("slots"), at / "slots", "slots").items():
            if name in slots:
                raise (at / "slots" / name).error(f"slot {name!r} is defined twice")
            slots[name] = load_slot(name, raw, at / "slots" / name)
        types = as_mapping(data.get("device_types"), at / "device_types", "device_types")
        for dtype, raw in types.items():
            if dtype not in TYPE_ACTIONS:
                raise (at / "device_types" / dtype).error(f"unknown device type {dtype!r}")
            raw = as_mapping(raw, at / "device_types" / dtype, "a device type")
            t_at = at / "device_types" / dtype
            device_nouns.setdefault(dtype, []).extend(
                lower_words(raw.get("nouns"), t_at / "nouns", "nouns")
            )
            device_states.setdefault(dtype, []).extend(
                lower_words(raw.get("states"), t_at / "states", "states")
            )
    intents: dict[str, IntentSpec] = {}
    for path, data in intent_docs:
        at = At(path)
        for name, raw in as_mapping(data.get("intents"), at / "intents", "intents").items():
            if name in intents:
                raise (at / "intents" / name).error(
                    f"intent {name!r} is already defined in {intents[name].path}"
                )
            intents[name] = load_intent(str(name), raw, at / "intents" / name, slots)
    if not intents:
        raise ConfigError(intent_dir, None, "no intents defined")

    sources: dict[str, dict[str, Any]] = {}
    devices: list[Device] = []
    rooms: dict[str, list[str]] = {}
    for path in _yaml_files(base / "sources"):
        files.append(path)
        data = as_mapping(read_yaml(path), At(path), "the file")
        sources[path.stem] = data
        if path.stem == "mqtt":
            devices, rooms = load_devices(data, At(path))
    return Config(
        root=base,
        language=lang,
        intents=intents,
        slots=slots,
        device_nouns=device_nouns,
        device_states=device_states,
        devices=devices,
        rooms=rooms,
        sources=sources,
        files=files,
    )
