"""Kiwix lookup latency (p50/p99), start-up, is_name cost and peak memory.

Four scenarios, each measured in a fresh Python process so its peak RSS is
its own: the demo ZIM and a generated ZIM of 50,000 articles, each read
locally with libzim and through a real kiwix-serve on a loopback port. The
generated ZIM is built once into ``$MNEMOLIS_CACHE/bench`` (or
``~/.cache/mnemolis/bench``); that takes a minute or so on two cores.

    .venv/bin/python bench/kiwix.py [--articles 50000] [--queries 300]

Topics are a fixed mix: 60 % exact titles, 20 % one word of a title, 20 %
words no title has (full-text search runs, then "I found nothing").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.config import load_config  # noqa: E402
from mnemolis.core.plan import Part  # noqa: E402
from mnemolis.demo.zim import (  # noqa: E402
    ZimArticle,
    ZimBook,
    cache_dir,
    ensure_demo_zim,
    load_book,
    write_zim,
)
from mnemolis.sources.base import Request  # noqa: E402
from mnemolis.sources.kiwix.source import KiwixSource  # noqa: E402
from tests.support_kiwix import kiwix_serve_process  # noqa: E402

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ra",
    "tu",
    "ve",
    "sin",
    "dor",
    "el",
    "an",
    "th",
    "or",
    "qu",
    "is",
    "be",
    "na",
    "ro",
    "li",
    "mu",
    "pe",
    "zo",
    "ar",
    "en",
    "ul",
]
QUALIFIERS = ["river", "village", "album", "novel", "film", "plant", "ship"]
GENERATOR = "1"  # bump when the generated book changes


# --------------------------------------------------------------------------- the 50k book


def _word(rnd: random.Random) -> str:
    return "".join(rnd.choice(SYLLABLES) for _ in range(rnd.randint(2, 3)))


def generated_titles(count: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    titles: list[str] = []
    seen: set[str] = set()
    while len(titles) < count:
        words = [_word(rnd).capitalize() for _ in range(rnd.randint(1, 3))]
        if len(titles) % 40 == 0 and len(words) > 1:
            words.insert(1, "and")
        title = " ".join(words)
        if rnd.random() < 0.1:
            title += f" ({rnd.choice(QUALIFIERS)})"
        if title not in seen:
            seen.add(title)
            titles.append(title)
    return titles


def generated_book(count: int) -> ZimBook:
    rnd = random.Random(11)
    articles = []
    for title in generated_titles(count):
        sentences = []
        for _ in range(rnd.randint(6, 12)):
            words = [_word(rnd) for _ in range(rnd.randint(6, 16))]
            sentences.append(" ".join(words).capitalize() + ".")
        text = f"{title} is a {rnd.choice(QUALIFIERS)}. " + " ".join(sentences)
        redirects = [f"{title} redirect"] if rnd.random() < 0.05 else []
        articles.append(ZimArticle(title, text=text, redirects=redirects))
    return ZimBook("kiwix_bench", f"Generated book of {count} articles", "eng", articles=articles)


def ensure_generated(count: int) -> Path:
    folder = cache_dir() / "bench"
    path = folder / f"kiwix_bench_{count}.zim"
    stamp = path.with_name(path.name + ".source")
    if path.is_file() and stamp.is_file() and stamp.read_text().strip() == GENERATOR:
        return path
    t0 = time.perf_counter()
    print(f"building {path} ({count} articles) ...", file=sys.stderr, flush=True)
    write_zim(generated_book(count), path)
    stamp.write_text(GENERATOR + "\n")
    print(f"built in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return path


# --------------------------------------------------------------------------- topics


def topics_for(titles: list[str], count: int, seed: int = 3) -> list[str]:
    rnd = random.Random(seed)
    topics = []
    for i in range(count):
        title = rnd.choice(titles)
        kind = i % 5
        if kind < 3:
            topics.append(title.lower())
        elif kind == 3:
            topics.append(rnd.choice(title.split()).lower().strip("()"))
        else:
            topics.append(f"zq{_word(rnd)}xv")
    return topics


def name_probes(titles: list[str]) -> list[str]:
    joined = [t.lower() for t in titles if " and " in t.lower()][:50]
    return joined + [f"{t.lower()} and lock the door" for t in titles[:50]]


# --------------------------------------------------------------------------- one scenario


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


async def measure(source: KiwixSource, topics: list[str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    await source.start()
    start_ms = (time.perf_counter() - t0) * 1000
    times = []
    statuses: dict[str, int] = {}
    for topic in topics:
        part = Part(f"tell me about {topic}", "knowledge.lookup", "kiwix", {"topic": topic})
        t = time.perf_counter()
        answer = await source.answer(part, Request(timeout_s=10))
        times.append((time.perf_counter() - t) * 1000)
        key = "found" if answer.data.get("found") else str(answer.status)
        statuses[key] = statuses.get(key, 0) + 1
    await source.close()
    return {"start_ms": start_ms, "first_ms": times[0], "times": times[1:], "statuses": statuses}


def run_scenario(zim: Path, mode: str, queries: int, titles: list[str]) -> dict[str, Any]:
    config = load_config(ROOT)
    topics = topics_for(titles, queries)
    kiwix_rss = None
    if mode == "local":
        source = KiwixSource(config, environ={"MNEMOLIS_KIWIX": str(zim)})
        result = asyncio.run(measure(source, topics))
    else:
        with kiwix_serve_process(zim) as (url, process):
            source = KiwixSource(config, environ={"MNEMOLIS_KIWIX": url})
            result = asyncio.run(measure(source, topics))
            kiwix_rss = _peak_rss_mb(process.pid)
    probes = name_probes(titles)
    t = time.perf_counter_ns()
    rounds = 200
    for _ in range(rounds):
        for text in probes:
            source.is_name(text)
    is_name_us = (time.perf_counter_ns() - t) / 1000 / (rounds * len(probes))
    rss_mb = _peak_rss_mb(os.getpid())  # not ru_maxrss: it keeps the parent's peak across exec
    times = result.pop("times")
    return {
        **result,
        "p50_ms": statistics.median(times),
        "p99_ms": percentile(times, 99),
        "lookups": len(times),
        "is_name_us": is_name_us,
        "rss_mb": rss_mb,
        "kiwix_serve_rss_mb": kiwix_rss,
    }


def _peak_rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


# --------------------------------------------------------------------------- the table


@dataclass
class Row:
    mode: str
    zim: str
    articles: int
    result: dict[str, Any]


def child(args: argparse.Namespace) -> None:
    if args.zim == "demo":
        zim = ensure_demo_zim().path
        book = load_book()
        titles = [a.title for a in book.articles] + [r for a in book.articles for r in a.redirects]
    else:
        zim = ensure_generated(args.articles)
        titles = generated_titles(args.articles)
    print(json.dumps(run_scenario(zim, args.mode, args.queries, titles)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--child", nargs=2, metavar=("ZIM", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.zim, args.mode = args.child
        child(args)
        return 0
    ensure_demo_zim()
    ensure_generated(args.articles)  # built once, outside the timed children
    rows = []
    for zim, articles in (("demo", len(load_book().articles)), ("generated", args.articles)):
        for mode in ("local", "http"):
            cmd = [sys.executable, __file__, "--child", zim, mode]
            cmd += ["--articles", str(args.articles), "--queries", str(args.queries)]
            with tempfile.TemporaryFile() as err:
                done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
                if done.returncode != 0:
                    err.seek(0)
                    print(err.read().decode(errors="replace"), file=sys.stderr)
                    return 1
            rows.append(Row(mode, zim, articles, json.loads(done.stdout.strip().splitlines()[-1])))
    print_table(rows, args.queries)
    return 0


def print_table(rows: list[Row], queries: int) -> None:
    head = (
        f"{'back-end':<11} {'ZIM':<10} {'articles':>8} {'start ms':>9} {'1st ms':>7} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'is_name µs':>10} {'RSS MB':>7} {'server MB':>9}"
    )
    print(f"Kiwix lookups: {queries} topics per row (60% titles, 20% title words, 20% misses)")
    print(head)
    print("-" * len(head))
    for row in rows:
        r = row.result
        server = f"{r['kiwix_serve_rss_mb']:.0f}" if r["kiwix_serve_rss_mb"] else "-"
        backend = "libzim" if row.mode == "local" else "kiwix-serve"
        print(
            f"{backend:<11} {row.zim:<10} {row.articles:>8} {r['start_ms']:>9.0f} "
            f"{r['first_ms']:>7.1f} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} "
            f"{r['is_name_us']:>10.2f} {r['rss_mb']:>7.0f} {server:>9}"
        )
    for row in rows:
        print(f"  {row.mode:<5} {row.zim:<10} outcomes: {row.result['statuses']}")


if __name__ == "__main__":
    raise SystemExit(main())
