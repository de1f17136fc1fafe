"""The Kiwix source: `knowledge.lookup` from offline ZIM encyclopedias, read with
libzim or from a kiwix-serve.

`source` answers; `settings` reads `sources/kiwix.yaml`; `zim_local` and
`http` are the two kinds of book; `lookup` and `pick` find the article;
`article_text` reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.kiwix.source import KiwixSource


def create(context: SourceContext) -> KiwixSource:
    from mnemolis.sources.kiwix.source import KiwixSource

    return KiwixSource(
        context.config, environ=context.environ, demo_book=context.extras.get("demo_zim")
    )
