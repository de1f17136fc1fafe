"""The daemon's own token: made on its first start, kept in a private file, read by the CLI.

Without a token, anything that can reach the HTTP API may ask, a web page in
a browser on the same machine among them. So when the owner sets none
(``--token``, ``$MNEMOLIS_TOKEN``, ``token:`` in `sources/serve.yaml`), the
daemon uses the one in ``token_file`` (``auto``: ``token`` in the state
directory), and makes it there on its first start: 32 random bytes,
URL-safe, mode 0600, written once (``O_EXCL``: two daemons starting at once
agree on one). `mnemolis ask` and `chat` read the same file when they use
the loopback HTTP API (`client`); a user who may not read it uses the
daemon's unix socket instead, or answers in-process. ``token_file: null``
switches this off (then, with no token set, the API is open).

Standard library only: the CLI imports it before anything heavy.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from mnemolis.core.state_dir import state_dir

AUTO = "auto"
FILE_NAME = "token"
MAX_CHARS = 512
FILE_MODE = 0o600


class TokenFileError(Exception):
    """The token file cannot be read or made; the message says which file and why."""


def token_path(setting: str | None, environ: Mapping[str, str]) -> Path | None:
    """Where the token file is for a ``token_file`` setting (None: there is none)."""
    if setting is None:
        return None
    return state_dir(environ) / FILE_NAME if setting == AUTO else Path(setting)


def valid(token: str) -> bool:
    return 0 < len(token) <= MAX_CHARS and not any(c.isspace() for c in token)


def read_token(path: Path) -> str | None:
    """The token in ``path``; None when it is missing, unreadable or not a token
    (the CLI then goes without, and the daemon's refusal says why)."""
    try:
        token = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token if valid(token) else None


def ensure_token(path: Path) -> tuple[str, bool]:
    """The token in ``path``, made first when there is none; and whether it was made.

    An existing file is made private (0600) if it was not."""
    try:
        return _read_existing(path), False
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, FILE_MODE)
    except FileExistsError:  # another daemon made it first: use that one
        return _read_existing(path), False
    except OSError as exc:
        raise TokenFileError(f"cannot make the token file {path}: {_why(exc)}") from exc
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), FILE_MODE)  # whatever the umask
        file.write(token + "\n")
    return token, True


def _read_existing(path: Path) -> str:
    """FileNotFoundError when there is no file; `TokenFileError` when it is no token."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"cannot read the token file {path}: {_why(exc)}") from exc
    token = text.strip()
    if not valid(token):
        raise TokenFileError(
            f"the token file {path} does not hold a token (one line of at most {MAX_CHARS} "
            "characters without spaces): fix it, or delete it and a new one is made"
        )
    with contextlib.suppress(OSError):  # another user's file: readable is enough
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, FILE_MODE)
    return token


def _why(exc: OSError | UnicodeDecodeError) -> str:
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno).lower()
    return str(exc)


def configured_token(token_file: str | None, environ: Mapping[str, str]) -> str | None:
    """The CLI's view: the token in the file a ``token_file`` setting names, if readable."""
    path = token_path(token_file, environ)
    return read_token(path) if path is not None else None
