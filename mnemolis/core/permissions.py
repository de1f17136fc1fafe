"""A file or socket this user may not open, said as a sentence with what to do.

A user not yet in the group ``mnemolis`` cannot read ``/etc/mnemolis`` (the
install makes it ``root:mnemolis``, mode 0750, since ``sources/mqtt.yaml``
may hold the broker's password) nor use the daemon's socket in
``/run/mnemolis``. Instead of a traceback the command names the path, the
group that may, and the command that adds the user to it.
"""

from __future__ import annotations

import grp
import os
from pathlib import Path


def owning_group(path: Path) -> str | None:
    """The group of ``path`` or of its nearest ancestor this user may look at."""
    for candidate in (path, *path.parents):
        try:
            gid = candidate.stat().st_gid
        except OSError:
            continue
        try:
            return grp.getgrgid(gid).gr_name
        except KeyError:
            return str(gid)
    return None


def denied(exc: PermissionError, doing: str = "read") -> str:
    """The sentence for ``exc``: what could not be done, and how to be allowed to."""
    where = exc.filename or "a file it needs"
    sentence = f"you may not {doing} {where} (permission denied)"
    group = owning_group(Path(where)) if exc.filename else None
    mine = {grp.getgrgid(g).gr_name for g in _groups()}
    if group and group not in mine and group != "root":
        sentence += (
            f"; it belongs to the group {group}, which you are not in: "
            f"`sudo usermod -aG {group} $USER`, then log in again"
        )
    return sentence


def _groups() -> list[int]:
    found = {os.getegid(), *os.getgroups()}
    return [g for g in found if _known(g)]


def _known(gid: int) -> bool:
    try:
        grp.getgrgid(gid)
    except KeyError:
        return False
    return True
