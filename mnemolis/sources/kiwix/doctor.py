"""`mnemolis doctor` for the Kiwix source: which books opened, and what went wrong."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from mnemolis.sources.base import Finding, Level, some_names


class _Book(Protocol):
    @property
    def name(self) -> str | None: ...
    @property
    def where(self) -> str: ...
    @property
    def usable(self) -> bool: ...


class Checked(Protocol):
    """What the doctor reads of the Kiwix source (it never imports the source back)."""

    @property
    def states(self) -> Sequence[_Book]: ...
    @property
    def problems(self) -> list[str]: ...


def diagnose(kiwix: Checked) -> Finding:
    usable = [s.name or s.where for s in kiwix.states if s.usable]
    problems = kiwix.problems
    fix = "check books: and url: in sources/kiwix.yaml (or MNEMOLIS_KIWIX)"
    if not usable:
        said = " ".join(problems) or "no encyclopedia is configured"
        return Finding("kiwix", Level.BROKEN, f"no encyclopedia can be read: {said}", fix)
    readable = f"{len(usable)} book(s) readable: {some_names(usable)}"
    if problems:
        return Finding("kiwix", Level.WARNING, f"{readable}; but {' '.join(problems)}", fix)
    return Finding("kiwix", Level.OK, readable)
