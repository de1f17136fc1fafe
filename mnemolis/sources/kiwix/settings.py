"""`sources/kiwix.yaml` and ``$MNEMOLIS_KIWIX`` read into typed settings.

A wrong value never stops the daemon: it is replaced by its default and the
problem is kept, so the first knowledge answer (and `doctor`) can say what to
fix in which file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import Config, ConfigError, ConfigErrors

ENV_VAR = "MNEMOLIS_KIWIX"
#: The word in ``$MNEMOLIS_KIWIX`` that stands for the demo ZIM.
DEMO_WORD = "demo"
_FILE = "sources/kiwix.yaml"


@dataclass
class BookSpec:
    """One configured book: a ZIM file, or a book of a kiwix-serve by name."""

    path: Path | None = None
    name: str | None = None
    language: str | None = None  # as configured; normalised to ISO 639-3 by the source


@dataclass
class TextRules:
    """The language-dependent words reading an article needs (from `text:`)."""

    title_joiners: list[str] = field(default_factory=list)
    abbreviations: set[str] = field(default_factory=set)
    disambiguation: list[str] = field(default_factory=list)
    list_prefixes: list[str] = field(default_factory=list)
    languages: dict[str, str] = field(default_factory=dict)  # ISO 639-1 -> 639-3


@dataclass
class KiwixSettings:
    books: list[BookSpec] = field(default_factory=list)
    url: str | None = None
    demo: bool = True
    use_demo: bool = False  # the demo ZIM is one of the books
    sentences: int = 3
    max_chars: int = 420
    timeout_s: float = 3.0
    candidates: int = 8
    options: int = 3
    title_index_limit: int = 3_000_000
    title_fetch: int = 500
    text: TextRules = field(default_factory=TextRules)
    from_env: bool = False
    problems: list[str] = field(default_factory=list)


def _number(
    raw: dict[str, Any],
    key: str,
    default: float,
    low: float,
    high: float,
    problems: list[str],
    whole: bool = True,
) -> Any:
    value = raw.get(key, default)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high
    if ok and whole and not float(value).is_integer():
        ok = False
    if not ok:
        kind = "a whole number" if whole else "a number"
        problems.append(
            f"{_FILE}: {key} must be {kind} from {low:g} to {high:g}, not {value!r}; "
            f"using {default:g}"
        )
        return default
    return int(value) if whole else float(value)


def _words(raw: Any, key: str, problems: list[str]) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(w, str) for w in raw):
        problems.append(f"{_FILE}: text.{key} must be a list of words")
        return []
    return [" ".join(w.lower().split()) for w in raw if w.strip()]


def _text_rules(raw: Any, problems: list[str]) -> TextRules:
    if not isinstance(raw, dict):
        if raw is not None:
            problems.append(f"{_FILE}: text must be a mapping")
        raw = {}
    languages = raw.get("languages") or {}
    if not isinstance(languages, dict):
        problems.append(f"{_FILE}: text.languages must map ISO 639-1 codes to ISO 639-3")
        languages = {}
    return TextRules(
        title_joiners=_words(raw.get("title_joiners"), "title_joiners", problems),
        abbreviations=set(_words(raw.get("abbreviations"), "abbreviations", problems)),
        disambiguation=_words(raw.get("disambiguation"), "disambiguation", problems),
        list_prefixes=_words(raw.get("list_prefixes"), "list_prefixes", problems),
        languages={str(k).lower(): str(v).lower() for k, v in languages.items()},
    )


def _books(raw: Any, root: Path, problems: list[str]) -> list[BookSpec]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(f"{_FILE}: books must be a list")
        return []
    books = []
    for i, item in enumerate(raw):
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or not (
            isinstance(item.get("path"), str) or isinstance(item.get("name"), str)
        ):
            problems.append(f"{_FILE}: book #{i + 1} needs a path (or, with url, a name)")
            continue
        path = Path(item["path"]).expanduser() if isinstance(item.get("path"), str) else None
        if path is not None and not path.is_absolute():
            path = root / path
        language = item.get("language")
        books.append(
            BookSpec(
                path=path,
                name=item.get("name") if isinstance(item.get("name"), str) else None,
                language=str(language).lower() if language else None,
            )
        )
    return books


def _from_env(value: str, settings: KiwixSettings) -> None:
    """``$MNEMOLIS_KIWIX``: ZIM paths, a kiwix-serve URL or "demo", comma separated."""
    settings.books, settings.url, settings.use_demo = [], None, False
    settings.from_env = True
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        if item.lower() == DEMO_WORD:
            settings.use_demo = True
        elif item.startswith(("http://", "https://")):
            if settings.url is not None:
                settings.problems.append(
                    f"{ENV_VAR}: only one kiwix-serve URL is used; {item} ignored"
                )
            else:
                settings.url = item.rstrip("/")
        else:
            settings.books.append(BookSpec(path=Path(item).expanduser()))


def read_settings(config: Config, environ: Mapping[str, str]) -> KiwixSettings:
    raw = config.sources.get("kiwix") or {}
    problems: list[str] = []
    if not isinstance(raw, dict):
        problems.append(f"{_FILE}: expected a mapping of settings")
        raw = {}
    settings = KiwixSettings(problems=problems)
    settings.books = _books(raw.get("books"), config.root, problems)
    url = raw.get("url")
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        problems.append(f"{_FILE}: url must start with http:// or https://, not {url!r}")
        url = None
    settings.url = url.rstrip("/") if url else None
    settings.demo = bool(raw.get("demo", True))
    settings.sentences = _number(raw, "sentences", 3, 1, 10, problems)
    settings.max_chars = _number(raw, "max_chars", 420, 80, 4000, problems)
    settings.timeout_s = _number(raw, "timeout_s", 3.0, 0.05, 60, problems, whole=False)
    settings.candidates = _number(raw, "candidates", 8, 1, 50, problems)
    settings.options = _number(raw, "options", 3, 2, 10, problems)
    settings.title_index_limit = _number(
        raw, "title_index_limit", 3_000_000, 0, 100_000_000, problems
    )
    settings.title_fetch = _number(raw, "title_fetch", 500, 0, 10_000, problems)
    settings.text = _text_rules(raw.get("text"), problems)
    env = environ.get(ENV_VAR, "").strip()
    if env:
        _from_env(env, settings)
    elif settings.demo and not settings.books and not settings.url:
        settings.use_demo = True
    return settings


def check_settings(config: Config) -> None:
    """For `mnemolis check`: the problems the source would report at start-up, at once
    (the books' files themselves are `doctor`'s: a missing ZIM is not a broken file)."""
    problems = read_settings(config, {}).problems
    if problems:
        path = config.root / _FILE
        raise ConfigErrors(
            [ConfigError(path, None, p.removeprefix(f"{_FILE}: ")) for p in problems]
        )
