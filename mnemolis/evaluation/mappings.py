"""What `mnemolis eval` reads beside the rows: label-to-source mappings for the public
datasets (HWU64, MixSNIPS) and the scoring words; every problem a `DataError` with its
file and line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mnemolis.config import ConfigError
from mnemolis.sources import registry as source_registry

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_MAPPINGS = {
    "hwu64": PACKAGE_DIR / "hwu64_sources.yaml",
    "mixsnips": PACKAGE_DIR / "mixsnips_sources.yaml",
}


class DataError(ConfigError):
    """Bad labelled data or a bad mapping, located at a file and line like a
    configuration error; `mnemolis eval` reports it and exits 2."""


@dataclass
class SourceMapping:
    """Dataset labels -> sources, read from a YAML file."""

    path: str
    sources: dict[str, str | None] = field(default_factory=dict)
    default: str | None = None
    has_default: bool = False

    def source_of(self, label: str, where: Path | str, line: int) -> str | None:
        if label in self.sources:
            return self.sources[label]
        if self.has_default:
            return self.default
        raise DataError(where, line, f"label {label!r} is not in the mapping {self.path}")


# --------------------------------------------------------------------------- mapping


def source_name(value: Any, path: Path, what: str, line: int | None = None) -> str | None:
    """A source the registry knows, or None for "null"; anything else is a `DataError`."""
    if value is None or value == "null":
        return None
    if not isinstance(value, str) or value not in source_registry.names():
        known = source_registry.expected()
        raise DataError(path, line, f"{what}: {value!r} is not a source ({known})")
    return value


def load_mapping(path: Path | str) -> SourceMapping:
    """Read ``default:`` and ``sources: {source: [label, ...]}`` with the safe loader."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(path, None, f"cannot read the mapping: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise DataError(path, mark.line + 1 if mark else None, "invalid YAML") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sources"), dict):
        raise DataError(path, None, "a mapping needs `sources: {source: [labels]}`")
    mapping = SourceMapping(path=str(path))
    if "default" in data:
        mapping.has_default = True
        mapping.default = source_name(data["default"], path, "default")
    for key, labels in data["sources"].items():
        source = source_name(key, path, "sources")
        if isinstance(labels, str):
            labels = [labels]
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise DataError(path, None, f"sources.{key} must be a list of labels")
        for label in labels:
            if label in mapping.sources and mapping.sources[label] != source:
                raise DataError(path, None, f"label {label!r} is mapped to two sources")
            mapping.sources[label] = source
    return mapping


# --------------------------------------------------------------------------- scoring


SCORING_FILE = PACKAGE_DIR / "scoring.yaml"


def load_edge_words(path: Path | str = SCORING_FILE) -> list[str]:
    """The words split comparison ignores at the edges of a part (scoring.yaml)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(path, None, f"cannot read the scoring file: {exc}") from exc
    edges = data.get("edge_words") if isinstance(data, dict) else None
    if not isinstance(edges, list) or not all(isinstance(w, str) for w in edges):
        raise DataError(path, None, "`edge_words` must be a list of strings")
    return edges
