"""What both Kiwix back-ends offer: one book, read locally or through kiwix-serve.

A back-end only fetches (titles, suggestions, search hits, article HTML);
choosing the article and turning it into speech happens above it, the same
for both. An expected failure is a `KiwixError` carrying the sentence to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class KiwixError(Exception):
    """An expected failure: missing or corrupt file, server down, timeout, no such article."""

    def __init__(self, sentence: str, kind: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.kind = kind  # missing corrupt unreachable timeout deadline server malformed not_found


@dataclass(frozen=True)
class Hit:
    """A candidate article: what a title lookup, suggestion or search returned."""

    title: str
    path: str
    how: str  # title | suggestion | search
    rank: int = 0


@dataclass
class Article:
    """An article's HTML, after redirects were followed."""

    title: str
    path: str
    html: str
    redirected_from: str | None = None
    url: str | None = None  # where a person can read it, for kiwix-serve


class Book(Protocol):
    """One ZIM: the local file or a book of a kiwix-serve."""

    name: str  # the file name without .zim: what kiwix-serve calls it
    title: str  # the book's own title, from its metadata
    language: str | None  # ISO 639-3 ("eng"), or None when the ZIM does not say
    backend: str  # "zim" | "kiwix-serve"

    def titles(self, variants: list[str], timeout_s: float) -> list[Hit]:
        """Articles whose title is exactly one of ``variants`` (case as given)."""

    def suggest(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        """Title suggestions for ``text``, best first."""

    def search(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        """Full-text search hits for ``text``, best first."""

    def article(self, path: str, timeout_s: float) -> Article:
        """The article at ``path``, redirects followed."""

    def is_name(self, text: str) -> bool:
        """Instantly: is ``text`` (lower-case) a title with a joiner in it?"""

    def close(self) -> None:
        """Release the file or stop background work."""
