"""What keeps a newcomer's first commands safe and clear.

`shipped_home_note`: ``ask``, ``chat`` and ``doctor`` with no home of one's
own (no ``--config``, ``$MNEMOLIS_CONFIG`` or ``/etc/mnemolis``) run the
shipped example home against whatever broker listens at the shipped
address. They still do (a broker there may be the owner's, set up on
purpose), but say so first, on standard error, and point at ``mnemolis
demo``, which never talks to anything outside its own process.

The demo's own commands (``mnemolis demo --ask``, ``--parse``,
``--explain``, ``--doctor``) use the demo's configuration and home, never
the real ones: `demo_config_dir` and `run_demo_verb`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mnemolis.core.config_dir import bundled_config_dir, find_config_dir

if TYPE_CHECKING:
    from mnemolis.config import Config

#: The demo's commands that answer without the demo home running.
PURE_VERBS = ("parse", "explain")


def shipped_home_note(args: argparse.Namespace, config: Config) -> str | None:
    """The sentence for a command about to use the shipped home on the shipped broker
    address, or None when a home or a broker was chosen."""
    from mnemolis.mqtt_connection.settings import load_broker_settings

    if find_config_dir(getattr(args, "config", None)) != bundled_config_dir():
        return None
    broker, from_environment = load_broker_settings(config)
    if from_environment:
        return None
    return (
        "no home of your own is set up (no --config, $MNEMOLIS_CONFIG or /etc/mnemolis), so "
        f"this is the shipped example home, and its commands go to whatever MQTT broker "
        f"listens at {broker.address}; `mnemolis demo` tries Mnemolis on a simulated home "
        "inside its own process"
    )


def say_note(note: str | None) -> None:
    if note is not None:
        print(f"mnemolis: {note}", file=sys.stderr, flush=True)


def demo_config_dir(args: argparse.Namespace) -> Path:
    """The demo's configuration: ``--config`` if given, else the bundled one, never
    ``$MNEMOLIS_CONFIG`` or ``/etc/mnemolis``."""
    explicit = getattr(args, "config", None)
    return Path(explicit) if explicit else bundled_config_dir()


def run_demo_verb(
    args: argparse.Namespace, verb: str, commands: dict[str, Callable[[argparse.Namespace], int]]
) -> int:
    """``mnemolis demo --parse TEXT`` / ``--explain TEXT``: the command over the demo's
    configuration (pure: nothing is started, nothing is sent)."""
    args.config = str(demo_config_dir(args))
    args.queries = [getattr(args, verb)]
    args.conversation = False
    return commands[verb](args)
