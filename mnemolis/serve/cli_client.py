"""`mnemolis ask` and `chat` through a running daemon: the CLI's two commands' first try.

Each returns the command's exit status when a daemon serving this home took
the request, or None when there is none (or ``--local``, ``$MNEMOLIS_LOCAL``):
then the command runs in-process as before. A request the daemon took and
did not answer is reported (exit 1), never run a second time. Standard
library only, like `client`, which does the talking.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable

from mnemolis.core.config_dir import find_config_dir
from mnemolis.core.permissions import denied
from mnemolis.serve import client

EXIT_OK = 0
EXIT_FAILED = 1

Turns = Callable[[bool], AsyncIterator[str]]


def _wanted(args: argparse.Namespace) -> bool:
    return not (getattr(args, "local", False) or client.local_only(os.environ))


def _not_allowed(exc: client.NotAllowed) -> None:
    """Said once; the command then answers in-process (if it may read the configuration)."""
    print(f"mnemolis: {denied(exc.error, 'use the daemon at')}", file=sys.stderr)


def ask_through_daemon(args: argparse.Namespace, text: str) -> int | None:
    """`mnemolis ask`: the exit status, or None to answer in-process."""
    if not _wanted(args):
        return None
    config_dir = find_config_dir(args.config)
    room = getattr(args, "room", None)
    try:
        asked = client.ask(text, config_dir, os.environ, via="cli", room=room)
    except client.NoAnswer as exc:  # it may have acted: never ask a second time
        print(f"mnemolis: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except client.NotAllowed as exc:
        _not_allowed(exc)
        return None
    if asked is None:
        return None
    print(asked.printable(args.json), flush=True)
    return asked.exit_status


def chat_through_daemon(args: argparse.Namespace, turns: Turns) -> int | None:
    """`mnemolis chat` as a session of the daemon (``turns``: the CLI's line reader);
    None to chat in-process."""
    if not _wanted(args):
        return None
    config_dir = find_config_dir(args.config)
    try:
        found = client.hello(config_dir, os.environ)
    except client.NotAllowed as exc:
        _not_allowed(exc)
        return None
    if found is None:
        return None
    daemon, quit_words = found
    return asyncio.run(_converse(daemon, quit_words, args, turns))


async def _converse(
    daemon: client.Daemon, quit_words: list[str], args: argparse.Namespace, turns: Turns
) -> int:
    """The chat loop; the daemon's announcements for this session print as they come."""
    config_dir = find_config_dir(args.config)
    session = client.chat_session()
    stop = client.listen_for_announcements(
        daemon, session, lambda said: print(said.get("text"), flush=True)
    )
    room = getattr(args, "room", None)
    try:
        async for line in turns(sys.stdin.isatty()):
            text = line.strip()
            if not text:
                continue
            if " ".join(text.lower().split()) in quit_words:
                break
            try:
                asked = await asyncio.to_thread(
                    client.ask, text, config_dir, os.environ, session, "chat", room, [daemon]
                )
            except client.NoAnswer as exc:
                print(f"mnemolis: {exc}", file=sys.stderr)
                continue
            if asked is None:
                print(f"mnemolis: the daemon at {daemon.where} is gone", file=sys.stderr)
                return EXIT_FAILED
            print(asked.printable(args.json), flush=True)
    finally:
        stop.set()
    return EXIT_OK
