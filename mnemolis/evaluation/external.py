"""Evaluation data written by others, which this repository does not ship: where a
missing file comes from (`external_data.yaml`), said by `mnemolis eval` and the
benchmarks instead of a bare "no such file"."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml


def where_to_get(path: Path) -> str | None:
    """The origin of the data set ``path`` names (by the start of its file name), or None
    for a file that is not one of them."""
    text = resources.files(__package__).joinpath("external_data.yaml").read_text("utf-8")
    known: dict[str, str] = yaml.safe_load(text)
    name = path.name.lower()
    return next((origin for key, origin in known.items() if name.startswith(key)), None)
