"""What issue 21's poison costs now: template compilation and renders at their bounds, and the
memory of a discovery flood (in-process, no broker; `bench/chaos.py --section templates`
measures the same against a running daemon).

* compile: the slowest templates that are still accepted (at the token and node bounds),
  and the refused ones (V7's 54 KB template), each compiled afresh;
* render: one poison message each (V1's regex, a backtracking regex, V2's integers, a loop
  that runs into the step bound), on a fresh engine so nothing is disabled yet;
* flood: resident memory of the known devices and the registry (and, with understanding,
  its name index) before a flood of discovery configs, flooded, cleared, and after a
  second flood cleared.

    .venv/bin/python bench/poison.py [--flood 6000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.config import load_config
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.known import KnownDevices, give_memory_back
from mnemolis.sources.mqtt.templates import TemplateEngine, TemplateError
from mnemolis.understand import Understander, registry_from_config
from tests import support_attacks as attacks

ROOT = Path(__file__).resolve().parent.parent
NAMES_AT_BOUND = "{{ [" + ",".join(f"v{n}" for n in range(950)) + "] }}"  # ~955 nodes
CONSTANTS_AT_BOUND = "{{ [" + ",".join(str(n) for n in range(990)) + "] }}"  # ~1,985 tokens
DEEP = "{{ " + "+".join(f"v{n}" for n in range(480)) + " }}"  # 480 levels of nesting
LOOP = "{% for i in range(100000) %}{{ i if false }}{% endfor %}"


def best_ms(run: Callable[[], object], repeat: int = 5) -> tuple[float, float]:
    """(median, worst) milliseconds of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def attempt(run: Callable[[], object]) -> Callable[[], object]:
    def call() -> object:
        try:
            return run()
        except TemplateError as exc:
            return exc

    return call


def compile_rows() -> list[tuple[str, str, float, float]]:
    rows = []
    for label, source in (
        ("950 names (~955 nodes)", NAMES_AT_BOUND),
        ("990 constants (~1,985 tokens)", CONSTANTS_AT_BOUND),
        ("480 additions nested", DEEP),
        ("refused: 2,100 tokens", "{{a.b.c}}" * 300),
        ("refused: V7's 54 KB", attacks.V7_TEMPLATE),
    ):
        outcome = attempt(lambda s=source: TemplateEngine().compile(s))()
        verdict = str(outcome) if isinstance(outcome, TemplateError) else "compiled"
        median, worst = best_ms(attempt(lambda s=source: TemplateEngine().compile(s)))
        rows.append((f"compile, {label}", verdict, median, worst))
    return rows


def render_rows() -> list[tuple[str, str, float, float]]:
    rows = []
    for label, source, payload in (
        ("V1 regex, 30 a's and !", attacks.V1_TEMPLATE, "a" * 30 + "!"),
        ("backtracking regex, 60 a's and !", attacks.BACKTRACKING_TEMPLATE, "a" * 60 + "!"),
        ("V2, 3**30000 squared", attacks.V2_TEMPLATE, "1"),
        ("100,000-step loop", LOOP, ""),
    ):
        engine = TemplateEngine()
        engine.compile(source)
        outcome = attempt(lambda e=engine, s=source, p=payload: e.render_value(s, p))()
        verdict = str(outcome)[:60] if isinstance(outcome, TemplateError) else f"= {outcome}"
        median, worst = best_ms(attempt(lambda e=engine, s=source, p=payload: e.render_value(s, p)))
        rows.append((f"render, {label}", verdict, median, worst))
    return rows


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def flood_memory(count: int, understand: bool) -> list[float]:
    config = load_config(ROOT)
    registry = registry_from_config(config)
    understander = Understander(config, registry=registry) if understand else None
    known = KnownDevices(registry, list(config.devices), 5000)
    parser = HomeAssistantParser("homeassistant", 256, lambda: ())

    def apply(messages: list[tuple[str, bytes, bool]]) -> None:
        for topic, payload, _retain in messages:
            known.stage(parser.parse(topic, payload))
        known.flush()
        if understander is not None:
            understander.understand("turn on the kitchen light")

    apply([])
    give_memory_back()
    figures = [rss_mib()]
    flood = attacks.flood(count)
    apply(flood)
    figures.append(rss_mib())
    apply(attacks.cleared(flood))
    figures.append(rss_mib())
    apply(flood)
    apply(attacks.cleared(flood))
    figures.append(rss_mib())
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=6000)
    args = parser.parse_args()
    print("| what | outcome | median ms | worst ms |")
    print("|---|---|---|---|")
    for what, outcome, median, worst in [*compile_rows(), *render_rows()]:
        print(f"| {what} | {outcome} | {median:.1f} | {worst:.1f} |")
    print()
    print(f"| {args.flood:,} configs | before MiB | flooded | cleared | second flood cleared |")
    print("|---|---|---|---|---|")
    for understand in (False, True):
        label = "devices + understanding" if understand else "devices only"
        figures = flood_memory(args.flood, understand)
        print(f"| {label} | " + " | ".join(f"{f:.0f}" for f in figures) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
