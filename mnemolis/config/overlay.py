"""An owner's configuration directory, laid over the shipped one.

The shipped files (the checkout's `intents/` and `sources/`, or
`share/mnemolis/` once installed) are never edited: an upgrade replaces them.
The owner's directory (`--config`, `$MNEMOLIS_CONFIG`, `/etc/mnemolis`) holds
only what differs:

- `intents/<lang>/<name>.yaml` named like a shipped file replaces that file
  (a full copy, as older installs made, keeps working); under any other name
  its intents are added to the shipped ones, and may extend, override or
  switch off a shipped intent by name (`catalog`);
- `intents/<lang>/language.yaml` and every `sources/<name>.yaml` override
  the shipped file key by key, at every depth (a list is replaced whole);
  the home itself, `devices:` and `rooms:` of `sources/mqtt.yaml`, is the
  owner's alone: an owner's `mqtt.yaml` never inherits the demo home.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Keys of a source file that describe the owner's home rather than settings: when
#: the owner has the file, these come from it alone (absent means none).
HOME_KEYS: dict[str, tuple[str, ...]] = {"mqtt": ("devices", "rooms")}
LANGUAGE_FILE = "language"


@dataclass(frozen=True)
class Layer:
    """One configuration directory: the shipped defaults, or the owner's over them."""

    root: Path
    shipped: bool


@dataclass(frozen=True)
class YamlFile:
    """One file of one layer; ``replaces`` is the shipped file of the same name."""

    path: Path
    shipped: bool
    replaces: Path | None = None

    @property
    def stem(self) -> str:
        return self.path.stem


def layers_of(root: Path, bundled: Path) -> list[Layer]:
    """The shipped layer, and the owner's directory over it unless it is the same."""
    if root.resolve() == bundled.resolve():
        return [Layer(bundled, True)]
    return [Layer(bundled, True), Layer(root, False)]


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def intent_files(layers: list[Layer], language: str) -> list[YamlFile]:
    """Every intents file in reading order: the shipped ones, each in its place even
    when the owner's file of the same name stands in for it, then the owner's own."""
    shipped = [
        p for layer in layers if layer.shipped for p in _yaml_files(_intents(layer, language))
    ]
    owner = [
        p for layer in layers if not layer.shipped for p in _yaml_files(_intents(layer, language))
    ]
    owner_by_name = {p.name: p for p in owner}
    out: list[YamlFile] = []
    for path in shipped:
        mine = owner_by_name.pop(path.name, None)
        out.append(YamlFile(mine, False, path) if mine is not None else YamlFile(path, True))
    out += [YamlFile(p, False) for p in owner if p.name in owner_by_name]
    return out


def _intents(layer: Layer, language: str) -> Path:
    return layer.root / "intents" / language


def source_files(layers: list[Layer]) -> dict[str, list[YamlFile]]:
    """Each `sources/<stem>.yaml`, shipped first, then the owner's."""
    out: dict[str, list[YamlFile]] = {}
    for layer in layers:
        for path in _yaml_files(layer.root / "sources"):
            out.setdefault(path.stem, []).append(YamlFile(path, layer.shipped))
    return out


def merged(owner: Any, default: Any) -> Any:
    """The owner's mapping over the default one, key by key, at every depth."""
    if isinstance(owner, dict) and isinstance(default, dict):
        out = dict(default)
        for key, value in owner.items():
            out[key] = merged(value, default.get(key))
        return out
    return default if owner is None else owner


def layered(
    stem: str, shipped: dict[str, Any] | None, owner: dict[str, Any] | None
) -> dict[str, Any]:
    """One source file as the sources read it: the owner's keys over the shipped ones."""
    if owner is None:
        return dict(shipped or {})
    out: dict[str, Any] = merged(owner, shipped or {})
    for key in HOME_KEYS.get(stem, ()):
        if key in owner:
            out[key] = owner[key]
        else:
            out.pop(key, None)
    return out
