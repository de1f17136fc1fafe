"""Which configuration directory a command uses, found without loading anything.

Apart from `mnemolis.config` (which reads and validates the YAML) so that the
CLI's path to a running daemon can name the directory it would use at the
cost of a few `stat` calls.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

#: The system-wide configuration of an installed daemon (see packaging/).
ETC_CONFIG_DIR = Path("/etc/mnemolis")
CONFIG_ENV = "MNEMOLIS_CONFIG"


def bundled_config_dir() -> Path:
    """The defaults shipped with Mnemolis (the checkout, or share/mnemolis)."""
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "intents").is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "mnemolis"


def find_config_dir(
    explicit: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    etc: Path = ETC_CONFIG_DIR,
) -> Path:
    """``--config``, then ``$MNEMOLIS_CONFIG``, then ``/etc/mnemolis`` (when it holds
    ``intents/`` or ``sources/``), then the defaults. Whichever it is, `load_config`
    lays it over the shipped defaults."""
    if explicit:
        return Path(explicit)
    env = (os.environ if environ is None else environ).get(CONFIG_ENV)
    if env:
        return Path(env)
    if (etc / "intents").is_dir() or (etc / "sources").is_dir():
        return etc
    return bundled_config_dir()
