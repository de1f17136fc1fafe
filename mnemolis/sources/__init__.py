"""Source adapters: mqtt, kiwix, weather, clock, all behind `base.Source`."""

from mnemolis.sources.base import (
    Evaluation,
    NameSource,
    PartAnswer,
    Request,
    Source,
    Status,
    Truth,
)

__all__ = ["Evaluation", "NameSource", "PartAnswer", "Request", "Source", "Status", "Truth"]
