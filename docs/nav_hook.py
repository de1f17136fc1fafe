"""A MkDocs hook: a section of the navigation with no page in it is left out.

`.nav.yml` names sections whose pages arrive by pattern (voice*.md, security*.md);
until one does, the section would show as an empty heading.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.nav import Navigation, Section


def _pruned(items: list[Any]) -> list[Any]:
    kept = []
    for item in items:
        if isinstance(item, Section):
            item.children = _pruned(item.children)
            if not item.children:
                continue
        kept.append(item)
    return kept


def on_nav(nav: Navigation, **_: Any) -> Navigation:
    nav.items = _pruned(nav.items)
    return nav
