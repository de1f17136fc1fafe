"""Article HTML to speakable text: paragraphs, the links of list items, sentences.

Offline Wikipedia pages carry infoboxes, reference marks, navigation boxes,
image captions and edit links; none of that is read aloud. What is left is
split into paragraphs; the opening sentences of the first real paragraphs are
the spoken answer. Parenthesised asides ("(1815–1852)", "(née Byron; ...)")
are dropped, since they are unreadable when spoken.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser

from mnemolis.sources.kiwix.settings import TextRules

#: Elements whose content is never spoken.
SKIP_TAGS = frozenset(
    {
        "script", "style", "head", "table", "sup", "figure", "figcaption", "nav", "math",
        "noscript", "button", "audio", "video", "svg", "canvas", "form", "iframe", "object",
        "template", "aside", "footer", "header",
    }
)  # fmt: skip
#: Elements whose class marks page furniture rather than prose.
SKIP_CLASSES = frozenset(
    {
        "infobox", "navbox", "vertical-navbox", "hatnote", "reference", "references", "reflist",
        "mw-editsection", "noprint", "metadata", "thumb", "toc", "ambox", "sidebar", "gallery",
        "coordinates", "geo", "mw-empty-elt", "shortdescription", "mw-references-wrap",
    }
)  # fmt: skip
#: Elements that end a paragraph.
BLOCK_TAGS = frozenset(
    {
        "p", "div", "li", "dd", "dt", "ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6",
        "blockquote", "section", "br", "hr", "pre", "details", "summary", "main", "article",
    }
)  # fmt: skip
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
DISAMBIGUATION_MARKS = frozenset({"disambiguation", "disambig", "disambigbox", "dmbox"})
#: Only this much of an article is parsed: the opening is all that is spoken.
MAX_PARSE_CHARS = 300_000

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_SPACE = re.compile(r"\s+")
_BRACKET_REF = re.compile(r"\[\s*(?:\d+|[a-z]|citation needed|note \d+)\s*\]", re.IGNORECASE)
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-ÖØ-Þ])")


@dataclass
class Block:
    """One paragraph-like run of text, and the element that held it."""

    tag: str  # p, li, h1, ..., or "text" for loose text
    text: str


@dataclass
class OptionLink:
    """The first link of a list item: an option of a disambiguation page."""

    title: str
    text: str


@dataclass
class ArticleText:
    title: str | None
    blocks: list[Block] = field(default_factory=list)
    options: list[OptionLink] = field(default_factory=list)
    marked_disambiguation: bool = False  # a class or id says so

    @property
    def paragraphs(self) -> list[str]:
        """Prose: <p> blocks, or every non-heading block when a page has none."""
        prose = [b.text for b in self.blocks if b.tag == "p"]
        if prose:
            return prose
        return [b.text for b in self.blocks if not b.tag.startswith("h") and b.tag != "li"]


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipping)
        self.skip_depth = 0
        self.blocks: list[Block] = []
        self.buffer: list[str] = []
        self.block_tag = "text"
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.in_title = False
        self.in_h1 = False
        self.options: list[OptionLink] = []
        self.li_depth = 0
        self.li_has_link = False
        self.link: tuple[str, list[str]] | None = None  # (target title, text parts)
        self.marked = False

    # -- structure

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        classes = set(attributes.get("class", "").lower().split())
        ident = attributes.get("id", "").lower()
        if classes & DISAMBIGUATION_MARKS or ident in DISAMBIGUATION_MARKS:
            self.marked = True
        if tag == "title":
            self.in_title = True
        skipping = tag in SKIP_TAGS or bool(classes & SKIP_CLASSES) or tag == "title"
        if tag in BLOCK_TAGS:
            self._flush()
            self.block_tag = tag if tag in ("p", "li", "dd") or tag.startswith("h") else "text"
        if tag == "h1":
            self.in_h1 = True
        if tag == "li":
            self.li_depth += 1
            self.li_has_link = False
        if tag == "a" and self.skip_depth == 0 and self.li_depth and not self.li_has_link:
            target = _link_title(attributes)
            if target:
                self.link = (target, [])
        if tag in VOID_TAGS:
            return
        self.stack.append((tag, skipping))
        if skipping:
            self.skip_depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCK_TAGS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag == "a" and self.link is not None:
            target, parts = self.link
            self.options.append(OptionLink(target, _clean("".join(parts))))
            self.li_has_link = True
            self.link = None
        if not any(t == tag for t, _ in self.stack):
            return  # a stray end tag
        while self.stack:
            open_tag, skipping = self.stack.pop()
            if skipping:
                self.skip_depth -= 1
            if open_tag == "li":
                self.li_depth = max(0, self.li_depth - 1)
            if open_tag == tag:
                break
        if tag in BLOCK_TAGS:
            self._flush()
        if tag == "h1":
            self.in_h1 = False

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.skip_depth:
            return
        if self.in_h1:
            self.h1_parts.append(data)
        if self.link is not None:
            self.link[1].append(data)
        self.buffer.append(data)

    def _flush(self) -> None:
        text = _clean("".join(self.buffer))
        self.buffer = []
        if text:
            self.blocks.append(Block(self.block_tag, text))
        self.block_tag = "text"

    def finish(self) -> ArticleText:
        self.close()
        self._flush()
        title = _clean("".join(self.h1_parts)) or _clean("".join(self.title_parts)) or None
        return ArticleText(title, self.blocks, self.options, self.marked)


def _link_title(attributes: dict[str, str]) -> str | None:
    """Where a link leads, as a title: its title attribute, else its path."""
    href = attributes.get("href", "")
    if not href or href.startswith("#") or "://" in href or href.startswith("mailto:"):
        return None
    if attributes.get("title"):
        return attributes["title"].strip()
    path = urllib.parse.unquote(href.split("#", 1)[0].split("?", 1)[0])
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return " ".join(last.replace("_", " ").split()) or None


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def html_title(page: str) -> str | None:
    """The <title> of a page, cheaply, without parsing all of it."""
    found = _TITLE.search(page[:20_000])
    if found is None:
        return None
    return _clean(html.unescape(found.group(1))) or None


def extract(page: str) -> ArticleText:
    """Paragraphs, list-item links and the title of an article page."""
    parser = _Extractor()
    parser.feed(page[:MAX_PARSE_CHARS])
    return parser.finish()


# --------------------------------------------------------------------------- sentences


def drop_asides(text: str) -> str:
    """Remove (parenthesised asides) and [reference marks], nesting included."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    # an unclosed "(" would swallow the rest: then keep the asides
    cleaned = _BRACKET_REF.sub("", text if depth else "".join(out))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _clean(cleaned))


def split_sentences(text: str, abbreviations: set[str]) -> list[str]:
    """Sentences of one paragraph; "Mr. Darcy" and "J. R. R. Tolkien" stay whole."""
    sentences = []
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start : boundary.start() + 1].rsplit(None, 1)
        word = before[-1].lower() if before else ""
        bare = word.lstrip("\"'“‘([")
        if bare in abbreviations or (len(bare) == 2 and bare[0].isalpha()):
            continue  # an abbreviation or an initial
        sentence = text[start : boundary.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = boundary.end()
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def lead_sentences(article: ArticleText, rules: TextRules, count: int, max_chars: int) -> list[str]:
    """The first ``count`` sentences of the prose, stopping early past ``max_chars``."""
    picked: list[str] = []
    length = 0
    for paragraph in article.paragraphs:
        text = drop_asides(paragraph)
        if len(text.split()) < 3:
            continue  # coordinates, captions and other fragments
        for sentence in split_sentences(text, rules.abbreviations):
            if len(sentence) > max_chars:
                sentence = _cut(sentence, max_chars)
            if picked and length + len(sentence) + 1 > max_chars:
                return picked
            picked.append(sentence)
            length += len(sentence) + 1
            if len(picked) >= count:
                return picked
    return picked


def _cut(sentence: str, max_chars: int) -> str:
    """A sentence too long to speak, cut at a word boundary, with an ellipsis."""
    cut = sentence[: max_chars - 1]
    if not sentence[max_chars - 1 : max_chars].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;: ") + "…"


def is_disambiguation(title: str, article: ArticleText, rules: TextRules) -> bool:
    """A page that lists meanings: marked so, titled so, or whose opening
    paragraph ends in "may refer to:"."""
    if article.marked_disambiguation:
        return True
    lowered = title.lower()
    if any(mark in lowered for mark in rules.disambiguation):
        return True
    opening = next((p for p in article.paragraphs if p), "")
    ending = opening.lower().rstrip(" :.…")
    return any(ending.endswith(mark) for mark in rules.disambiguation)


def is_list_title(title: str, rules: TextRules) -> bool:
    lowered = title.lower()
    return any(lowered.startswith(prefix + " ") for prefix in rules.list_prefixes)
