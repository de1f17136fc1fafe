"""One subcommand of `mnemolis`, as every command of the command line registers it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_command(
    sub: Any, name: str, command: Callable[[argparse.Namespace], int], **kwargs: Any
) -> argparse.ArgumentParser:
    """The parser of ``mnemolis NAME``, which runs ``command``; it takes ``--config`` after
    the command word too (hidden: `mnemolis --help` shows the one before it).
    ``kwargs`` go to ``add_parser`` (help, description, epilog ...)."""
    p: argparse.ArgumentParser = sub.add_parser(name, **kwargs)
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=command)
    return p
