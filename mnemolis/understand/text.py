"""Tokens with offsets and lower-case lemmas, from spaCy's blank English pipeline.

Only the tokenizer is spaCy's, imported without its command line
(`spacy_lite`); the lookup lemma table is the package's own copy of
spacy-lookups-data's (`lemma_tables`): no trained model is loaded or needed.
The lemma of a token is looked up from its lower-case form, so typed "Turn"
and spoken "turn" match alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Language
from mnemolis.understand.lemma_tables import base_verbs, lemma_lookup
from mnemolis.understand.spacy_lite import Doc, blank, only_read_attributes


@dataclass(slots=True)
class Token:
    """One token of the normalised text."""

    i: int
    text: str
    lower: str
    lemma: str
    start: int  # character offsets in the normalised text
    end: int
    is_punct: bool
    is_title: bool  # starts with a capital letter, as typed
    is_num: bool


_UNIT_SYMBOLS = frozenset({"%", "°"})
#: Texts whose words `TextPipeline.words` keeps (compiling a large home asks for more).
_WORDS_KEPT = 50_000


class TextPipeline:
    """Tokenise and lemmatise; shared by every stage and by the compiled matchers."""

    def __init__(self, language: Language) -> None:
        self.nlp = blank(language.code)
        self.vocab = self.nlp.vocab
        only_read_attributes(self.vocab)  # a new word costs a third less
        self._table = lemma_lookup(language.code)
        # base forms of English verbs (WordNet, via spacy-lookups-data): "help", "locate"
        self._verbs = base_verbs(language.code)
        self._overrides = dict(language.lemma_overrides)
        self._cache: dict[str, str] = {}
        self._dictionary: frozenset[str] | None = None
        self._words: dict[str, tuple[str, ...]] = {}

    def lemma(self, lower: str) -> str:
        cached = self._cache.get(lower)
        if cached is not None:
            return cached
        lemma = self._overrides.get(lower)
        if lemma is None:
            found = self._table.get(lower)
            lemma = found if isinstance(found, str) else lower
        if len(self._cache) < 50_000:
            self._cache[lower] = lemma
        return lemma

    def is_verb(self, lemma: str) -> bool:
        return lemma in self._verbs

    def is_dictionary_word(self, lower: str) -> bool:
        """A word of the lemma table ("back", "cool"); a brand ("dyson") is not."""
        if self._dictionary is None:
            self._dictionary = frozenset(self._table) | frozenset(self._table.values())
        return lower in self._dictionary or lower in self._verbs

    def doc(self, text: str) -> Doc:
        """A spaCy Doc with lower-case lemmas set, ready for the matchers."""
        doc = self.nlp.make_doc(text)
        for tok in doc:
            tok.lemma_ = self.lemma(tok.lower_)
        return doc

    def lemmas(self, text: str) -> list[str]:
        return [self.lemma(t.lower_) for t in self.nlp.make_doc(text)]

    def words(self, text: str) -> list[str]:
        """The lower-case words of ``text``; compiling asks again for the same phrases'
        (each intent's, each class's), and a spaCy Doc costs more than a look-up."""
        found = self._words.get(text)
        if found is None:
            found = tuple(t.lower_ for t in self.nlp.make_doc(text))
            if len(self._words) < _WORDS_KEPT:
                self._words[text] = found
        return list(found)

    @staticmethod
    def tokens(doc: Doc) -> list[Token]:
        out = []
        for tok in doc:
            text = tok.text
            out.append(
                Token(
                    i=tok.i,
                    text=text,
                    lower=tok.lower_,
                    lemma=tok.lemma_,
                    start=tok.idx,
                    end=tok.idx + len(text),
                    # "%" is a unit, not punctuation: "75%" keeps its percent sign
                    is_punct=(tok.is_punct or (not text.isalnum() and len(text) == 1))
                    and text not in _UNIT_SYMBOLS,
                    is_title=text[:1].isupper(),
                    is_num=tok.like_num,
                )
            )
        return out
