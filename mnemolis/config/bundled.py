"""The shipped `sources/*.yaml` as defaults under the owner's own files.

An owner's file may be older than the code, or leave keys out: every key it
does not set is taken from the shipped file, at every depth. Templates are
filled so that a field the owner misspelt stays visible as ``{name}``
instead of raising.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import yaml

from mnemolis.config import bundled_config_dir
from mnemolis.config.overlay import merged

log = logging.getLogger(__name__)


@cache
def bundled_source_yaml(stem: str) -> dict[str, Any]:
    """The shipped `sources/<stem>.yaml`; empty (and said in the log) if it is unreadable."""
    path = bundled_config_dir() / "sources" / f"{stem}.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        log.warning("cannot read the bundled %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


class Fields(dict[str, Any]):
    """Template fields for ``str.format_map``: a missing one stays ``{name}``."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, **fields: Any) -> str:
    """``template`` with ``fields``; a broken template comes back as written."""
    try:
        return template.format_map(Fields(fields))
    except (ValueError, IndexError, AttributeError):
        return template


__all__ = ["Fields", "bundled_source_yaml", "fill", "merged"]
