"""Issue 17's probes, repeated against a running `mnemolis serve`.

Starts everything itself on free loopback ports (a Mosquitto, the simulated
default home, the replayed Open-Meteo server, a test ZIM) and the daemon as a
real subprocess under ``ulimit -n 1024`` (soft and hard, as the issue found
it), then throws at it what went wrong before: lone surrogates and
non-finite numbers on every front-end, truncated Wyoming events, requests
begun and never finished, 1,100 idle Wyoming and 1,100 idle HTTP sockets, a
broker killed and restarted while requests stream in, plain-text "yes" from
a stranger. Issue 21's web and session attacks are a section of their own,
on a daemon of their own (`bench/chaos_web.py`). Each request is counted as
*answered* (its answer came back),
*clear error* (a JSON refusal or an ``error`` event with a code and a
sentence) or *lost* (nothing, a closed connection, or bytes that are not
strict JSON); after each probe the daemon must still answer "what time is
it" over HTTP. Prints one Markdown table (for bench/RESULTS.md) and the log
lines the daemon wrote during the socket flood. The probes are in `bench/chaos_probes.py`,
the templates section in `bench/chaos_templates.py`, how a reply is counted in
`bench/chaos_judge.py`.

    .venv/bin/python bench/chaos.py [--repeat 100] [--section all|daemon|web]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.chaos_judge import Row, still_answering
from bench.chaos_probes import (
    broker_restart,
    confirmation_attacks,
    idle_flood,
    non_finite,
    strangers_yes,
    surrogates,
    truncated,
    unfinished_http,
)
from bench.chaos_templates import templates_and_topics
from tests.support_kiwix import build_test_zims
from tests.support_serve import (
    ServeHome,
    ServeProcess,
    config_variant,
    open_files,
    running_daemon,
    running_home,
)

LIMITS = "limits: {read_timeout_s: 2}\n"


def run(daemon: ServeProcess, home: ServeHome, repeat: int, sockets: int) -> tuple[list[Row], str]:
    rows: list[Row] = []

    def probe(made: Callable[[], Row | list[Row]]) -> None:
        found = made()
        batch = found if isinstance(found, list) else [found]
        answering = still_answering(daemon)
        for row in batch:
            row.still_answering = answering
        rows.extend(batch)

    probe(lambda: surrogates(daemon, home, repeat))
    probe(lambda: non_finite(daemon, repeat))
    probe(lambda: truncated(daemon, repeat))
    probe(lambda: unfinished_http(daemon, max(10, repeat // 5)))
    flood_note = ""

    def flood() -> list[Row]:
        nonlocal flood_note
        found, flood_note = idle_flood(daemon, sockets)
        return found

    probe(flood)
    probe(lambda: strangers_yes(home, max(5, repeat // 10)))
    probe(lambda: confirmation_attacks(daemon, home, max(3, repeat // 20)))
    probe(lambda: broker_restart(home))
    return rows, flood_note


# --------------------------------------------------------------------------- issue 21: the web


def web_section(home: ServeHome, repeat: int) -> list[Row]:
    """Issue 21's web and session attacks, on a daemon of their own (`bench/chaos_web.py`)."""
    from bench.chaos_web import web_and_sessions

    return web_and_sessions(home, repeat)


def report(rows: list[Row], flood_note: str) -> None:
    print("| probe | tried | answered | clear error | lost | still answering after | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        after = "yes" if r.still_answering else "**no**"
        counts = f"{r.tried:,} | {r.answered:,} | {r.clear:,} | {r.lost:,}"
        print(f"| {r.probe} | {counts} | {after} | {r.note} |")
    total = sum(r.tried for r in rows)
    lost = sum(r.lost for r in rows)
    floods = f"; during the socket floods: {flood_note}" if flood_note else ""
    print(f"\n{total:,} requests, {lost:,} lost{floods}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=100, help="requests per probe")
    parser.add_argument("--sockets", type=int, default=1100, help="idle sockets per front-end")
    parser.add_argument(
        "--section",
        choices=("all", "daemon", "web", "templates"),
        default="all",
        help="templates: only issue 21's template and discovery-topic attacks",
    )
    parser.add_argument("--flood", type=int, default=6000, help="discovery configs (V10)")
    args = parser.parse_args()
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this side holds the floods
    with tempfile.TemporaryDirectory(prefix="mnemolis-chaos-") as scratch:
        folder = Path(scratch)
        zims = build_test_zims(folder)
        with running_home(folder, zims.main) as home:
            rows: list[Row] = []
            note = ""
            if args.section in ("all", "daemon"):  # issue 17's probes, the confirmations
                config = config_variant(home, "chaos", LIMITS)
                with running_daemon(home, config_dir=config, preexec=open_files(1024)) as daemon:
                    rows, note = run(daemon, home, args.repeat, args.sockets)
            if args.section in ("all", "web"):
                rows += web_section(home, args.repeat)
            if args.section in ("all", "templates"):
                rows += templates_and_topics(home, args.repeat, args.flood)
    report(rows, note)
    return 1 if any(r.lost or not r.still_answering for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
