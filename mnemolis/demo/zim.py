"""Write ZIM files with libzim, and build the demo encyclopedia at first use.

The demo articles live in `articles.yaml`; they are written into a ZIM (with
title and full-text indexes) in the cache directory (``$MNEMOLIS_CACHE`` or
``~/.cache/mnemolis``) the first time the Kiwix source needs them, and again
whenever that file changes (a stamp next to it holds a fingerprint of the text).
The same writer builds the test and benchmark ZIMs, so every ZIM the project
reads in its tests went through the same code path as the demo.

Run ``python -m mnemolis.demo.zim`` to build it ahead of time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import html
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from libzim.writer import Creator, Hint, Item, StringProvider

log = logging.getLogger(__name__)

ARTICLES = Path(__file__).with_name("articles.yaml")
#: Bumped when the rendering below changes, so cached demo ZIMs are rebuilt.
FORMAT_VERSION = "1"
KINDS = ("article", "disambiguation", "list")


class ZimBuildError(Exception):
    """The article data cannot be written as a ZIM; the message says why."""


@dataclass
class ZimOption:
    """One entry of a disambiguation or list page."""

    title: str
    about: str = ""


@dataclass
class ZimArticle:
    """One article as written: title, paragraphs, and the titles that lead to it."""

    title: str
    text: str = ""
    redirects: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    kind: str = "article"
    options: list[ZimOption] = field(default_factory=list)
    body_html: str | None = None  # a ready body, for tests that need odd markup

    @property
    def path(self) -> str:
        return path_for(self.title)


@dataclass
class ZimBook:
    """The metadata of one ZIM file and its articles."""

    name: str
    title: str
    language: str = "eng"  # ISO 639-3, as ZIM metadata wants it
    description: str = ""
    creator: str = "Mnemolis"
    date: str = "2024-01-01"
    articles: list[ZimArticle] = field(default_factory=list)


@dataclass
class DemoZim:
    """Where the demo ZIM is, and whether this call had to build it."""

    path: Path
    built: bool
    ms: float


def path_for(title: str) -> str:
    """Wikipedia's convention: the path is the title with underscores."""
    return "_".join(title.split())


# --------------------------------------------------------------------------- HTML


def render_html(article: ZimArticle) -> str:
    """A page shaped like an offline Wikipedia article: a heading, an infobox
    the reader must skip, paragraphs, and linked options."""
    title = html.escape(article.title)
    if article.body_html is not None:
        body = article.body_html
    else:
        pieces = [f"<h1>{title}</h1>"]
        if article.facts:
            rows = "".join(
                f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                for k, v in article.facts.items()
            )
            pieces.append(f'<table class="infobox">{rows}</table>')
        for paragraph in _paragraphs(article.text):
            pieces.append(f"<p>{html.escape(paragraph)}</p>")
        if article.options:
            items = "".join(
                f'<li><a href="{html.escape(path_for(o.title))}">{html.escape(o.title)}</a>'
                + (f", {html.escape(o.about)}" if o.about else "")
                + "</li>"
                for o in article.options
            )
            pieces.append(f"<ul>{items}</ul>")
        body = "\n".join(pieces)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title></head>\n<body>\n{body}\n</body></html>\n"
    )


def _paragraphs(text: str) -> Iterator[str]:
    for block in text.split("\n\n"):
        paragraph = " ".join(block.split())
        if paragraph:
            yield paragraph


# --------------------------------------------------------------------------- writing


class _Page(Item):  # type: ignore[misc]
    """libzim asks an item for its path, title, type and content."""

    def __init__(self, path: str, title: str, content: str) -> None:
        super().__init__()
        self._path = path
        self._title = title
        self._content = content

    def get_path(self) -> str:
        return self._path

    def get_title(self) -> str:
        return self._title

    def get_mimetype(self) -> str:
        return "text/html"

    def get_contentprovider(self) -> StringProvider:
        return StringProvider(self._content)

    def get_hints(self) -> dict[Any, int]:
        return {Hint.FRONT_ARTICLE: True}


def check_book(book: ZimBook) -> None:
    """Paths must be unique and non-empty, and kinds known, before libzim sees them."""
    seen: dict[str, str] = {}
    for article in book.articles:
        if article.kind not in KINDS:
            raise ZimBuildError(f"{article.title!r}: unknown kind {article.kind!r}")
        for title in (article.title, *article.redirects):
            path = path_for(title)
            if not path:
                raise ZimBuildError(f"an article or redirect of {article.title!r} has no title")
            if path in seen:
                raise ZimBuildError(f"{title!r} is used twice (also by {seen[path]!r})")
            seen[path] = article.title


@contextlib.contextmanager
def _libzim_output_held() -> Iterator[None]:
    """libzim prints its progress ("Detect dangling redirects" ... "ZIM file is
    ready!") on file descriptor 1 from C++, and `config_verbose(False)` does not
    stop it (libzim 3.13.1, measured): a JSON stdout must not see it, nor a
    person running `make demo`. It goes to a temporary file instead; the lines
    are logged at debug level, and at warning level when the build fails."""
    sys.stdout.flush()
    saved = os.dup(1)
    failed = False
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 1)
        try:
            yield
        except BaseException:
            failed = True
            raise
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            held.seek(0)
            said = held.read().decode("utf-8", "replace").strip()
            if said:
                log.log(logging.WARNING if failed else logging.DEBUG, "libzim: %s", said)


def write_zim(book: ZimBook, path: Path, workers: int = 2) -> Path:
    """Write ``book`` to ``path`` atomically (a half-written file is never seen)."""
    check_book(book)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    try:
        creator = Creator(str(partial)).config_indexing(True, book.language)
        creator.config_nbworkers(workers)
        with _libzim_output_held(), creator:
            if book.articles:
                creator.set_mainpath(book.articles[0].path)
            for article in book.articles:
                creator.add_item(_Page(article.path, article.title, render_html(article)))
                for title in article.redirects:
                    creator.add_redirection(
                        path_for(title), title, article.path, {Hint.FRONT_ARTICLE: True}
                    )
            metadata = {
                "Name": book.name,
                "Title": book.title,
                "Language": book.language,
                "Description": book.description or book.title,
                "Creator": book.creator,
                "Publisher": book.creator,
                "Date": book.date,
            }
            for key, value in metadata.items():
                creator.add_metadata(key, value)
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return path


# --------------------------------------------------------------------------- the demo book


def _article_from(raw: Any, index: int) -> ZimArticle:
    if not isinstance(raw, dict) or not isinstance(raw.get("title"), str):
        raise ZimBuildError(f"{ARTICLES.name}: article #{index + 1} needs a title")
    options = []
    for opt in raw.get("options") or []:
        if isinstance(opt, str):
            options.append(ZimOption(opt))
        elif isinstance(opt, dict) and isinstance(opt.get("title"), str):
            options.append(ZimOption(opt["title"], str(opt.get("about", ""))))
        else:
            raise ZimBuildError(f"{raw['title']!r}: an option needs a title")
    return ZimArticle(
        title=raw["title"],
        text=str(raw.get("text") or ""),
        redirects=[str(r) for r in raw.get("redirects") or []],
        facts={str(k): str(v) for k, v in (raw.get("facts") or {}).items()},
        kind=str(raw.get("kind", "article")),
        options=options,
    )


def load_book(path: Path = ARTICLES) -> ZimBook:
    """Read an articles file (``articles.yaml`` by default) into a ZimBook."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ZimBuildError(f"{path.name}: expected a mapping with book and articles")
    meta = data.get("book") or {}
    raw_articles = data.get("articles") or []
    if not isinstance(meta, dict) or not isinstance(raw_articles, list):
        raise ZimBuildError(f"{path.name}: book must be a mapping and articles a list")
    return ZimBook(
        name=str(meta.get("name", "mnemolis_demo")),
        title=str(meta.get("title", "Mnemolis demo")),
        language=str(meta.get("language", "eng")),
        description=str(meta.get("description", "")),
        creator=str(meta.get("creator", "Mnemolis")),
        date=str(meta.get("date", "2024-01-01")),
        articles=[_article_from(a, i) for i, a in enumerate(raw_articles)],
    )


def cache_dir() -> Path:
    """``$MNEMOLIS_CACHE``, else ``~/.cache/mnemolis``."""
    env = os.environ.get("MNEMOLIS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mnemolis"


def _fingerprint(source: Path) -> str:
    digest = hashlib.sha256(FORMAT_VERSION.encode())
    digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """One builder at a time, across processes (tests may run side by side)."""
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def demo_zim_path(directory: Path | None = None, source: Path = ARTICLES) -> Path:
    """``<cache>/<book name>.zim``: kiwix-serve and provenance call the book by this name."""
    return (directory or cache_dir()) / f"{load_book(source).name}.zim"


def _stamp(target: Path) -> Path:
    return target.with_name(target.name + ".source")


def ensure_demo_zim(directory: Path | None = None, source: Path = ARTICLES) -> DemoZim:
    """The demo ZIM, built into the cache directory if it is missing or out of date.

    A stamp file next to it holds the fingerprint of the articles it was built
    from; a different fingerprint means ``articles.yaml`` changed.
    """
    target = demo_zim_path(directory, source)
    fingerprint = _fingerprint(source)

    def current() -> bool:
        try:
            return target.is_file() and _stamp(target).read_text().strip() == fingerprint
        except OSError:
            return False

    if current():
        return DemoZim(target, built=False, ms=0.0)
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with _locked(target.parent / ".demo-zim.lock"):
        if current():  # another process built it while we waited
            return DemoZim(target, built=False, ms=(time.perf_counter() - t0) * 1000)
        write_zim(load_book(source), target)
        _stamp(target).write_text(fingerprint + "\n")
    return DemoZim(target, built=True, ms=(time.perf_counter() - t0) * 1000)


def main() -> int:
    demo = ensure_demo_zim()
    state = f"built in {demo.ms:.0f} ms" if demo.built else "already built"
    print(f"{demo.path} ({state})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def demo_book(directory: Path | None = None) -> Path:
    """The demo ZIM's path, built if needed: what the CLI hands the Kiwix source."""
    return ensure_demo_zim(directory).path
