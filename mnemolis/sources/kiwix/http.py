"""Books of a kiwix-serve, read over HTTP with urllib.

Endpoints used (kiwix-serve 3.x): ``/catalog/v2/entries`` (which books, their
language), ``/suggest`` (title suggestions, JSON), ``/search?format=xml``
(full-text search, RSS) and ``/raw/<book>/content/<path>`` (the article as
stored, without kiwix-serve's toolbar). A book's name is its file name
without ``.zim``. Every request has its own timeout and a size bound; every
failure becomes a `KiwixError` with a sentence.
"""

from __future__ import annotations

import html
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from email.message import Message
from typing import IO, Any

from mnemolis.sources.kiwix.book import Article, Hit, KiwixError
from mnemolis.sources.kiwix.names import TitleNames

ATOM = "{http://www.w3.org/2005/Atom}"
MAX_REDIRECTS = 5
#: Catalogs, suggestions and search results beyond this are refused.
MAX_LISTING_BYTES = 4_000_000
#: Article HTML beyond this is cut: only the opening is ever spoken.
MAX_ARTICLE_BYTES = 2_000_000
_PATH_SAFE = "/()_,'!*:;@$&=+-.~"


@dataclass
class Response:
    status: int
    body: bytes
    location: str | None = None
    charset: str = "utf-8"


@dataclass
class CatalogEntry:
    """A book kiwix-serve offers."""

    name: str
    title: str
    language: str | None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by hand, to learn the target's path."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


class KiwixServer:
    """One kiwix-serve, at ``url`` (which may carry a root location)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._opener = urllib.request.build_opener(_NoRedirects())

    def get(self, target: str, timeout_s: float, limit: int, cut: bool = False) -> Response:
        """GET ``target`` (path and query); an error status is returned, not raised."""
        request = urllib.request.Request(
            self.url + target, headers={"User-Agent": "mnemolis", "Accept-Encoding": "identity"}
        )
        try:
            with self._opener.open(request, timeout=timeout_s) as reply:
                return Response(
                    reply.status,
                    self._read(reply, limit, cut),
                    charset=reply.headers.get_content_charset() or "utf-8",
                )
        except urllib.error.HTTPError as exc:
            with exc:
                body = b"" if exc.code in (301, 302, 303, 307, 308) else exc.read(4096)
                return Response(exc.code, body, location=exc.headers.get("Location"))
        except TimeoutError as exc:
            raise self._timeout(timeout_s) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError | socket.timeout):
                raise self._timeout(timeout_s) from exc
            raise KiwixError(
                f"The encyclopedia server at {self.url} is not answering ({_reason(exc)}).",
                "unreachable",
            ) from exc
        except (OSError, ValueError) as exc:  # reset connections, bad status lines
            raise KiwixError(
                f"The encyclopedia server at {self.url} broke off the answer ({_reason(exc)}).",
                "unreachable",
            ) from exc

    def _read(self, reply: Any, limit: int, cut: bool) -> bytes:
        body: bytes = reply.read(limit + 1)
        if len(body) > limit:
            if cut:
                return body[:limit]
            raise KiwixError(
                f"The encyclopedia server at {self.url} sent more than {limit // 1000} kB.",
                "malformed",
            )
        return body

    def _timeout(self, timeout_s: float) -> KiwixError:
        return KiwixError(
            f"The encyclopedia server at {self.url} did not answer within "
            f"{seconds(timeout_s)} seconds.",
            "timeout",
        )

    def _failed(self, response: Response, what: str) -> KiwixError:
        if response.status == 404:
            return KiwixError(f"The encyclopedia server at {self.url} has no {what}.", "not_found")
        return KiwixError(
            f"The encyclopedia server at {self.url} answered {what} with HTTP {response.status}.",
            "server",
        )

    # ------------------------------------------------------------------ endpoints

    def catalog(self, timeout_s: float) -> list[CatalogEntry]:
        response = self.get("/catalog/v2/entries?count=-1", timeout_s, MAX_LISTING_BYTES)
        if response.status != 200:
            raise self._failed(response, "catalog")
        root = self._xml(response, "catalog")
        books = []
        for entry in root.iter(f"{ATOM}entry"):
            name = None
            for link in entry.iter(f"{ATOM}link"):
                if link.get("type") == "text/html" and link.get("href"):
                    name = urllib.parse.unquote(link.get("href", "").rstrip("/").rsplit("/", 1)[-1])
            if not name:
                continue
            language = (entry.findtext(f"{ATOM}language") or "").split(",")[0].strip().lower()
            books.append(
                CatalogEntry(
                    name, (entry.findtext(f"{ATOM}title") or name).strip(), language or None
                )
            )
        return books

    def suggest(self, book: str, term: str, count: int, timeout_s: float) -> list[Hit]:
        query = urllib.parse.urlencode({"content": book, "term": term, "count": count})
        response = self.get(f"/suggest?{query}", timeout_s, MAX_LISTING_BYTES)
        if response.status != 200:
            raise self._failed(response, f"book called {book}")
        try:
            items = json.loads(response.body.decode(response.charset, "replace"))
        except ValueError as exc:
            raise self._malformed("suggestions") from exc
        if not isinstance(items, list):
            raise self._malformed("suggestions")
        hits: list[Hit] = []
        for item in items:
            if isinstance(item, dict) and item.get("kind") == "path" and item.get("path"):
                title = html.unescape(str(item.get("value", "")))
                path = html.unescape(str(item["path"]))
                hits.append(Hit(title, path, "suggestion", len(hits)))
        return hits

    def search(self, book: str, pattern: str, count: int, timeout_s: float) -> list[Hit]:
        query = urllib.parse.urlencode(
            {"content": book, "pattern": pattern, "format": "xml", "pageLength": count}
        )
        response = self.get(f"/search?{query}", timeout_s, MAX_LISTING_BYTES)
        if response.status == 400:  # kiwix-serve says 400 when a book has no full-text index
            return []
        if response.status != 200:
            raise self._failed(response, f"book called {book}")
        root = self._xml(response, "search results")
        hits: list[Hit] = []
        for item in root.iter("item"):
            title = (item.findtext("title") or "").strip()
            path = self.path_in(book, item.findtext("link") or "")
            if title and path:
                hits.append(Hit(title, path, "search", len(hits)))
        return hits

    def raw(self, book: str, path: str, timeout_s: float) -> tuple[str, str, str | None]:
        """The HTML at ``path`` with redirects followed: (html, final path, first path)."""
        first = path
        redirected = None
        for _ in range(MAX_REDIRECTS + 1):
            quoted = urllib.parse.quote(path, safe=_PATH_SAFE)
            target = f"/raw/{urllib.parse.quote(book, safe='')}/content/{quoted}"
            response = self.get(target, timeout_s, MAX_ARTICLE_BYTES, cut=True)
            if response.status in (301, 302, 303, 307, 308) and response.location:
                next_path = self.path_in(book, response.location)
                if not next_path or next_path == path:
                    break
                redirected = first
                path = next_path
                continue
            if response.status != 200:
                raise self._failed(response, f"article {path} in {book}")
            return response.body.decode(response.charset, "replace"), path, redirected
        raise KiwixError(f"The article {first} in {book} redirects in a loop.", "malformed")

    def content_url(self, book: str, path: str) -> str:
        return f"{self.url}/content/{book}/{urllib.parse.quote(path, safe=_PATH_SAFE)}"

    @staticmethod
    def path_in(book: str, link: str) -> str | None:
        """The article path inside a kiwix-serve link, whatever its URL scheme:
        ``/raw/<book>/content/<p>``, ``/content/<book>/<p>`` or ``/<book>/<p>``."""
        address = urllib.parse.urlsplit(link).path
        for marker in (f"/raw/{book}/content/", f"/content/{book}/", f"/{book}/"):
            if marker in address:
                return urllib.parse.unquote(address.split(marker, 1)[1]) or None
        return None

    def _xml(self, response: Response, what: str) -> ET.Element:
        try:
            return ET.fromstring(response.body)
        except ET.ParseError as exc:
            raise self._malformed(what) from exc

    def _malformed(self, what: str) -> KiwixError:
        return KiwixError(
            f"The encyclopedia server at {self.url} sent {what} I could not read.", "malformed"
        )


class RemoteBook:
    """One book of a kiwix-serve."""

    backend = "kiwix-serve"

    def __init__(
        self, server: KiwixServer, name: str, title: str, language: str | None, names: TitleNames
    ) -> None:
        self.server = server
        self.name = name
        self.title = title
        self.language = language
        self.names = names

    def fetch_titles(self, count: int, timeout_s: float) -> None:
        """Once, at start: titles with a joiner, as far as suggestions reveal them."""
        for joiner in self.names.joiners:
            if count <= 0 or not joiner.isalpha():
                continue
            try:
                hits = self.server.suggest(self.name, joiner, count, timeout_s)
            except KiwixError:
                return
            for hit in hits:
                self.names.add(hit.title)

    def is_name(self, text: str) -> bool:
        return self.names.is_name(text)

    def titles(self, variants: list[str], timeout_s: float) -> list[Hit]:
        return []  # kiwix-serve has no lookup by title; suggestions rank exact titles first

    def suggest(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        return self.server.suggest(self.name, text, limit, timeout_s)

    def search(self, text: str, limit: int, timeout_s: float) -> list[Hit]:
        return self.server.search(self.name, text, limit, timeout_s)

    def article(self, path: str, timeout_s: float) -> Article:
        body, final, redirected = self.server.raw(self.name, path, timeout_s)
        title = final.replace("_", " ")
        return Article(
            title=title,
            path=final,
            html=body,
            redirected_from=redirected.replace("_", " ") if redirected else None,
            url=self.server.content_url(self.name, final),
        )

    def close(self) -> None:
        return None


def seconds(value: float) -> str:
    """0.3999 (a timeout cut by the deadline) is said as 0.4; 3.0 as 3."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None) or exc
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return " ".join(str(reason).split())[:100] or type(reason).__name__
