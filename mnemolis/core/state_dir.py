"""Where Mnemolis keeps what must survive a restart (timers, lists, the daemon's token).

``$MNEMOLIS_STATE``, else ``$XDG_STATE_HOME/mnemolis``, else
``~/.local/state/mnemolis``; the systemd unit sets ``StateDirectory=``,
which systemd hands over as ``$STATE_DIRECTORY``.

What is kept there is the household's own (lists, reminders, the token that
guards the HTTP API), so it is private to its owner whatever the umask:
`private_state_dir` makes the directory 0700 and takes every permission of
the group and of others from what is already in it (a file 0644 becomes
0600), and the daemon does the same for its caches (`private_places`).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

STATE_ENV = "MNEMOLIS_STATE"
#: Caches the daemon may have written (the demo encyclopedia, the weather): also private.
CACHE_ENVS = ("MNEMOLIS_CACHE", "CACHE_DIRECTORY", "MNEMOLIS_WEATHER_CACHE")
PRIVATE_DIR = 0o700
#: The permissions of the group and of others, taken away.
SHARED_BITS = 0o077

log = logging.getLogger("mnemolis.state")


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The state directory (not created here: see `private_state_dir`)."""
    env = os.environ if environ is None else environ
    explicit = env.get(STATE_ENV) or env.get("STATE_DIRECTORY", "").split(":")[0]
    if explicit:
        return Path(explicit)
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".local" / "state"
    return base / "mnemolis"


def private_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The state directory, created 0700 when missing and tightened when it exists.

    Never raises: a directory that cannot be made or tightened is logged, and
    whoever writes in it says what went wrong then."""
    path = state_dir(environ)
    try:
        path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("cannot create the state directory %s: %s", path, exc.strerror or exc)
        return path
    tighten(path)
    return path


def private_places(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The state directory and the caches: those the environment names (the unit's
    ``CacheDirectory=``, ``$MNEMOLIS_CACHE``, ``$MNEMOLIS_WEATHER_CACHE``), else
    ``~/.cache/mnemolis``, where the demo encyclopedia and the weather are kept."""
    env = os.environ if environ is None else environ
    caches = [Path(p) for name in CACHE_ENVS for p in env.get(name, "").split(":")[:1] if p]
    if not caches:
        caches = [Path(env.get("HOME") or Path.home()) / ".cache" / "mnemolis"]
    return [state_dir(env), *caches]


def tighten(top: Path) -> list[Path]:
    """Take the group's and others' permissions from ``top`` and everything below it
    that this user owns (the owner's own bits are kept; symbolic links are not
    followed); the paths that changed. Never raises."""
    changed: list[Path] = []
    for path in _below(top):
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
            continue
        mode = stat.S_IMODE(info.st_mode)
        wanted = mode & ~SHARED_BITS
        if wanted != mode:
            try:
                os.chmod(path, wanted)
            except OSError as exc:
                log.warning("cannot make %s private: %s", path, exc)
                continue
            changed.append(path)
    if changed:
        log.info("made %d files and folders in %s private to their owner", len(changed), top)
    return changed


def _below(top: Path) -> Iterable[Path]:
    if not top.is_dir() or top.is_symlink():
        return
    yield top
    for folder, dirs, files in os.walk(top, followlinks=False):  # errors: skipped
        for name in (*dirs, *files):
            yield Path(folder) / name
