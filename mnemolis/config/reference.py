"""The keys of a shipped YAML file with their comments: the configuration reference.

The shipped files under `sources/` and `intents/` are the defaults and are
written to be read: each key carries its comment, on its line or just above
it, and an optional key that is not set by default is written commented out
(``# reconnect_max_s: 30``) at the depth where it belongs. `document` reads
that back into rows (key path, shipped value, comment), so the documentation
site's reference is made from the files themselves and cannot drift from them.

A mapping whose keys are names rather than settings (cities, colours, the
sentences of a declined intent) is one row, its value shown as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

#: A key that is a setting's name; any other key makes its mapping one row of data.
_SETTING = re.compile(r"[a-z_][a-z0-9_]*\Z")
#: A commented-out key: ``# name: value`` (one space after the ``#``).
_COMMENTED_KEY = re.compile(r"# ([a-z_][a-z0-9_]*):(?:\s+(.*))?\Z")
_SHOWN_CHARS = 70


@dataclass(frozen=True)
class Key:
    """One row of the reference."""

    path: str  # "broker.host", "devices[].topics.state"
    shipped: str | None  # the value as the shipped file writes it; None for a section
    comment: str
    optional: bool = False  # written only in a comment: not set by default

    @property
    def holds_data(self) -> bool:
        """A row whose value is a whole mapping or list (names, not settings)."""
        return self.shipped is not None and self.shipped[:1] in ("{", "[")


@dataclass(frozen=True)
class Document:
    """A shipped file: its opening comment, and one row per key."""

    intro: list[str]  # the file's opening comment, one string per line
    keys: list[Key]

    def paths(self) -> set[str]:
        return {key.path for key in self.keys}

    def covers(self, path: str) -> bool:
        """Whether the reference names this key, itself or inside a row of data."""
        if path in self.paths():
            return True
        data = {key.path for key in self.keys if key.holds_data}
        parts = path.replace("[]", ".[]").split(".")
        return any(".".join(parts[:i]).replace(".[]", "[]") in data for i in range(1, len(parts)))


def document(path: Path) -> Document:
    """Read one shipped YAML file into its reference rows."""
    text = path.read_text(encoding="utf-8")
    return _Reader(text).document()


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        self.header_end = self._header_end()
        self.continued = self._continuations()

    def document(self) -> Document:
        intro = [_uncomment(line) for line in self.lines[: self.header_end]]
        keys: dict[str, Key] = {}
        if isinstance(self.root, MappingNode):
            for key in self._walk(self.root, ""):
                keys.setdefault(key.path, key)
        return Document(intro=intro, keys=list(keys.values()))

    # ------------------------------------------------------------------ comments

    def _header_end(self) -> int:
        """The first line after the file's opening comment."""
        for number, line in enumerate(self.lines):
            if not line.lstrip().startswith("#"):
                return number
        return len(self.lines)

    def _continuations(self) -> set[int]:
        """Comment-only lines that carry on the comment at the end of the line above."""
        found: set[int] = set()
        column: int | None = None
        for number, line in enumerate(self.lines):
            stripped = line.lstrip()
            if stripped.startswith("#"):
                here = len(line) - len(stripped)
                if column is not None and here == column:
                    found.add(number)
                    continue
                column = None
            else:
                column = _trailing_column(line)
        return found

    def _above(self, line: int) -> list[str]:
        """The comment block written just above a key (not the file's opening one)."""
        block: list[str] = []
        number = line - 1
        while number >= self.header_end and self.lines[number].lstrip().startswith("#"):
            if number in self.continued or _COMMENTED_KEY.match(self.lines[number].strip()):
                break
            block.insert(0, _uncomment(self.lines[number]))
            number -= 1
        return block

    def _trailing(self, line: int) -> list[str]:
        """The comment at the end of a key's line, with its continuation lines."""
        column = _trailing_column(self.lines[line])
        if column is None:
            return []
        said = [self.lines[line][column + 1 :].strip()]
        number = line + 1
        while number in self.continued:
            said.append(_uncomment(self.lines[number]))
            number += 1
        return said

    def _comment(self, line: int) -> str:
        return " ".join(part for part in [*self._above(line), *self._trailing(line)] if part)

    # ------------------------------------------------------------------ keys

    def _walk(self, node: MappingNode, prefix: str) -> Iterator[Key]:
        for key_node, value in node.value:
            name = str(key_node.value)
            path = f"{prefix}{name}"
            line = key_node.start_mark.line
            comment = self._comment(line)
            if isinstance(value, MappingNode) and _expanded(value):
                yield Key(path, None, comment)
                yield from self._walk(value, f"{path}.")
            elif isinstance(value, SequenceNode) and _records(value):
                yield Key(path, None, comment)
                for item in value.value:
                    assert isinstance(item, MappingNode)
                    yield from self._walk(item, f"{path}[].")
            else:
                yield Key(path, self._shown(value), comment)
        yield from self._commented(node, prefix)

    def _commented(self, node: MappingNode, prefix: str) -> Iterator[Key]:
        """Keys written commented out at this mapping's depth: optional, not set."""
        if not node.value:
            return
        column = node.value[0][0].start_mark.column
        first = max(node.start_mark.line, self.header_end)
        for number in range(first, min(node.end_mark.line + 1, len(self.lines))):
            line = self.lines[number]
            stripped = line.lstrip()
            if len(line) - len(stripped) != column:
                continue
            match = _COMMENTED_KEY.match(stripped)
            if match is None or number in self.continued:
                continue
            value, _, said = (match.group(2) or "").partition("  #")
            yield Key(f"{prefix}{match.group(1)}", value.strip(), said.strip(), optional=True)

    def _shown(self, node: Node) -> str:
        """A value as the file writes it, on one line and not too long."""
        start, end = node.start_mark, node.end_mark
        if start.line == end.line:
            written = self.lines[start.line][start.column : end.column]
        else:
            written = yaml.safe_dump(
                yaml.safe_load(yaml.serialize(node)),
                default_flow_style=True,
                width=10_000,
                sort_keys=False,
                allow_unicode=True,
            ).strip()
        written = " ".join(written.split())
        if len(written) > _SHOWN_CHARS:
            written = written[: _SHOWN_CHARS - 1].rstrip(" ,") + " …"
            if written[:1] in "[{":
                written += "]" if written[0] == "[" else "}"
        return written


def _expanded(node: MappingNode) -> bool:
    """A block of settings, shown key by key (a mapping written on one line is one row)."""
    return bool(node.value) and not node.flow_style and _settings(node)


def _settings(node: MappingNode) -> bool:
    """A mapping of settings, not a table of names."""
    return all(
        isinstance(key, ScalarNode) and _SETTING.match(str(key.value)) for key, _ in node.value
    )


def _records(node: SequenceNode) -> bool:
    """A list of mappings of settings (devices, rooms): its keys are documented."""
    return bool(node.value) and all(
        isinstance(item, MappingNode) and _settings(item) for item in node.value
    )


def _uncomment(line: str) -> str:
    stripped = line.strip()
    return stripped[2:] if stripped.startswith("# ") else stripped.lstrip("#")


def _trailing_column(line: str) -> int | None:
    """Where a comment starts after YAML on the same line (outside quotes)."""
    quote: str | None = None
    for column, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'" and (column == 0 or line[column - 1] in " [{,:"):
            quote = char
        elif char == "#" and column > 0 and line[column - 1] in " \t":
            return column if line[:column].strip() else None
    return None


# --------------------------------------------------------------------------- the page


def page(doc: Document, name: str, text: str, lead: str = "") -> str:
    """The Markdown page of one shipped file: its opening comment, a table of its keys
    per section, and the file itself (``text``) to read whole."""
    out = [f"# `{name}`", "", *_paragraphs(doc.intro)]
    if lead:
        out += ["", lead]
    sections: dict[str, list[Key]] = {"": []}
    said: dict[str, str] = {}
    for key in doc.keys:
        top, _, rest = key.path.partition(".")
        top = top.removesuffix("[]")
        if key.shipped is None and key.path == top:
            sections.setdefault(top, [])
            said[top] = key.comment
        elif top in sections and (rest or key.path != top):
            sections[top].append(key)
        else:
            sections[""].append(key)
    for section, keys in sections.items():
        if section:
            out += ["", f"## `{section}`", ""]
            if said.get(section):
                out += [_prose(said[section]), ""]
        elif keys:
            out += ["", "## Settings", ""]
        if keys:
            out += ["| Key | Shipped value | What it does |", "|---|---|---|"]
            out += [_row(key) for key in keys]
    body = "\n".join(f"    {line}" if line else "" for line in text.splitlines())
    out += ["", "## The shipped file", "", f'??? example "{name}"', "    ```yaml", body, "    ```"]
    return "\n".join(out) + "\n"


def _row(key: Key) -> str:
    if key.optional:
        value = f"not set (e.g. {_code(key.shipped or '')})" if key.shipped else "not set"
    elif key.shipped is None:
        value = "(a section)"
    else:
        value = _code(key.shipped)
    return f"| {_code(key.path)} | {value} | {_prose(key.comment)} |"


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text.replace('|', '&#124;')}{pad}{fence}"


def _prose(text: str) -> str:
    """A comment as Markdown: its code spans kept, and nothing read as HTML, a table, a
    link or an attribute list."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        parts = [text.replace("`", "'")]
    for i in range(0, len(parts), 2):
        plain = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for char in "*|_{}[]":
            plain = plain.replace(char, "\\" + char)
        parts[i] = plain
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("|", "&#124;")
    return "`".join(parts)


def _paragraphs(lines: list[str]) -> list[str]:
    """The opening comment: prose as paragraphs, indented lines as a code block."""
    out: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("  ") and line.strip():
            block.append(line)
            continue
        if block:
            out += ["", "```yaml", *_dedent(block), "```", ""]
            block = []
        out.append(_prose(line) if line.strip() else "")
    return out


def _dedent(lines: list[str]) -> list[str]:
    cut = min(len(line) - len(line.lstrip()) for line in lines)
    return [line[cut:] for line in lines]
