"""The lists source: the shopping list and named to-do lists, in SQLite in the
state directory (`sources/lists.yaml`).

`source` answers; `settings` reads the file; `items` reads the list and the
items a part names; `store` keeps them, safe for many processes at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.lists.source import ListsSource


def create(context: SourceContext) -> ListsSource:
    from mnemolis.sources.lists.source import ListsSource

    return ListsSource(context.config, context.state_dir)
