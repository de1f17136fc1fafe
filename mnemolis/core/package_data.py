"""Words and tables shipped inside the package (a ``data/*.yaml`` beside the code).

They are data an owner rarely edits (WMO code descriptions, answer templates,
month names), read once with ``yaml.safe_load`` and shared.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def load_package_yaml(package: str, name: str) -> dict[str, Any]:
    """The mapping in ``<package>/data/<name>.yaml``; a broken shipped file is a bug,
    so it raises."""
    text = resources.files(package).joinpath("data", f"{name}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ValueError(f"{package.replace('.', '/')}/data/{name}.yaml must hold a mapping")
    return data
