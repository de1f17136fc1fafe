"""The INTENT_MAP of every layer: intents defined, extended, overridden, switched off.

An owner's file (one not named like a shipped file) writes, per intent name:

- a new name with a ``source``, ``do:`` or ``say:``: a new intent;
- a shipped name with only ``phrases``, ``examples`` and ``avoid``: those
  are added to the shipped intent (an upgrade keeps both);
- a shipped name with ``override: true`` and a whole definition: it
  replaces the shipped intent;
- a shipped name with ``enabled: false``: the intent is switched off.

Every intent keeps its `Origin`s (where it was defined, then changed) and
every phrase and example the file it was written in, so `mnemolis check`
can say where each came from. Every error is kept, not only the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config.intents import (
    IntentSpec,
    Origin,
    SlotSpec,
    closest,
    load_examples,
    load_intent,
    load_phrases,
)
from mnemolis.config.overlay import YamlFile
from mnemolis.config.problems import Problems
from mnemolis.config.yaml_at import At, as_mapping

#: Keys that make an entry a definition of its own.
DEFINES = ("source", "do", "say")
#: What an owner's entry may add to an intent defined elsewhere.
EXTENDS = ("phrases", "examples", "avoid")


@dataclass
class Catalog:
    intents: dict[str, IntentSpec] = field(default_factory=dict)
    disabled: dict[str, IntentSpec] = field(default_factory=dict)


def _origin(how: str, file: YamlFile, at: At) -> Origin:
    return Origin(how, str(file.path), at.line(), file.shipped)


def build_catalog(
    docs: list[tuple[YamlFile, dict[str, Any]]], slots: dict[str, SlotSpec], problems: Problems
) -> Catalog:
    """Definitions first (every file, in reading order), then the owner's changes."""
    catalog = Catalog()
    changes: list[tuple[YamlFile, str, dict[str, Any], At]] = []
    for file, data in docs:
        at = At(file.path) / "intents"
        entries: dict[str, Any] = {}
        with problems.each():
            entries = as_mapping(data.get("intents"), at, "intents")
        for name, raw in entries.items():
            i_at = at / name
            entry = raw if isinstance(raw, dict) else {}
            is_change = not file.shipped and (
                "override" in entry or "enabled" in entry or not any(k in entry for k in DEFINES)
            )
            if is_change:
                changes.append((file, str(name), entry, i_at))
                continue
            with problems.each():
                _define(catalog, file, str(name), raw, i_at, slots)
    for file, name, entry, at in changes:
        with problems.each():
            _change(catalog, file, name, entry, at, slots, problems)
    return catalog


def _define(
    catalog: Catalog, file: YamlFile, name: str, raw: Any, at: At, slots: dict[str, SlotSpec]
) -> None:
    if name in catalog.intents:
        first = catalog.intents[name]
        raise at.error(
            f"intent {name!r} is already defined in {first.path}"
            + (
                ""
                if file.shipped
                else "; to add phrases or examples to it, list only those, "
                "and to replace it, write `override: true`"
            )
        )
    spec = load_intent(name, raw, at, slots)
    spec.origins.append(_origin("defined", file, at))
    catalog.intents[name] = spec


def _change(
    catalog: Catalog,
    file: YamlFile,
    name: str,
    entry: dict[str, Any],
    at: At,
    slots: dict[str, SlotSpec],
    problems: Problems,
) -> None:
    """An owner's entry for an intent defined elsewhere: override, switch off or extend."""
    spec = catalog.intents.get(name)
    if spec is None:
        if name in catalog.disabled:
            raise at.error(f"intent {name!r} is switched off (enabled: false) in another file")
        hint = closest(name, tuple(catalog.intents))
        raise at.error(
            f"intent {name!r} is not defined anywhere{hint}: a new intent needs a source "
            "(or do: steps, or a say: reply)"
        )
    if "enabled" in entry:
        if set(entry) != {"enabled"} or not isinstance(entry["enabled"], bool):
            raise at.error(f"intent {name!r}: `enabled: false` switches it off, and stands alone")
        if not entry["enabled"]:
            spec.origins.append(_origin("disabled", file, at))
            catalog.disabled[name] = catalog.intents.pop(name)
        return
    if "override" in entry:
        if entry["override"] is not True:
            raise (at / "override").error(f"intent {name!r}: override is true, or left out")
        definition = {k: v for k, v in entry.items() if k != "override"}
        replacement = load_intent(name, definition, at, slots)
        replacement.origins = [*spec.origins, _origin("overridden", file, at)]
        catalog.intents[name] = replacement
        return
    for key in entry:
        if key not in EXTENDS:
            raise (at / key).error(
                f"intent {name!r} is defined in {spec.path}: an owner's file may add "
                f"{', '.join(EXTENDS)} to it, or replace it whole with `override: true` "
                f"(not {key!r} alone)"
            )
    _extend(spec, file, entry, at, problems)


def _extend(
    spec: IntentSpec, file: YamlFile, entry: dict[str, Any], at: At, problems: Problems
) -> None:
    known = {p.text.lower() for p in spec.phrases}
    for phrase in load_phrases(entry.get("phrases"), at / "phrases", problems):
        if phrase.text.lower() in known:
            where = phrase.at or at
            problems.add(
                where.error(f"intent {spec.name!r} already has the phrase {phrase.text!r}")
            )
            continue
        known.add(phrase.text.lower())
        spec.phrases.append(phrase)
    spec.avoid += load_phrases(entry.get("avoid"), at / "avoid", problems)
    spec.examples += load_examples(entry.get("examples"), spec.name, at / "examples", problems)
    spec.origins.append(_origin("extended", file, at))
