"""`sources/lists.yaml`, checked once into typed settings.

A wrong value is a `ConfigError` naming the file and line; the lists source
turns it into an error answer rather than failing to start. Words and
replies the owner leaves out come from the shipped file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import At, Config, as_mapping
from mnemolis.config.bundled import bundled_source_yaml, merged
from mnemolis.sources.phrasing import Sentences, phrases

KNOWN_KEYS = (
    "file",
    "busy_timeout_s",
    "timeout_s",
    "max_items",
    "create_on_add",
    "builtin",
    "default_list",
    "words",
    "replies",
)


def _singles(value: Any) -> frozenset[str]:
    return frozenset(" ".join(w) for w in phrases(value))


@dataclass(frozen=True)
class ListWords:
    """What a list request may say besides its items."""

    lead: tuple[tuple[str, ...], ...] = ()
    ask: tuple[tuple[str, ...], ...] = ()
    destinations: frozenset[str] = frozenset()
    list_words: frozenset[str] = frozenset()
    determiners: frozenset[str] = frozenset()
    tail: tuple[tuple[str, ...], ...] = ()
    joiners: tuple[tuple[str, ...], ...] = ()
    item_fillers: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()
    not_names: frozenset[str] = frozenset()
    known_items: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def from_yaml(cls, data: Any) -> ListWords:
        raw = data if isinstance(data, dict) else {}
        return cls(
            lead=phrases(raw.get("lead")),
            ask=phrases(raw.get("ask")),
            destinations=_singles(raw.get("destinations")),
            list_words=_singles(raw.get("list_words")),
            determiners=_singles(raw.get("determiners")),
            tail=phrases(raw.get("tail")),
            joiners=phrases(raw.get("joiners")),
            item_fillers=_singles(raw.get("item_fillers")),
            named=_singles(raw.get("named")),
            not_names=_singles(raw.get("not_names")),
            known_items=phrases(raw.get("known_items")),
        )


@dataclass(frozen=True)
class BuiltinList:
    name: str  # the list_name slot's value ("shopping", "to do")
    said: str  # how an answer names it ("shopping list")
    split: bool = True  # "and" joins items (false: it stays inside a task)


class ListReplies(Sentences):
    """The lists source's sentences (`replies:` of `sources/lists.yaml`)."""

    def __init__(self, data: Any, defaults: Any) -> None:
        super().__init__(data, defaults, "sources/lists.yaml")

    def count(self, n: int, key: str = "items_word") -> str:
        return super().count(n, key)


@dataclass(frozen=True)
class ListsSettings:
    path: Path
    busy_timeout_s: float = 5.0
    max_items: int = 500
    create_on_add: bool = True
    builtin: dict[str, BuiltinList] = field(default_factory=dict)
    default_list: str = "shopping"
    words: ListWords = field(default_factory=ListWords)
    replies: ListReplies = field(default_factory=lambda: ListReplies({}, {}))

    def said(self, name: str) -> str:
        """ "shopping list", "to-do list", "packing list"."""
        builtin = self.builtin.get(name)
        return builtin.said if builtin else f"{name} list"

    def splits(self, name: str) -> bool:
        builtin = self.builtin.get(name)
        return builtin.split if builtin else True


def load_lists_settings(config: Config, state_dir: Path) -> ListsSettings:
    path = config.root / "sources" / "lists.yaml"
    at = At(path)
    raw = as_mapping(config.sources.get("lists"), at, "the file")
    for key in raw:
        if key not in KNOWN_KEYS:
            raise (at / key).error(f"unknown key {key!r} (one of {', '.join(KNOWN_KEYS)})")
    defaults = bundled_source_yaml("lists")
    file = raw.get("file", "lists.sqlite3")
    if not isinstance(file, str) or not file.strip():
        raise (at / "file").error("file must be a file name or an absolute path")
    db = Path(file).expanduser()
    builtin = _builtin(merged(raw.get("builtin"), None) or defaults.get("builtin"), at / "builtin")
    default_list = " ".join(str(raw.get("default_list", "shopping")).lower().split())
    if default_list not in builtin:
        raise (at / "default_list").error(
            f"default_list must be one of the builtin lists ({', '.join(builtin)}), "
            f"not {default_list!r}"
        )
    create = raw.get("create_on_add", True)
    if not isinstance(create, bool):
        raise (at / "create_on_add").error("create_on_add must be true or false")
    busy = _number(raw.get("busy_timeout_s", 5), at / "busy_timeout_s", 0.1, 120)
    answer = _number(raw.get("timeout_s", defaults.get("timeout_s", 8)), at / "timeout_s", 0.1, 300)
    if answer <= busy:
        # the answer's deadline (read by the executor) must leave room to wait for the lock
        raise (at / "timeout_s").error(
            f"timeout_s ({answer:g}) must be longer than busy_timeout_s ({busy:g})"
        )
    return ListsSettings(
        path=db if db.is_absolute() else state_dir / db,
        busy_timeout_s=busy,
        max_items=int(_number(raw.get("max_items", 500), at / "max_items", 1, 100_000)),
        create_on_add=create,
        builtin=builtin,
        default_list=default_list,
        words=ListWords.from_yaml(merged(raw.get("words"), defaults.get("words") or {})),
        replies=ListReplies(raw.get("replies"), defaults.get("replies") or {}),
    )


def _builtin(value: Any, at: At) -> dict[str, BuiltinList]:
    table = as_mapping(value, at, "builtin")
    if not table:
        raise at.error("builtin needs at least one list (the shopping list)")
    out: dict[str, BuiltinList] = {}
    for name, spec in table.items():
        spec = as_mapping(spec, at / name, "a builtin list")
        key = " ".join(str(name).lower().split())
        said = spec.get("said", f"{key} list")
        split = spec.get("split", True)
        if not isinstance(said, str) or not isinstance(split, bool):
            raise (at / name).error("a builtin list is {said: text, split: true|false}")
        out[key] = BuiltinList(key, said, split)
    return out


def _number(value: Any, at: At, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        key = at.keys[-1] if at.keys else "value"
        raise at.error(f"{key} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def check_settings(config: Config) -> None:
    """For `mnemolis check`: these settings read as the source reads them (no environment
    overrides, nothing opened), raising `ConfigError` with file and line."""
    load_lists_settings(config, Path("state"))
