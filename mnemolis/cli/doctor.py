"""`mnemolis doctor`: is every configured source working, and if not, what to fix.

Each source checks itself against the real thing (`base.Diagnosable`): the
broker (reachable, devices heard from), the encyclopedia books (opened, in
the spoken language), the weather service (a forecast fetched, or only a
saved one), the clock's time zone. Then the intents (every example, the
same run as `mnemolis check`) and the assistant's own sentences.
"""

from __future__ import annotations

from mnemolis.cli.examples import run_examples
from mnemolis.runtime.assistant import Assistant
from mnemolis.runtime.settings import declined_without_sentence
from mnemolis.sources.base import Diagnosable, Finding, Level, some_names

__all__ = ["Finding", "Level", "diagnose", "format_findings"]


def check_intents(assistant: Assistant) -> Finding:
    config = assistant.config
    run = run_examples(config, assistant.understander)
    failures = run.failures
    summary = f"{len(config.intents)} intents, {run.summary()}"
    if failures:
        shown = "; ".join(f.splitlines()[0] for f in failures[:3])
        fix = "reword those phrases or examples; `mnemolis check` lists every failure"
        return Finding("intents", Level.BROKEN, f"{summary}: {shown}", fix)
    return Finding("intents", Level.OK, summary)


def check_replies(assistant: Assistant) -> Finding:
    missing = declined_without_sentence(assistant.config, assistant.settings.replies)
    if missing:
        return Finding(
            "assistant",
            Level.WARNING,
            f"declined intents without their own sentence: {some_names(missing)}",
            "add them under replies.declined in sources/assistant.yaml",
        )
    per_source = sorted(assistant.settings.source_timeouts.items())
    timeouts = ", ".join(f"{name} {seconds:g} s" for name, seconds in per_source)
    return Finding(
        "assistant",
        Level.OK,
        f"answers within {assistant.settings.deadline_s:g} s; per source: {timeouts}",
    )


async def diagnose(assistant: Assistant) -> list[Finding]:
    """Every source's own checks, in the registry's order, then the intents and replies."""
    findings: list[Finding] = []
    for source in assistant.sources.values():
        if isinstance(source, Diagnosable):
            try:
                findings.extend(await source.diagnose())
            except Exception as exc:  # a check that breaks is itself a finding
                findings.append(Finding(source.name, Level.BROKEN, f"the check failed: {exc}"))
    findings.append(check_intents(assistant))
    findings.append(check_replies(assistant))
    return findings


def format_findings(findings: list[Finding]) -> list[str]:
    lines = []
    for finding in findings:
        lines.append(f"{finding.level.upper():<8} {finding.check:<10} {finding.text}")
        if finding.fix and finding.level is not Level.OK:
            lines.append(f"{'':<8} {'':<10} fix: {finding.fix}")
    return lines
