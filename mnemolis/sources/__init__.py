"""Source adapters behind `base.Source`; `registry` says which exist (one folder each)."""

from mnemolis.sources.base import (
    Evaluation,
    PartAnswer,
    Request,
    Source,
    Status,
    Truth,
)

__all__ = ["Evaluation", "PartAnswer", "Request", "Source", "Status", "Truth"]
