"""Compiled models in the state directory, one folder per vocabulary digest.

A folder is written under a temporary name and renamed when complete, so a
crash mid-build never leaves a model that loads half; the newest few are kept
and older ones removed, so a house that changes often does not fill the disk.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from mnemolis.voice.recognise.model import META, ModelInfo

CACHE_DIR = "recogniser"
KEEP = 3


def cache_root(state_dir: Path) -> Path:
    return state_dir / CACHE_DIR


def cached(state_dir: Path, digest: str) -> tuple[Path, ModelInfo] | None:
    """The compiled model for ``digest``, when one is complete on disk."""
    path = cache_root(state_dir) / digest
    try:
        info = ModelInfo.from_json((path / META).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    os.utime(path)  # the newest used is kept longest
    return path, info


def store(
    state_dir: Path, digest: str, build: Callable[[Path, Path], ModelInfo]
) -> tuple[Path, ModelInfo]:
    """``build(folder, final)`` writes into a fresh folder (its files naming ``final``),
    then the folder is moved into place as ``digest``."""
    root = cache_root(state_dir)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=root))
    final = root / digest
    try:
        build(tmp, final)
        if final.exists():  # built meanwhile by another process: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    prune(root)
    info = cached(state_dir, digest)
    if info is None:
        raise OSError(f"the compiled model did not land in {final}")
    return info


def prune(root: Path, keep: int = KEEP) -> None:
    folders = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)
