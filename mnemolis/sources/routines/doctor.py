"""`mnemolis doctor` for routines: what their steps use is there, and webhooks answer a
connection (no request is sent: a webhook acts when called)."""

from __future__ import annotations

import asyncio
import urllib.parse
from typing import Protocol

from mnemolis.config import Config
from mnemolis.config.routines import CallStep, DeviceStep, PublishStep, SayStep, walk
from mnemolis.sources.base import Finding, Level, Publishes, some_names
from mnemolis.sources.routines.run import Tools


class Checked(Protocol):
    """What the doctor reads of the routines source (it never imports the source back)."""

    @property
    def config(self) -> Config: ...
    @property
    def tools(self) -> Tools: ...


CONNECT_S = 1.0


async def _reachable(url: str) -> str | None:
    """None when a TCP connection to the webhook's host and port opens, else why not."""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(parts.hostname, port), CONNECT_S
        )
    except (OSError, TimeoutError) as exc:
        return getattr(exc, "strerror", None) or type(exc).__name__
    writer.close()
    return None


async def diagnose(source: Checked) -> list[Finding]:
    intents = source.config.intents.values()
    routines = [i for i in intents if i.is_routine and i.steps is not None]
    replies = [i for i in routines if all(isinstance(s, SayStep) for s in i.steps or [])]
    steps = [s for r in routines for s in walk(r.steps or [])]
    said = f"{len(routines) - len(replies)} routines, {len(replies)} replies"
    findings = []
    missing = sorted(
        {
            i.source or ""
            for s in steps
            if isinstance(s, DeviceStep)
            for i in [source.config.intents[s.intent]]
            if (i.source or "") not in source.tools.peers
        }
    )
    publishes = any(isinstance(p, Publishes) for p in source.tools.peers.values())
    if any(isinstance(s, PublishStep) for s in steps) and not publishes:
        missing.append("mqtt")
    urls = sorted({s.url for s in steps if isinstance(s, CallStep)})
    problems = await asyncio.gather(*(_reachable(u) for u in urls))
    down = [f"{u} ({p})" for u, p in zip(urls, problems, strict=True) if p is not None]
    if missing:
        findings.append(
            Finding(
                "routines",
                Level.BROKEN,
                f"{said}; their steps need the {some_names(sorted(set(missing)))} source, "
                "which is not running",
                "check sources/ and `mnemolis doctor`'s other lines",
            )
        )
    elif down:
        findings.append(
            Finding(
                "routines",
                Level.WARNING,
                f"{said}; webhook(s) not reachable: {some_names(down)}",
                "start the service behind the webhook, or fix url: in its call: step",
            )
        )
    else:
        hooks = f"; {len(urls)} webhook(s) reachable" if urls else ""
        findings.append(Finding("routines", Level.OK, said + hooks))
    return findings
