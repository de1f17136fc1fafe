"""Where Mnemolis keeps what must survive a restart (timers, lists).

``$MNEMOLIS_STATE``, else ``$XDG_STATE_HOME/mnemolis``, else
``~/.local/state/mnemolis``; the systemd unit sets ``StateDirectory=``,
which systemd hands over as ``$STATE_DIRECTORY``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STATE_ENV = "MNEMOLIS_STATE"


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The state directory (not created here: its owner creates it when it first writes)."""
    env = os.environ if environ is None else environ
    explicit = env.get(STATE_ENV) or env.get("STATE_DIRECTORY", "").split(":")[0]
    if explicit:
        return Path(explicit)
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".local" / "state"
    return base / "mnemolis"
