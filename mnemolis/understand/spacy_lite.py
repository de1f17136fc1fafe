"""The pieces of spaCy the router uses, imported without spaCy's command line.

Every module of `understand` takes spaCy's classes from here, so the first
import of spaCy in the process is this one.

``import spacy`` also imports ``spacy.cli`` (for ``spacy.info``), and with it
weasel, typer, requests, httpx and rich: about a third of spaCy's import time
and ~19 MB resident, none of which the router uses. While spaCy imports, a
placeholder stands in for ``spacy.cli.info``; afterwards the placeholders are
gone, so a later ``import spacy.cli`` loads the real one, and ``spacy.info``
calls it.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

_CLI = "spacy.cli"
_INFO = "spacy.cli.info"


def _info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``, loading the real command line when someone asks for it."""
    real = importlib.import_module(_INFO)
    return real.info(*args, **kwargs)


def import_spacy() -> ModuleType:
    """spaCy, imported once without ``spacy.cli``; a spaCy whose ``__init__`` needs more
    of its command line than ``spacy.cli.info`` is imported as it is."""
    loaded = sys.modules.get("spacy")
    if loaded is not None:
        return loaded
    cli = ModuleType(_CLI)
    cli.__path__ = []
    info = ModuleType(_INFO)
    setattr(info, "info", _info)  # noqa: B010 - a module's attribute, typed as Any
    sys.modules[_CLI], sys.modules[_INFO] = cli, info
    try:
        return importlib.import_module("spacy")
    except ImportError:
        for name in [n for n in sys.modules if n == "spacy" or n.startswith("spacy.")]:
            del sys.modules[name]
        sys.modules.pop(_CLI, None)
        return importlib.import_module("spacy")
    finally:
        for name, placeholder in ((_INFO, info), (_CLI, cli)):
            if sys.modules.get(name) is placeholder:
                del sys.modules[name]


import_spacy()

from spacy import attrs, blank  # noqa: E402 - after import_spacy
from spacy.matcher import Matcher, PhraseMatcher  # noqa: E402
from spacy.tokens import Doc  # noqa: E402
from spacy.vocab import Vocab  # noqa: E402

#: The attributes of a word the router reads (`Token`, the matchers' patterns) and the
#: tokenizer needs; spaCy computes every other one too for each new word (its shape,
#: whether it looks like a URL or an e-mail, prefix, suffix...), unread.
READ_ATTRS = frozenset(
    {attrs.LOWER, attrs.NORM, attrs.IS_PUNCT, attrs.IS_SPACE, attrs.LIKE_NUM, attrs.LANG}
)


def only_read_attributes(vocab: Vocab) -> None:
    """A new word in ``vocab`` gets only the attributes in `READ_ATTRS`."""
    getters: dict[int, Any] = getattr(vocab, "lex_attr_getters")  # noqa: B009 - not in the stubs
    for attr in [a for a in getters if a not in READ_ATTRS]:
        del getters[attr]


__all__ = [
    "Doc",
    "Matcher",
    "PhraseMatcher",
    "Vocab",
    "blank",
    "import_spacy",
    "only_read_attributes",
]
