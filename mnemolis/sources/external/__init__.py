"""The external source: intents written with ``source: external`` are recognised here
and published over MQTT (Mnemolis' own JSON and Rhasspy's Hermes) for other programs
to carry out; `sources/external.yaml` says where."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.external.source import ExternalSource


def create(context: SourceContext) -> ExternalSource:
    from mnemolis.sources.external.settings import load_external_settings
    from mnemolis.sources.external.source import ExternalSource

    return ExternalSource(context.config, context.peers, load_external_settings(context.config))
