"""A ZIM file read directly with libzim: no server, the embedded default.

libzim's reader is safe to use from several threads; searchers are cheap and
made per call. Every libzim exception becomes a `KiwixError` with a sentence,
so a corrupt or truncated file is an answer, not a crash.
"""

from __future__ import annotations

import threading
from pathlib import Path

from libzim.reader import Archive
from libzim.search import Query, Searcher
from libzim.suggestion import SuggestionSearcher

from mnemolis.sources.kiwix.book import Article, Hit, KiwixError
from mnemolis.sources.kiwix.names import TitleNames

#: Redirect chains longer than this are treated as broken.
MAX_REDIRECTS = 8
#: Books with at most this many entries have their titles indexed during start;
#: larger ones in a background thread, so start-up stays quick.
SCAN_IN_START = 200_000
#: Article HTML beyond this is cut: only the opening is ever spoken.
MAX_HTML_BYTES = 2_000_000


def _metadata(archive: Archive, key: str) -> str | None:
    try:
        if key not in archive.metadata_keys:
            return None
        value = archive.get_metadata(key)
    except (RuntimeError, KeyError):
        return None
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text.strip() or None


class LocalBook:
    """One ZIM file on disk."""

    backend = "zim"

    def __init__(self, path: Path, archive: Archive, names: TitleNames, language: str | None):
        self.path = path
        self.archive = archive
        self.name = path.stem
        self.title = _metadata(archive, "Title") or self.name
        meta_language = _metadata(archive, "Language")
        self.language = language or (meta_language.split(",")[0].lower() if meta_language else None)
        self.has_search = bool(archive.has_fulltext_index)
        self.names = names
        self._stop = threading.Event()
        self._scanner: threading.Thread | None = None

    @classmethod
    def open(
        cls, path: Path, names: TitleNames, language: str | None = None, title_limit: int = 0
    ) -> LocalBook:
        """Open ``path``; a missing or unreadable file raises KiwixError."""
        if not path.exists():
            raise KiwixError(f"The encyclopedia file {path} does not exist.", "missing")
        if not path.is_file():
            raise KiwixError(f"The encyclopedia path {path} is not a file.", "missing")
        try:
            archive = Archive(str(path))
            archive.entry_count  # noqa: B018 - touch the header: a truncated file fails here
        except (RuntimeError, OSError) as exc:
            raise KiwixError(
                f"The encyclopedia file {path} could not be opened: it is not a valid ZIM file "
                f"({_short(exc)}).",
                "corrupt",
            ) from exc
        book = cls(path, archive, names, language)
        book.start_title_scan(title_limit)
        return book

    # ------------------------------------------------------------------ names

    def start_title_scan(self, limit: int) -> None:
        """Collect titles with a joiner in them, for `is_name` (see kiwix_names)."""
        count = min(self._entry_count(), limit)
        if count <= 0 or not hasattr(self.archive, "_get_entry_by_id"):
            return
        if count <= SCAN_IN_START:
            self._scan(count)
            return
        self._scanner = threading.Thread(
            target=self._scan, args=(count,), name=f"kiwix-titles-{self.name}", daemon=True
        )
        self._scanner.start()

    def _scan(self, count: int) -> None:
        # python-libzim offers no public iteration; entries 0..entry_count-1 are
        # the articles and redirects in path order.
        entry_by_id = self.archive._get_entry_by_id
        add = self.names.add
        marks = tuple(f" {j} " for j in self.names.joiners)
        try:
            for i in range(count):
                if i % 4096 == 0 and self._stop.is_set():
                    return
                title = entry_by_id(i).title
                lowered = f" {title.lower()} "
                if any(m in lowered for m in marks):
                    add(title)
        except RuntimeError:
            return  # a damaged entry table: keep what was read

    def _entry_count(self) -> int:
        try:
            return int(self.archive.entry_count)
        except RuntimeError:
            return 0

    def is_name(self, text: str) -> bool:
        return self.names.is_name(text)

    # ------------------------------------------------------------------ lookups

    def titles(self, variants: list[str], timeout_s: float) -> list[Hit]:
        hits = []
        for i, title in enumerate(variants):
            try:
                if self.archive.has_entry_by_title(title):
                    entry = self.archive.get_entry_by_title(title)
                    hits.append(Hit(entry.title, entry.path, "title", i))
            except (RuntimeError, KeyError) as exc:
                raise self._broken(exc) from exc
        return hits

    def suggest(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        try:
            results = SuggestionSearcher(self.archive).suggest(text).getResults(0, limit)
            return [self._hit(path, "suggestion", i) for i, path in enumerate(results)]
        except (RuntimeError, KeyError) as exc:
            raise self._broken(exc) from exc

    def search(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        if not self.has_search:
            return []
        try:
            search = Searcher(self.archive).search(Query().set_query(text))
            results = search.getResults(0, limit)
            return [self._hit(path, "search", i) for i, path in enumerate(results)]
        except (RuntimeError, KeyError) as exc:
            raise self._broken(exc) from exc

    def article(self, path: str, timeout_s: float) -> Article:
        try:
            entry = self.archive.get_entry_by_path(path)
        except KeyError as exc:
            raise KiwixError(f"{self.title} has no article at {path}.", "not_found") from exc
        except RuntimeError as exc:
            raise self._broken(exc) from exc
        redirected_from = None
        try:
            for _ in range(MAX_REDIRECTS):
                if not entry.is_redirect:
                    break
                redirected_from = redirected_from or entry.title
                entry = entry.get_redirect_entry()
            else:
                raise KiwixError(f"{self.title} has a redirect loop at {path}.", "corrupt")
            item = entry.get_item()
            content = bytes(memoryview(item.content)[:MAX_HTML_BYTES])
        except (RuntimeError, KeyError) as exc:
            raise self._broken(exc) from exc
        return Article(
            title=entry.title,
            path=entry.path,
            html=content.decode("utf-8", "replace"),
            redirected_from=redirected_from,
        )

    def _hit(self, path: str, how: str, rank: int) -> Hit:
        entry = self.archive.get_entry_by_path(path)
        return Hit(entry.title, entry.path, how, rank)

    def _broken(self, exc: Exception) -> KiwixError:
        return KiwixError(
            f"The encyclopedia file {self.path.name} could not be read ({_short(exc)}).",
            "corrupt",
        )

    def close(self) -> None:
        self._stop.set()
        if self._scanner is not None:
            self._scanner.join(timeout=1.0)


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
