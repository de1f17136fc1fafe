"""A daemon in the test's own event loop, for tests that reach inside it: to announce
into its announcer, or to see the `Origin` a front-end handed it. Its front-ends are
the daemon's own (`serve.command.front_ends`), each on a free port, its sources
pointed at the test house of `support_serve`."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from mnemolis.config import load_config
from tests.support_serve import START_TIMEOUT_S, Addresses, ServeHome, config_variant

if TYPE_CHECKING:
    from mnemolis.core.origin import Origin
    from mnemolis.runtime.answer import Answer
    from mnemolis.serve.announcements import Router
    from mnemolis.serve.command import FrontEnd
    from mnemolis.serve.daemon import Daemon


@dataclass
class InProcess(Addresses):
    """A daemon in the test's own event loop: its front-ends, and where they listen."""

    daemon: Daemon
    front_ends: dict[str, FrontEnd]
    where: dict[str, str]
    asked: list[tuple[str, Origin]]  # (text, origin) of every request, as the daemon got it
    router: Router


@asynccontextmanager
async def in_process_daemon(
    home: ServeHome,
    serve_yaml: str,
    monkeypatch: pytest.MonkeyPatch,
    sources: dict[str, str] | None = None,
) -> AsyncIterator[InProcess]:
    """The daemon's own pieces (`serve.command.front_ends`) in this event loop, every
    front-end on a free port, the sources pointed at the house: for tests that reach
    inside, to announce or to see what a front-end handed the daemon. ``sources``: more
    files of sources/ ({"voice.yaml": "..."})."""
    from mnemolis.core.origin import Origin
    from mnemolis.serve.command import _stop, front_ends
    from mnemolis.serve.daemon import Daemon, starter_with
    from mnemolis.serve.settings import Flags, load_serve_settings, with_flags

    folder = home.folder / f"inproc-{uuid.uuid4().hex[:6]}"
    config_dir = config_variant(home, folder.name, serve_yaml)
    for name, text in (sources or {}).items():
        (config_dir / "sources" / name).write_text(text, encoding="utf-8")
    for key, value in home.environ(folder / "cache").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("MNEMOLIS_SOCKET", str(folder / "d.sock"))
    config = load_config(config_dir)
    flags = Flags("127.0.0.1:0", "tcp://127.0.0.1:0", True, True)
    settings = with_flags(load_serve_settings(config), flags)
    where: dict[str, str] = {}
    daemon = Daemon(config_dir, settings, starter_with({}))
    await daemon.start(config)
    asked: list[tuple[str, Origin]] = []
    ask = daemon.ask

    async def spy(
        *args: Any, **kwargs: Any
    ) -> Answer:  # the front-ends pass (front_end, text, session, origin...)
        asked.append((args[1], args[3] if len(args) > 3 else Origin(args[0], args[2])))
        return await ask(*args, **kwargs)

    daemon.ask = spy  # type: ignore[method-assign]
    import mnemolis.serve.command as command

    monkeypatch.setattr(command, "announce", lambda name, at: where.__setitem__(name, at))
    chosen, link, router = front_ends(daemon, settings)
    started: list[FrontEnd] = []
    try:
        for front_end in chosen:
            started.append(front_end)
            await front_end.start()
        router.start()
        if link is not None:
            await link.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while len(where) < len(chosen) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert len(where) == len(chosen), f"not every front-end is ready: {where}"
        yield InProcess(daemon, {f.name: f for f in chosen}, where, asked, router)
    finally:
        router.stop()
        await _stop(daemon, started, link, 1.0)
