"""`mnemolis doctor`: is every configured source working, and if not, what to fix.

Each check talks to the real thing through the started assistant: the
broker (reachable, devices heard from), the encyclopedia books (opened,
in the spoken language), the weather service (a forecast fetched, or only
a saved one), the clock's time zone, the intents (every example, the same
run as `mnemolis check`) and the assistant's own sentences.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mnemolis.assistant import Assistant
from mnemolis.assistant_settings import declined_without_sentence
from mnemolis.examples import run_examples
from mnemolis.plan import Part
from mnemolis.sources.base import Request, Status
from mnemolis.sources.clock import ClockSource
from mnemolis.sources.kiwix import KiwixSource
from mnemolis.sources.mqtt import MqttSource
from mnemolis.sources.weather import WeatherSource

#: At most this many names in one finding.
NAMES_SHOWN = 8


class Level(enum.StrEnum):
    OK = "ok"
    WARNING = "warning"
    BROKEN = "broken"


@dataclass
class Finding:
    """What one check found, and what to do about it."""

    check: str
    level: Level
    text: str
    fix: str | None = None


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


async def check_mqtt(assistant: Assistant, mqtt: MqttSource) -> Finding:
    report = assistant.discovery or await mqtt.wait_for_devices()
    address = mqtt.settings.broker.address
    if not report.connected:
        reason = mqtt.link.last_error or "no answer"
        return Finding(
            "mqtt",
            Level.BROKEN,
            f"cannot reach the MQTT broker at {address} ({reason})",
            "start Mosquitto there, or set broker: in sources/mqtt.yaml "
            "(or MNEMOLIS_MQTT_URL=mqtt://host:port)",
        )
    devices = sorted(assistant.registry.devices(), key=lambda d: d.name)
    states = {d.name: mqtt.state_of(d.id) for d in devices}
    silent = [name for name, state in states.items() if state is None or not state.values]
    offline = [name for name, s in states.items() if s is not None and s.available is False]
    told = f"{len(devices)} devices ({report.discovered} announced by discovery)"
    if devices and len(silent) == len(devices):
        return Finding(
            "mqtt",
            Level.WARNING,
            f"broker at {address} reachable, but none of {told} has reported its state",
            "check the state topics in sources/mqtt.yaml, and that devices publish retained state",
        )
    if silent or offline:
        problems = []
        if silent:
            problems.append(f"not heard from: {_names(silent)}")
        if offline:
            problems.append(f"offline: {_names(offline)}")
        return Finding(
            "mqtt",
            Level.WARNING,
            f"broker at {address} reachable; {told}; " + "; ".join(problems),
            "check those devices (powered, paired) and their topics in sources/mqtt.yaml",
        )
    return Finding(
        "mqtt", Level.OK, f"broker at {address} reachable; {told}, all reported their state"
    )


def check_kiwix(kiwix: KiwixSource) -> Finding:
    usable = [s.name or s.where for s in kiwix.states if s.usable]
    problems = kiwix.problems
    fix = "check books: and url: in sources/kiwix.yaml (or MNEMOLIS_KIWIX)"
    if not usable:
        said = " ".join(problems) or "no encyclopedia is configured"
        return Finding("kiwix", Level.BROKEN, f"no encyclopedia can be read: {said}", fix)
    readable = f"{len(usable)} book(s) readable: {_names(usable)}"
    if problems:
        return Finding("kiwix", Level.WARNING, f"{readable}; but {' '.join(problems)}", fix)
    return Finding("kiwix", Level.OK, readable)


async def check_weather(weather: WeatherSource) -> Finding:
    settings = weather.settings
    fix = "check the network, or base_url: in sources/weather.yaml (or MNEMOLIS_WEATHER_URL)"
    if settings is None:
        text = weather.problem or "the weather source is not set up"
        return Finding("weather", Level.BROKEN, text, "fix sources/weather.yaml")
    part = Part("weather today", "weather.forecast", "weather", {"day": "today"})
    answer = await weather.answer(part, Request(timeout_s=settings.timeout_s))
    origin = answer.provenance.get("from")
    if origin == "open-meteo":
        reached = f"{settings.base_url} answered for {answer.data.get('place')}"
        if answer.status is Status.OK:
            return Finding("weather", Level.OK, reached)
        return Finding("weather", Level.WARNING, f"{reached}, but: {answer.text}", fix)
    if answer.status is Status.OK:
        problem = answer.data.get("problem") or "unreachable"
        text = f"{settings.base_url} failed ({problem}); answering from the {origin}"
        return Finding("weather", Level.WARNING, text, fix)
    return Finding("weather", Level.BROKEN, answer.text, fix)


def check_clock(clock: ClockSource) -> Finding:
    if clock.settings is None:
        return Finding(
            "clock", Level.BROKEN, clock.problem or "misconfigured", "fix sources/clock.yaml"
        )
    return Finding("clock", Level.OK, f"time zone {clock.settings.timezone}")


def check_intents(assistant: Assistant) -> Finding:
    config = assistant.config
    failures = run_examples(config, assistant.understander)
    count = sum(len(i.examples) for i in config.intents.values())
    summary = f"{len(config.intents)} intents, {count - len(failures)}/{count} examples pass"
    if failures:
        shown = "; ".join(failures[:3])
        fix = "reword those phrases or examples; `mnemolis check` lists every failure"
        return Finding("intents", Level.BROKEN, f"{summary}: {shown}", fix)
    return Finding("intents", Level.OK, summary)


def check_replies(assistant: Assistant) -> Finding:
    missing = declined_without_sentence(assistant.config, assistant.settings.replies)
    if missing:
        return Finding(
            "assistant",
            Level.WARNING,
            f"declined intents without their own sentence: {_names(missing)}",
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
    """Every check, in the order the sources are listed in the architecture."""
    findings = []
    mqtt = assistant.source_of(MqttSource)
    if mqtt is not None:
        findings.append(await check_mqtt(assistant, mqtt))
    kiwix = assistant.source_of(KiwixSource)
    if kiwix is not None:
        findings.append(check_kiwix(kiwix))
    weather = assistant.source_of(WeatherSource)
    if weather is not None:
        findings.append(await check_weather(weather))
    clock = assistant.source_of(ClockSource)
    if clock is not None:
        findings.append(check_clock(clock))
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
