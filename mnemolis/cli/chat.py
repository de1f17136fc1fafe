"""The chat loop of `mnemolis chat` and `mnemolis demo`: one turn a line of input.

Lines are read in a daemon thread so Ctrl-C never waits for Enter; what the
assistant says unasked (a timer rings) prints between the turns. Loaded only
by the commands that chat, so `mnemolis --help` stays fast.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.core.announce import Announcement
    from mnemolis.runtime.answer import Answer
    from mnemolis.runtime.assistant import Assistant

#: The chat's prompt.
PROMPT = "> "


def print_answer(answer: Answer, as_json: bool) -> None:
    print(json.dumps(answer.to_dict(), ensure_ascii=False) if as_json else answer.text, flush=True)


async def turns(interactive: bool) -> AsyncIterator[str]:
    """Lines of standard input, read in a daemon thread so Ctrl-C never waits for Enter.
    The next prompt waits until the caller asks for the next line (its answer is out)."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    wanted = threading.Event()
    wanted.set()

    def read() -> None:
        while True:
            wanted.wait()
            wanted.clear()
            try:
                line: str | None = input(PROMPT) if interactive else sys.stdin.readline() or None
            except EOFError:
                line = None
            loop.call_soon_threadsafe(lines.put_nowait, line)
            if line is None:
                return

    threading.Thread(target=read, name="chat-input", daemon=True).start()
    while (line := await lines.get()) is not None:
        yield line
        wanted.set()


def announcements(interactive: bool, as_json: bool) -> Callable[[Announcement], None]:
    """Prints what the assistant says unasked (a timer rings) between the turns: on a
    terminal, above the line being typed, which is then shown again as it was."""

    def show(announcement: Announcement) -> None:
        said = json.dumps(announcement.to_dict(), ensure_ascii=False) if as_json else None
        said = said or announcement.text
        if interactive:
            import readline

            typed = readline.get_line_buffer()
            sys.stdout.write(f"\r\x1b[2K{said}\n{PROMPT}{typed}")
        else:
            sys.stdout.write(said + "\n")
        sys.stdout.flush()

    return show


async def converse(
    assistant: Assistant, as_json: bool, front_end: str = "chat", room: str | None = None
) -> int:
    """The chat loop: one turn a line of standard input, until its end or a quit word."""
    from mnemolis.core.origin import Origin

    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    origin = Origin(front_end=front_end, session="chat", room=room)
    stop_listening = assistant.announcer.subscribe(announcements(interactive, as_json))
    try:
        async for line in turns(interactive):
            text = line.strip()
            if not text:
                continue
            if " ".join(text.lower().split()) in assistant.settings.quit_words:
                break
            print_answer(await assistant.ask(text, session="chat", origin=origin), as_json)
    finally:
        stop_listening()
    return 0
