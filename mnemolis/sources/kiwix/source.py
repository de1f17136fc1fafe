"""The Kiwix source: answers `knowledge.lookup` parts from offline ZIM encyclopedias.

Books are ZIM files read with libzim (`zim_local`) or books of a kiwix-serve
read over HTTP (`http`), in the preference order of `sources/kiwix.yaml`
(local files first, then the server's books), or of ``$MNEMOLIS_KIWIX``; with
nothing configured, the demo ZIM, when the entry point hands in a
``demo_book`` (the CLI passes `mnemolis.demo.zim`'s). `lookup` finds the
article, `article_text` reads it; this module turns the outcome into one or three spoken sentences,
with the article title and the book as provenance, and "did you mean A, B or
C?" for an ambiguous topic.

All libzim and urllib work runs in a small thread pool, under the part's
deadline and a timeout per request. Every expected failure is a PartAnswer
with a sentence; nothing is raised into the executor.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, Status, Truth
from mnemolis.sources.kiwix.book import Book, KiwixError
from mnemolis.sources.kiwix.http import KiwixServer, RemoteBook, seconds
from mnemolis.sources.kiwix.lookup import Deadline, Library, Lookup
from mnemolis.sources.kiwix.names import TitleNames
from mnemolis.sources.kiwix.pick import TitleMatcher, TopicCleaner, plain_phrases, strip_qualifier
from mnemolis.sources.kiwix.settings import BookSpec, read_settings
from mnemolis.sources.kiwix.zim_local import LocalBook

INTENT = "knowledge.lookup"
#: Builds (or finds) the demo ZIM in a cache directory and returns its path; handed
#: in by the entry point (the CLI), since a source never imports the demo.
DemoBook = Callable[[Path | None], Path]
NO_DEMO = (
    "No encyclopedia is configured: set books: or url: in sources/kiwix.yaml (or MNEMOLIS_KIWIX)."
)
MAX_TOPIC_CHARS = 200
#: Start-up waits at most this long per kiwix-serve book for its titles.
TITLE_FETCH_TIMEOUT_S = 1.0
#: A kiwix-serve that was down is asked again after this long.
SERVER_RETRY_S = 30.0


@dataclass
class BookState:
    """What became of one configured book at start; for answers and `doctor`."""

    where: str  # the file or the server URL
    name: str | None = None
    backend: str = "zim"
    language: str | None = None
    usable: bool = False
    problem: str | None = None


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
        demo_book: DemoBook | None = None,
        workers: int = 4,
    ) -> None:
        self.config = config
        self.cache_dir = cache_dir
        self.demo_book = demo_book
        self.settings = read_settings(config, os.environ if environ is None else environ)
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
        self._server_retry_at = 0.0
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="kiwix")
        self._started = False
        self._closed = False

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

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`, for `mnemolis doctor`."""
        from mnemolis.sources.kiwix.doctor import diagnose

        return [diagnose(self)]

    async def close(self) -> None:
        self._closed = True
        for book in self.library.books:
            book.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _open_all(self) -> None:
        settings = self.settings
        books: list[Book] = []
        specs = list(settings.books)
        if settings.use_demo and self.demo_book is None:
            self.states.append(BookState("demo", problem=NO_DEMO))
        elif settings.use_demo and self.demo_book is not None:
            try:
                specs.append(BookSpec(path=self.demo_book(self.cache_dir)))
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
        if self._closed:
            return PartAnswer("The encyclopedia has been closed.", Status.ERROR, self.name)
        if not self._started:
            await self.start()
        library = self.library
        if self._server_state is not None and not self._server_state.usable:
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
        """The server was down at start: ask for its catalog again. With no other
        book, now (the answer waits); otherwise in the background, at most every
        `SERVER_RETRY_S`, so the other books answer without delay."""
        loop = asyncio.get_running_loop()
        if self.library.books:
            now = time.monotonic()
            if now >= self._server_retry_at:
                self._server_retry_at = now + SERVER_RETRY_S
                self._pool.submit(self._remote_books, False).add_done_callback(
                    self._add_remote_books
                )
            return self.library
        job = loop.run_in_executor(self._pool, self._remote_books, False)
        try:
            books = await asyncio.wait_for(job, timeout=request.timeout_s)
        except TimeoutError:
            return self.library
        self._add_books(books)
        return self.library

    def _add_remote_books(self, job: concurrent.futures.Future[list[Book]]) -> None:
        """Runs in the worker thread; swapping the library reference is atomic."""
        if not job.cancelled() and job.exception() is None:
            self._add_books(job.result())

    def _add_books(self, books: list[Book]) -> None:
        if books:
            self.library = Library([*self.library.books, *books], self.matcher, self.settings)

    @property
    def problems(self) -> list[str]:
        """Everything wrong with the books and the settings, for answers and `doctor`."""
        return [s.problem for s in self.states if s.problem] + self.settings.problems

    def _no_books(self, topic: str) -> PartAnswer:
        problems = self.problems
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
