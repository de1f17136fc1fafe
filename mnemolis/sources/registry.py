"""Building the sources the table in `config.source_kinds` names, each seeing the earlier ones.

`kinds`, `names` and `expected` are that table's, re-exported for the callers above
the configuration (the executor, `doctor`, the evaluation).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from mnemolis.config.source_kinds import (
    BUILTIN,
    ENTRY_POINT_GROUP,
    SourceKind,
    expected,
    kinds,
    names,
)

if TYPE_CHECKING:
    from mnemolis.sources.base import Source, SourceContext

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "SourceKind",
    "build",
    "expected",
    "factory",
    "kinds",
    "names",
]


def factory(kind: SourceKind) -> Callable[[SourceContext], Source]:
    """The kind's ``create(context)``, imported now: only a source that is built loads."""
    module, _, attr = kind.factory.partition(":")
    found: Callable[[SourceContext], Source] = getattr(
        importlib.import_module(module), attr or "create"
    )
    return found


def build(context: SourceContext, only: Iterable[str] | None = None) -> list[Source]:
    """Build the sources (every one, or those named), each seeing the earlier ones."""
    wanted = None if only is None else set(only)
    built: list[Source] = []
    for kind in kinds().values():
        if wanted is not None and kind.name not in wanted:
            continue
        source = factory(kind)(context)
        context.peers[kind.name] = source
        built.append(source)
    return built
