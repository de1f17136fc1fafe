"""The `mnemolis` command: parse, explain and check (more front-ends live in serve/)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from mnemolis.config import Config, ConfigError, load_config
from mnemolis.evaluate import add_eval_parser
from mnemolis.plan import Conditional, Part, Plan
from mnemolis.understand import Context, Trace, Understander

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


def _queries(args: argparse.Namespace) -> Iterator[str]:
    if args.queries:
        yield from args.queries
        return
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.strip():
            yield line


def _load(args: argparse.Namespace) -> Config:
    return load_config(args.config)


def cmd_parse(args: argparse.Namespace) -> int:
    understander = Understander(_load(args))
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
    t0 = time.perf_counter()
    understander = Understander(_load(args))
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


def _slot_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.lower() == actual.lower()
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    return bool(expected == actual)


def run_examples(config: Config, understander: Understander) -> list[str]:
    """Every intent example as a test: the intent, and the slots it names."""
    failures = []
    for intent in config.intents.values():
        for ex in intent.examples:
            plan = understander.understand(ex.text)
            parts = [s for s in plan.steps if isinstance(s, Part)]
            where = f"{intent.path}:{ex.line}" if ex.line else intent.path
            if len(plan.steps) != 1 or not parts:
                shape = f"{len(plan.steps)} steps" if len(plan.steps) != 1 else "a conditional"
                failures.append(f"{where}: {ex.text!r} gave {shape}, expected one part")
                continue
            part = parts[0]
            expected_intent = ex.intent if ex.intent is not None else None
            if part.intent != expected_intent:
                failures.append(
                    f"{where}: {ex.text!r} -> {part.intent}, expected {expected_intent}"
                )
                continue
            for slot, value in ex.slots.items():
                if not _slot_equal(value, part.slots.get(slot)):
                    failures.append(
                        f"{where}: {ex.text!r} slot {slot} = {part.slots.get(slot)!r}, "
                        f"expected {value!r}"
                    )
    return failures


def cmd_check(args: argparse.Namespace) -> int:
    config = _load(args)
    understander = Understander(config)
    failures = run_examples(config, understander)
    count = sum(len(i.examples) for i in config.intents.values())
    phrases = understander.intent_map.phrase_count
    for line in failures:
        print(line)
    print(
        f"{len(config.intents)} intents, {phrases} phrases, {len(config.devices)} devices; "
        f"{count - len(failures)}/{count} examples pass"
    )
    return EXIT_FAILED if failures else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnemolis", description="A local-first conversational router for the home."
    )
    parser.add_argument("--config", help="directory holding intents/ and sources/")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("parse", help="print the plan of each query as one JSON line")
    p.add_argument("queries", nargs="*", help="queries (default: one per line on stdin)")
    p.add_argument(
        "--conversation", action="store_true", help="stdin lines are turns of one conversation"
    )
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("explain", help="show each understanding stage and its time")
    p.add_argument("queries", nargs="*")
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("check", help="validate intents/ and sources/ and run every intent example")
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_check)

    add_eval_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        return result
    except ConfigError as exc:
        print(f"mnemolis: configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
