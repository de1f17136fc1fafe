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

    @property
    def errors(self) -> list[ConfigError]:
        """Every problem this error stands for (one; `ConfigErrors` holds many)."""
        return [self]


class ConfigErrors(ConfigError):
    """Several problems found in one reading, so an owner fixes them all in one go;
    it reads as the first, and `errors` holds every one, in file order."""

    def __init__(self, errors: list[ConfigError]) -> None:
        flat = [e for error in errors for e in error.errors]
        first = flat[0]
        super().__init__(first.path, first.line, first.reason)
        self.all = flat
        self.args = ("\n".join(str(e) for e in flat),)

    @property
    def errors(self) -> list[ConfigError]:
        return list(self.all)


def read_text(path: Path) -> str:
    """A file's text as UTF-8; a file in another encoding names its line, not a traceback."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            path,
            line,
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); "
            "save the file as UTF-8",
        ) from exc


def _tab_line(text: str, upto: int | None) -> int | None:
    """The first line (1-based, not after ``upto``) whose indentation holds a tab."""
    for number, line in enumerate(text.splitlines(), 1):
        if upto is not None and number > upto:
            return None
        if "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
            return number
    return None


def read_yaml(path: Path, lines: bool = False) -> Any:
    """The file's data; with ``lines``, its node tree is kept for `line_of` (an intents
    file, whose every example asks for its line). A large file (the devices) is not
    kept: its tree would only weigh on memory and the garbage collector."""
    stamp: tuple[str, float] | None = None
    if lines:
        try:
            stamp = (str(path), path.stat().st_mtime)
        except OSError:
            stamp = None
    text = read_text(path)
    try:
        return _load_keeping_nodes(text, stamp)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        tab = _tab_line(text, line)
        if tab is not None:
            raise ConfigError(
                path, tab, f"line {tab} starts with a tab; YAML needs spaces"
            ) from exc
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(path, line, f"invalid YAML: {problem}") from exc


_COMPOSED: dict[tuple[str, float], Any] = {}


def _load_keeping_nodes(text: str, stamp: tuple[str, float] | None) -> Any:
    """``safe_load(text)``, keeping the node tree it composes for `line_of` (which would
    otherwise compose the file a second time); a file with merge keys is not kept, as
    constructing it rewrites its tree."""
    loader = _SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
        if stamp is not None and "<<" not in text:
            _COMPOSED[stamp] = node
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def _composed(path: Path) -> Any:
    """The node tree of a file, composed once (safe loader; only for line numbers)."""
    try:
        key = (str(path), path.stat().st_mtime)
        if key not in _COMPOSED:
            _COMPOSED[key] = yaml.compose(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
        return _COMPOSED[key]
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def _node_at(path: Path, keys: tuple[Any, ...]) -> Any:
    node = _composed(path)
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if _key_is(k, key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return None
    return node


def as_written(path: Path, keys: tuple[Any, ...]) -> str | None:
    """The scalar at ``keys`` as the file spells it ("on" where YAML read True)."""
    node = _node_at(path, keys)
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _key_is(node: Any, key: Any) -> bool:
    """A mapping key node is ``key``; an unquoted on/off key is the boolean YAML read."""
    if isinstance(key, bool):
        return bool(node.tag.endswith(":bool")) and safe_load(node.value) is key
    return bool(node.value == str(key))


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
                if _key_is(k, key):
                    nxt = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            nxt = node.value[key]
            line = nxt.start_mark.line + 1
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

    def where(self) -> str:
        """ "path:line" (or the path alone), for messages that point at a place."""
        line = self.line()
        return f"{self.path}:{line}" if line else str(self.path)


def boolean_word(value: Any, at: At) -> str:
    """Why a true/false is not text: "YAML reads on as true; write "on" in quotes"."""
    word = as_written(at.path, at.keys) or ("on" if value else "off")
    return f'YAML reads {word} as {str(value).lower()}; write "{word}" in quotes'


def as_text(value: Any, at: At, what: str) -> str:
    """A string where a string is meant; an unquoted on/off/yes/no says so."""
    if isinstance(value, bool):
        raise at.error(f"{what}: {boolean_word(value, at)}")
    if not isinstance(value, str | int | float):
        raise at.error(f"{what} must be text, not {type(value).__name__}")
    return str(value)


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
            word = boolean_word(item, at / i)
            raise (at / i).error(f"{what}: {word} (YAML reads on/off/yes/no as true/false)")
        if not isinstance(item, str | int | float):
            raise (at / i).error(f"{what} must hold strings, not {type(item).__name__}")
        out.append(str(item))
    return out


def lower_words(value: Any, at: At, what: str) -> list[str]:
    return [" ".join(s.lower().split()) for s in as_strings(value, at, what)]
