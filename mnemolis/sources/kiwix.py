"""The Kiwix source: answers `knowledge.lookup` parts from offline ZIM encyclopedias.

Books are ZIM files read with libzim (`zim_local`) or books of a kiwix-serve
read over HTTP (`kiwix_http`), in the preference order of
`sources/kiwix.yaml`, or of ``$MNEMOLIS_KIWIX``; with nothing configured, the
demo ZIM (`mnemolis.demo.zim`). For a topic, each book offers exact titles,
title suggestions and, when those are not good enough, full-text hits;
`kiwix_pick` ranks them; the best article is read (`article_text`) and its
opening sentences are the answer, with the title and the book as provenance.
A disambiguation page becomes "did you mean A, B or C?".

All libzim and urllib work runs in a small thread pool, under the part's
deadline and a timeout per request. Every expected failure is a PartAnswer
with a sentence; nothing is raised into the executor.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.demo.zim import ensure_demo_zim
from mnemolis.plan import Part
from mnemolis.sources.article_text import (
    extract,
    html_title,
    is_disambiguation,
    is_list_title,
    lead_sentences,
)
from mnemolis.sources.base import Evaluation, PartAnswer, Request, Status, Truth
from mnemolis.sources.kiwix_book import Book, Hit, KiwixError
from mnemolis.sources.kiwix_http import KiwixServer, RemoteBook, seconds
from mnemolis.sources.kiwix_names import TitleNames
from mnemolis.sources.kiwix_pick import (
    ACCEPT,
    GOOD,
    STRONG,
    TitleMatch,
    TitleMatcher,
    TopicCleaner,
    plain_phrases,
    strip_qualifier,
)
from mnemolis.sources.kiwix_settings import BookSpec, KiwixSettings, read_settings
from mnemolis.sources.zim_local import LocalBook

INTENT = "knowledge.lookup"
#: Articles read at most per lookup before giving up on a readable one.
MAX_READS = 4
#: Full-text hits checked for a mention when no title fits.
MAX_MENTION_READS = 2
MAX_TOPIC_CHARS = 200
#: Start-up waits at most this long per kiwix-serve book for its titles.
TITLE_FETCH_TIMEOUT_S = 1.0
HOW_ORDER = {"title": 0, "suggestion": 1, "search": 2}


@dataclass
class BookState:
    """What became of one configured book at start; for answers and `doctor`."""

    where: str  # the file or the server URL
    name: str | None = None
    backend: str = "zim"
    language: str | None = None
    usable: bool = False
    problem: str | None = None


@dataclass
class Candidate:
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


# --------------------------------------------------------------------------- answers


def _spoken_list(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _status_line(errors: list[KiwixError]) -> str:
    return " ".join(dict.fromkeys(e.sentence for e in errors))


class KiwixSource:
    """The `Source` for `knowledge.lookup`, and a `NameSource` for titles."""

    name = "kiwix"

    def __init__(
        self,
        config: Config,
        environ: Mapping[str, str] | None = None,
        cache_dir: Path | None = None,
        workers: int = 4,
    ) -> None:
        self.config = config
        self.environ = dict(os.environ if environ is None else environ)
        self.cache_dir = cache_dir
        self.settings = read_settings(config, self.environ)
        self.names = TitleNames(self.settings.text.title_joiners)
        self._marks = tuple(f" {j} " for j in self.names.joiners)
        self.matcher = TitleMatcher(config.language, self.settings.text)
        intent = config.intents.get(INTENT)
        frames = plain_phrases(p.text for p in intent.phrases) if intent else []
        self.cleaner = TopicCleaner(config.language, frames)
        self.language = self.settings.text.languages.get(config.language.code, config.language.code)
        self.states: list[BookState] = []
        self.library = Library([], self.matcher, self.settings)
        self._server: KiwixServer | None = None
        self._server_state: BookState | None = None
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="kiwix")
        self._started = False

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Open the books (building the demo ZIM if it is needed); never raises."""
        if self._started:
            return
        self._started = True
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._pool, self._open_all)
        except Exception as exc:  # a bug must not take the daemon down
            self.states.append(
                BookState("kiwix", problem=f"The encyclopedia failed to start: {exc}")
            )

    async def close(self) -> None:
        for book in self.library.books:
            book.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _open_all(self) -> None:
        settings = self.settings
        books: list[Book] = []
        specs = list(settings.books)
        if settings.use_demo:
            try:
                demo = ensure_demo_zim(self.cache_dir)
                specs.append(BookSpec(path=demo.path))
            except Exception as exc:  # libzim, disk full, bad YAML: say so, do not crash
                self.states.append(
                    BookState("demo", problem=f"The demo encyclopedia could not be built: {exc}.")
                )
        for spec in specs:
            if spec.path is None:
                continue  # a named book of the kiwix-serve, handled below
            state = BookState(str(spec.path), backend="zim")
            self.states.append(state)
            try:
                book = LocalBook.open(
                    spec.path, self.names, self._iso3(spec.language), settings.title_index_limit
                )
            except KiwixError as exc:
                state.problem = exc.sentence
                continue
            self._admit(book, state, books)
        if settings.url:
            self._server = KiwixServer(settings.url)
            self._server_state = BookState(settings.url, backend="kiwix-serve")
            self.states.append(self._server_state)
            books.extend(self._remote_books(fetch_titles=True))
        self.library = Library(books, self.matcher, settings)

    def _admit(self, book: Book, state: BookState, books: list[Book]) -> None:
        state.name, state.language = book.name, book.language
        if book.language and self.language and not book.language.startswith(self.language):
            state.problem = (
                f"{book.title} is in language {book.language}, not {self.language}; not asked."
            )
            book.close()
            return
        state.usable = True
        books.append(book)

    def _remote_books(self, fetch_titles: bool) -> list[Book]:
        """The server's books, in the configured order; fetched again later if it was down."""
        server, state = self._server, self._server_state
        assert server is not None and state is not None
        try:
            catalog = server.catalog(self.settings.timeout_s)
        except KiwixError as exc:
            state.problem, state.usable = exc.sentence, False
            return []
        wanted = [b for b in self.settings.books if b.path is None and b.name]
        entries = {e.name: e for e in catalog}
        chosen = []
        if wanted:
            for spec in wanted:
                entry = entries.get(spec.name or "")
                if entry is None:
                    state.problem = f"The encyclopedia server has no book called {spec.name}."
                    continue
                chosen.append((entry, self._iso3(spec.language) or entry.language))
        else:
            chosen = [(e, e.language) for e in catalog]
        books: list[Book] = []
        for entry, language in chosen:
            book = RemoteBook(server, entry.name, entry.title, language, self.names)
            sub = BookState(f"{server.url} {entry.name}", backend="kiwix-serve")
            self._admit(book, sub, books)
            if sub.problem:
                self.states.append(sub)
            elif fetch_titles and self.settings.title_fetch:
                timeout = min(self.settings.timeout_s, TITLE_FETCH_TIMEOUT_S)
                book.fetch_titles(self.settings.title_fetch, timeout)
        if not catalog:
            state.problem = f"The encyclopedia server at {server.url} offers no books."
        state.usable = bool(books)
        if books and not wanted:
            state.problem = None
        return books

    def _iso3(self, language: str | None) -> str | None:
        if not language:
            return None
        return self.settings.text.languages.get(language, language)

    # ------------------------------------------------------------------ names

    def is_name(self, text: str) -> bool:
        """Instant, local: is ``text`` a title (with "and" in it) of a book?"""
        padded = f" {text} "
        if not any(m in padded for m in self._marks):
            return False
        return self.names.is_name(text)

    # ------------------------------------------------------------------ answers

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return Evaluation(Truth.UNKNOWN, "An encyclopedia cannot check a condition.")

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        t0 = time.perf_counter()
        try:
            result = await self._answer(part, request)
        except Exception as exc:  # the last guard: a bug is an error answer, not a crash
            result = PartAnswer(
                f"The encyclopedia failed while looking that up ({type(exc).__name__}: {exc}).",
                Status.ERROR,
                self.name,
            )
        result.ms = (time.perf_counter() - t0) * 1000
        return result

    async def _answer(self, part: Part, request: Request) -> PartAnswer:
        slot = part.slots.get("topic")
        if isinstance(slot, str) and slot.strip():
            topic, topic_from = slot, "slot"
        else:
            topic, topic_from = self.cleaner.clean(part.text), "text"
        topic = " ".join(topic.split())[:MAX_TOPIC_CHARS]
        if not topic:
            return PartAnswer(
                "I did not catch what to look up.", Status.OK, self.name, data={"found": False}
            )
        if not self._started:
            await self.start()
        library = self.library
        if not library.books and self._server is not None:
            library = await self._retry_server(request)
        if not library.books:
            return self._no_books(topic)
        # the lookup stops a little before the part's deadline, so that its own,
        # more precise sentence ("the server did not answer") is the one heard
        inner = max(request.timeout_s * 0.8, request.timeout_s - 0.25)
        deadline = Deadline(inner, self.settings.timeout_s, topic)
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self._pool, library.lookup, topic, deadline)
        try:
            lookup = await asyncio.wait_for(job, timeout=request.timeout_s)
        except TimeoutError:
            return PartAnswer(
                f"Looking up {topic} took longer than {seconds(request.timeout_s)} seconds, "
                "so I stopped.",
                Status.ERROR,
                self.name,
                data={"topic": topic},
                provenance={"topic": topic, "topic_from": topic_from},
            )
        return self._compose(lookup, topic_from)

    async def _retry_server(self, request: Request) -> Library:
        """The server was down at start: ask for its catalog again, once per answer."""
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self._pool, self._remote_books, False)
        try:
            books = await asyncio.wait_for(job, timeout=request.timeout_s)
        except TimeoutError:
            return self.library
        if books:
            self.library = Library([*self.library.books, *books], self.matcher, self.settings)
        return self.library

    def _no_books(self, topic: str) -> PartAnswer:
        problems = [s.problem for s in self.states if s.problem]
        problems += self.settings.problems
        reason = " ".join(problems) if problems else "No encyclopedia is configured."
        return PartAnswer(
            f"I cannot look up {topic}: {reason}".replace(": The ", ": the ", 1),
            Status.ERROR,
            self.name,
            data={"topic": topic, "problems": problems},
            provenance={"topic": topic},
        )

    def _compose(self, lookup: Lookup, topic_from: str) -> PartAnswer:
        topic = lookup.topic
        provenance: dict[str, Any] = {"topic": topic, "topic_from": topic_from}
        data: dict[str, Any] = {"topic": topic}
        if lookup.book is not None:
            provenance.update(
                article=lookup.title,
                book=lookup.book.name,
                book_title=lookup.book.title,
                backend=lookup.book.backend,
                path=lookup.path,
                match=lookup.how,
            )
            if lookup.redirected_from:
                provenance["redirected_from"] = lookup.redirected_from
            data.update(title=lookup.title, book=lookup.book.name)
            if lookup.url:
                data["url"] = lookup.url
        if lookup.errors:
            provenance["problems"] = [e.sentence for e in lookup.errors]
        if lookup.outcome in ("found", "mentions"):
            text = " ".join(lookup.sentences)
            if lookup.outcome == "mentions":
                text = f"I found no article on {topic}, but {lookup.title} mentions it. {text}"
            data.update(found=True, sentences=lookup.sentences)
            return PartAnswer(text, Status.OK, self.name, data, provenance)
        if lookup.outcome == "options":
            data.update(found=True, options=lookup.options)
            name = strip_qualifier(lookup.title or lookup.options[0])
            text = f"{name} can mean several things. Did you mean {_spoken_list(lookup.options)}?"
            return PartAnswer(text, Status.OK, self.name, data, provenance)
        data["found"] = False
        if lookup.outcome == "empty":
            book = lookup.book.title if lookup.book else "the encyclopedia"
            text = (
                f"I found the article {lookup.title} in {book}, but it has no text I can read out."
            )
            return PartAnswer(text, Status.OK, self.name, data, provenance)
        if lookup.errors:
            text = f"I could not look up {topic}. {_status_line(lookup.errors)}"
            return PartAnswer(text, Status.ERROR, self.name, data, provenance)
        where = self.library.books[0].title if len(self.library.books) == 1 else "the encyclopedia"
        return PartAnswer(
            f"I found nothing about {topic} in {where}.", Status.OK, self.name, data, provenance
        )
