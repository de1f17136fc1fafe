"""`mnemolis parse` and `mnemolis explain`: the plan of a request, for machines and for
people. Pure: nothing is started and nothing is sent."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.core.plan import Part, Plan
    from mnemolis.understand import Understander

EXIT_OK = 0


def _queries(args: argparse.Namespace) -> Iterator[str]:
    if args.queries:
        yield from args.queries
        return
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.strip():
            yield line


def _understander(args: argparse.Namespace) -> Understander:
    """Understanding over the home `eval` sees: the YAML devices and, when the config
    directory has one, its ``discovery.jsonl`` (the devices firmware announced)."""
    from mnemolis.config import load_config
    from mnemolis.evaluation.discovered import home_registry
    from mnemolis.understand import Understander

    config = load_config(args.config)
    registry, _loaded = home_registry(config, None)
    return Understander(config, registry)


def cmd_parse(args: argparse.Namespace) -> int:
    from mnemolis.understand import Context

    understander = _understander(args)
    context = Context() if args.conversation else None
    for query in _queries(args):
        plan = understander.understand(query, context)
        if context is not None:
            context.remember(plan)
        out = plan.to_dict()
        print(json.dumps(out, ensure_ascii=False), flush=True)
    return EXIT_OK


def _format_part(part: Part, indent: str) -> list[str]:
    lines = [
        f"{indent}{part.text!r} -> {part.intent or 'out of scope'}"
        + (f" [{part.source}]" if part.source else "")
        + f" confidence {part.confidence:.2f}"
    ]
    if part.slots:
        lines.append(f"{indent}  slots: " + json.dumps(part.slots, ensure_ascii=False))
    if part.provenance:
        lines.append(f"{indent}  provenance: " + json.dumps(part.provenance, ensure_ascii=False))
    return lines


def format_plan(plan: Plan) -> list[str]:
    from mnemolis.core.plan import Conditional

    lines = []
    for n, step in enumerate(plan.steps, 1):
        if isinstance(step, Conditional):
            neg = "not " if step.negate else ""
            lines.append(f"{n}. {step.trigger.upper()} {neg}(condition):")
            lines += _format_part(step.condition, "     ")
            lines.append("   THEN:")
            for p in step.then:
                lines += _format_part(p, "     ")
            if step.otherwise:
                lines.append("   ELSE:")
                for p in step.otherwise:
                    lines += _format_part(p, "     ")
        else:
            lines += [f"{n}. " + _format_part(step, "")[0], *_format_part(step, "   ")[1:]]
    if plan.clarify:
        lines.append(f"clarify: {plan.clarify}")
    for note in plan.notes:
        lines.append(f"note: {note}")
    return lines


def cmd_explain(args: argparse.Namespace) -> int:
    from mnemolis.understand import Context, Trace

    t0 = time.perf_counter()
    understander = _understander(args)
    startup = (time.perf_counter() - t0) * 1000
    context = Context()
    for query in _queries(args):
        trace = Trace()
        plan = understander.understand(query, context, trace)
        context.remember(plan)
        print(f"query: {query!r}")
        for stage in trace.stages:
            print(f"[{stage.name}] {stage.ms:.3f} ms")
            for line in stage.lines:
                print(f"  {line}")
        print("[plan]")
        for line in format_plan(plan):
            print(f"  {line}")
        print(f"total {trace.total_ms:.3f} ms (start-up {startup:.0f} ms)\n")
    return EXIT_OK


