"""Finding the article for a topic across books, blocking (run it in a thread).

For each book in preference order: exact titles, then title suggestions, then
(when no title fits well) full-text search; candidates are ranked by
`kiwix_pick`, the best are read, and the first with readable prose wins. A
disambiguation page, or several titles that differ only by their qualifier,
give options instead. Every request gets the per-request timeout, cut to what
is left of the part's deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mnemolis.sources.kiwix.article_text import (
    extract,
    html_title,
    is_disambiguation,
    is_list_title,
    lead_sentences,
)
from mnemolis.sources.kiwix.book import Book, Hit, KiwixError
from mnemolis.sources.kiwix.http import seconds
from mnemolis.sources.kiwix.pick import ACCEPT, GOOD, STRONG, TitleMatch, TitleMatcher
from mnemolis.sources.kiwix.settings import KiwixSettings

#: Articles read at most per lookup before giving up on a readable one.
MAX_READS = 4
#: Full-text hits checked for a mention when no title fits.
MAX_MENTION_READS = 2
HOW_ORDER = {"title": 0, "suggestion": 1, "search": 2}


@dataclass
class Candidate:
    """A hit of one book, scored against the topic."""

    book_index: int
    hit: Hit
    match: TitleMatch

    def order(self) -> tuple[float, int, int, int]:
        return (-self.match.score, self.book_index, HOW_ORDER[self.hit.how], self.hit.rank)


@dataclass
class Lookup:
    """The outcome of one topic: an article, options to choose from, or nothing."""

    topic: str
    outcome: str  # found | mentions | options | empty | nothing
    book: Book | None = None
    title: str | None = None
    path: str | None = None
    sentences: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    how: str | None = None
    redirected_from: str | None = None
    url: str | None = None
    errors: list[KiwixError] = field(default_factory=list)


class Deadline:
    """The part's deadline, and the timeout each request may use within it."""

    def __init__(self, seconds: float, per_request: float, topic: str) -> None:
        self.at = time.monotonic() + seconds
        self.seconds = seconds
        self.per_request = per_request
        self.topic = topic

    def request(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0.01:
            raise KiwixError(
                f"Looking up {self.topic} took longer than {seconds(self.seconds)} seconds, "
                "so I stopped.",
                "deadline",
            )
        return min(self.per_request, left)


class Library:
    """The usable books in preference order, and the lookup over them (blocking)."""

    def __init__(self, books: list[Book], matcher: TitleMatcher, settings: KiwixSettings) -> None:
        self.books = books
        self.matcher = matcher
        self.settings = settings

    def lookup(self, topic: str, deadline: Deadline) -> Lookup:
        candidates: list[Candidate] = []
        errors: list[KiwixError] = []
        for index, book in enumerate(self.books):
            try:
                found = self._candidates(index, book, topic, deadline)
            except KiwixError as exc:
                errors.append(exc)
                if exc.kind == "deadline":
                    break
                continue
            candidates.extend(found)
            if any(c.match.score >= STRONG for c in found):
                break
        candidates.sort(key=Candidate.order)
        result = self._choose(topic, candidates, deadline, errors)
        result.errors = errors
        return result

    def _candidates(
        self, index: int, book: Book, topic: str, deadline: Deadline
    ) -> list[Candidate]:
        limit = self.settings.candidates
        hits = book.titles(self.matcher.variants(topic), deadline.request())
        scored = self._score(index, topic, hits)
        if not scored or scored[0].match.score < STRONG:
            scored = self._score(
                index, topic, hits + book.suggest(topic, limit, deadline.request())
            )
        if not scored or scored[0].match.score < GOOD:
            searched = book.search(topic, limit, deadline.request())
            scored = self._score(index, topic, [c.hit for c in scored] + searched)
        return scored

    def _score(self, index: int, topic: str, hits: list[Hit]) -> list[Candidate]:
        best: dict[str, Candidate] = {}
        for hit in hits:
            candidate = Candidate(index, hit, self.matcher.match(topic, hit.title))
            known = best.get(hit.path)
            if known is None or candidate.order() < known.order():
                best[hit.path] = candidate
        return sorted(best.values(), key=Candidate.order)

    def _choose(
        self, topic: str, ranked: list[Candidate], deadline: Deadline, errors: list[KiwixError]
    ) -> Lookup:
        accepted = [c for c in ranked if c.match.score >= ACCEPT]
        ties = self._qualified_ties(accepted)
        if len(ties) > 1:
            return Lookup(topic, "options", options=ties[: self.settings.options], how="titles")
        empty: Lookup | None = None
        seen: set[tuple[int, str]] = set()
        rules = self.settings.text
        for candidate in accepted[:MAX_READS]:
            result = self._read(topic, candidate, deadline, errors, seen)
            if result is None:
                continue
            if result.outcome in ("found", "options"):
                return result
            empty = empty or result
        searched = [
            c
            for c in ranked
            if c.hit.how == "search"
            and c not in accepted
            and not (is_list_title(c.hit.title, rules) and not is_list_title(topic, rules))
        ]
        for candidate in searched[:MAX_MENTION_READS]:
            result = self._read(topic, candidate, deadline, errors, seen, must_mention=True)
            if result is not None and result.outcome == "found":
                result.outcome = "mentions"
                return result
        return empty or Lookup(topic, "nothing")

    def _qualified_ties(self, accepted: list[Candidate]) -> list[str]:
        """ "Mercury (planet)", "Mercury (element)" and no page called "Mercury": ambiguous."""
        if not accepted or accepted[0].match.how != "qualified":
            return []
        top = accepted[0].match.score
        titles = [
            c.hit.title for c in accepted if c.match.how == "qualified" and c.match.score == top
        ]
        return list(dict.fromkeys(titles))  # the same title in two books is one meaning

    def _read(
        self,
        topic: str,
        candidate: Candidate,
        deadline: Deadline,
        errors: list[KiwixError],
        seen: set[tuple[int, str]],
        must_mention: bool = False,
    ) -> Lookup | None:
        book = self.books[candidate.book_index]
        try:
            article = book.article(candidate.hit.path, deadline.request())
        except KiwixError as exc:
            errors.append(exc)
            return None
        if (candidate.book_index, article.path) in seen:
            return None
        seen.add((candidate.book_index, article.path))
        text = extract(article.html)
        title = article.title
        if book.backend == "kiwix-serve":
            title = html_title(article.html) or text.title or title
        base = Lookup(
            topic,
            "found",
            book=book,
            title=title,
            path=article.path,
            how=candidate.match.how if not must_mention else "search",
            redirected_from=article.redirected_from,
            url=article.url,
        )
        if must_mention and not self.matcher.mentions(topic, " ".join(text.paragraphs)):
            return None
        if is_disambiguation(title, text, self.settings.text):
            options = [o.title for o in text.options if o.title and o.title != title]
            if must_mention or not options:
                return None
            base.outcome = "options"
            base.options = list(dict.fromkeys(options))[: self.settings.options]
            return base
        base.sentences = lead_sentences(
            text, self.settings.text, self.settings.sentences, self.settings.max_chars
        )
        if not base.sentences:
            base.outcome = "empty"
        return base
