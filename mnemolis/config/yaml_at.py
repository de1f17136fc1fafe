"""YAML with positions: the safe loader, and errors that name the file and line.

YAML is always read with the safe loader (`safe_load`, in its C build when
PyYAML has one: the same safe constructor, ten times faster at start-up).
When a value is wrong, the file is composed once more (still with the safe
loader) to find the line of the offending key, so an owner sees
``intents/en/devices.yaml:12: ...``. Every source reads its own file with
these helpers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load``, with the C safe loader when available."""
    return yaml.load(text, Loader=_SAFE_LOADER)


class ConfigError(Exception):
    """A configuration problem, located at a file and line."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


def read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(path, line, f"invalid YAML: {problem}") from exc


_COMPOSED: dict[tuple[str, float], Any] = {}


def _composed(path: Path) -> Any:
    """The node tree of a file, composed once (safe loader; only for line numbers)."""
    try:
        key = (str(path), path.stat().st_mtime)
        if key not in _COMPOSED:
            _COMPOSED[key] = yaml.compose(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
        return _COMPOSED[key]
    except (OSError, yaml.YAMLError):
        return None


def line_of(path: Path, keys: tuple[Any, ...]) -> int | None:
    """The 1-based line of the node at ``keys``, or of its nearest ancestor."""
    node = _composed(path)
    if node is None:
        return None
    line = None
    for key in keys:
        if node is None:
            break
        line = node.start_mark.line + 1
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == str(key):
                    nxt = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            nxt = node.value[key]
        node = nxt
    if node is not None and line is None:
        line = node.start_mark.line + 1
    return line


@dataclass
class At:
    """A position in one YAML file, for errors that name file and line."""

    path: Path
    keys: tuple[Any, ...] = ()

    def __truediv__(self, key: Any) -> At:
        return At(self.path, (*self.keys, key))

    def error(self, reason: str) -> ConfigError:
        return ConfigError(self.path, line_of(self.path, self.keys), reason)

    def line(self) -> int | None:
        return line_of(self.path, self.keys)


def as_mapping(value: Any, at: At, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise at.error(f"{what} must be a mapping, not {type(value).__name__}")
    return value


def as_strings(value: Any, at: At, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise at.error(f"{what} must be a list of strings")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, bool):
            raise (at / i).error(
                f"{what}: YAML reads on/off/yes/no as true/false; write it in quotes"
            )
        if not isinstance(item, str | int | float):
            raise (at / i).error(f"{what} must hold strings, not {type(item).__name__}")
        out.append(str(item))
    return out


def lower_words(value: Any, at: At, what: str) -> list[str]:
    return [" ".join(s.lower().split()) for s in as_strings(value, at, what)]
