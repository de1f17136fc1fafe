"""`mnemolis check`: what would fail later, said now, every error at once.

Reading the configuration already finds every error of form (`config`, with
`Problems`). This adds what needs more than one file: the settings of
`sources/assistant.yaml`, `serve.yaml`, `routines.yaml` and `external.yaml`;
routines against the home (devices, areas and floors that do not exist,
actions a device cannot do, waits longer than a routine may take); every
intent example run as a test; examples that two intents match equally (the
winner would be chance: the file order); and where every intent and phrase
came from, the shipped files or the owner's.

A device a routine names that is not in `sources/mqtt.yaml` may still be
announced by discovery at run time: with discovery on, it is an error only
when it is close to a known name (a typo), else a warning.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from mnemolis.config import Config, ConfigError, IntentSpec, load_config
from mnemolis.config.intents import closest
from mnemolis.config.problems import Problems
from mnemolis.config.routines import DeviceStep, IfStep, Step, TogetherStep, WaitStep, walk
from mnemolis.config.templates import is_template
from mnemolis.config.yaml_at import At
from mnemolis.core.devices import TYPE_ACTIONS

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


@dataclass
class CheckReport:
    errors: list[str] = field(default_factory=list)  # "path:line: reason"
    warnings: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # examples that fail
    summary: list[str] = field(default_factory=list)

    @property
    def status(self) -> int:
        if self.errors:
            return EXIT_CONFIG
        return EXIT_FAILED if self.failures else EXIT_OK


def check(root: str | None, where: Sequence[str] | None = None) -> tuple[CheckReport, list[str]]:
    """Everything `mnemolis check` finds, and (``where``) the provenance lines asked for."""
    report = CheckReport()
    problems = Problems()
    try:
        config = load_config(root, problems=problems)
    except ConfigError as exc:  # no configuration to go on with (no directory, no intents)
        report.errors = [str(e) for e in exc.errors]
        return report, []
    _settings(config, problems)
    home = HomeCheck(config)
    home.run()
    for error in home.problems.errors:
        problems.add(error)
    report.warnings = home.warnings
    from mnemolis.cli.examples import ambiguous_examples, run_examples
    from mnemolis.evaluation.discovered import home_registry
    from mnemolis.understand import Understander

    try:  # the home `eval`, `parse` and the daemon see: with its discovery.jsonl
        understander = Understander(config, home_registry(config, None)[0])
    except ConfigError as exc:
        problems.add(exc)
    else:
        run = run_examples(config, understander)
        report.failures = run.failures
        for line in ambiguous_examples(config, understander):
            report.errors.append(line)
        report.summary.append(
            f"{len(config.intents)} intents, {understander.intent_map.phrase_count} phrases, "
            f"{len(understander.registry.devices())} devices; {run.summary()}"
        )
    ordered = sorted(problems.errors, key=lambda e: (e.path, e.line or 0))
    report.errors = [str(e) for e in ordered] + report.errors
    report.summary = layer_lines(config) + report.summary
    return report, provenance_lines(config, where) if where is not None else []


def _settings(config: Config, problems: Problems) -> None:
    """The files read by the assistant, the daemon and every source (the registry's
    checkers), checked as they will be read."""
    from mnemolis.runtime.settings import AssistantSettings
    from mnemolis.serve.settings import load_serve_settings
    from mnemolis.sources import registry

    with problems.each():
        AssistantSettings.from_config(config)
    with problems.each():
        load_serve_settings(config, env={})
    from mnemolis.serve.satellite_settings import load_satellites

    with problems.each():
        load_satellites(config)
    for kind in registry.kinds().values():
        with problems.each():
            kind.check(config)
    from mnemolis.voice.settings import check_settings as check_voice

    with problems.each():
        check_voice(config)


class HomeCheck:
    """Routines against the home of `sources/mqtt.yaml`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.problems = Problems()
        self.warnings: list[str] = []
        self.devices = {n: d for d in config.devices for n in d.names}
        self.rooms = {n: room for room, aliases in config.rooms.items() for n in (room, *aliases)}
        discovery = (config.sources.get("mqtt") or {}).get("discovery") or {}
        self.discovery = isinstance(discovery, dict) and bool(
            discovery.get("homeassistant") or discovery.get("zigbee2mqtt")
        )
        self.timeout_s = self._routine_timeout()

    def _routine_timeout(self) -> float | None:
        from mnemolis.sources.routines.settings import load_routine_settings

        try:
            return load_routine_settings(self.config).timeout_s
        except ConfigError:
            return None  # said by the settings check

    def run(self) -> None:
        for spec in self.config.intents.values():
            steps = spec.steps or []
            for step in walk(steps):
                if isinstance(step, DeviceStep):
                    self._device_step(spec, step)
                elif isinstance(step, IfStep):
                    self._if_step(spec, step)
            waits = longest_wait(steps)
            if self.timeout_s is not None and waits >= self.timeout_s:
                at = spec.at_do or At(self.config.source_path("routines"))
                self.problems.add(
                    at.error(
                        f"routine {spec.name!r} waits {waits:g} s, and a routine may take "
                        f"{self.timeout_s:g} s (timeout_s in sources/routines.yaml); "
                        "longer delays are for timers"
                    )
                )

    def _unknown(self, at: At, what: str, name: str, known: Iterable[str], typo_only: bool) -> None:
        hint = closest(name, sorted(set(known)))
        message = f"{what} {name!r}{hint} is not in sources/mqtt.yaml"
        if typo_only and not hint:
            self.warnings.append(f"{at.where()}: {message}; fine if discovery announces it")
        else:
            self.problems.add(at.error(message))

    def _label(self, spec: IntentSpec, at: At) -> str:
        steps = [k for k in at.keys if isinstance(k, int)]
        return f"routine {spec.name!r} step {'.'.join(str(n + 1) for n in steps)}"

    def _device_step(self, spec: IntentSpec, step: DeviceStep) -> None:
        label = self._label(spec, step.at)
        for name in step.target.devices:
            if is_template(name):
                continue
            device = self.devices.get(" ".join(name.lower().split()))
            if device is None:
                known = list(self.devices)
                self._unknown(step.at / "device", f"{label}: device", name, known, self.discovery)
            elif step.action not in TYPE_ACTIONS.get(device.type, ()):
                self.problems.add(
                    (step.at / "action").error(
                        f"{label}: the {device.name} (a {device.type}) cannot {step.action}"
                    )
                )
        for area in step.target.areas:
            if not is_template(area) and " ".join(area.lower().split()) not in self.rooms:
                self._unknown(step.at / "area", f"{label}: area", area, self.rooms, self.discovery)
        for floor in step.target.floors:
            if " ".join(floor.lower().split()) not in self.config.floors:
                known = sorted(self.config.floors)
                self.problems.add(
                    (step.at / "floor").error(
                        f"{label}: no room of sources/mqtt.yaml is on floor {floor!r}"
                        f"{closest(floor, known)} (rooms: - name: ..., floor: ...)"
                    )
                )

    def _if_step(self, spec: IntentSpec, step: IfStep) -> None:
        if is_template(step.device):
            return
        label = self._label(spec, step.at)
        device = self.devices.get(" ".join(step.device.lower().split()))
        at = step.at / "if" / "device"
        if device is None:
            self._unknown(at, f"{label}: device", step.device, list(self.devices), self.discovery)
            return
        states = self.config.device_states.get(device.type, [])
        if states and step.state not in states:
            self.problems.add(
                (step.at / "if" / "state").error(
                    f"{label}: the {device.name} is never {step.state!r} "
                    f"(a {device.type} is {' or '.join(states)})"
                )
            )


def longest_wait(steps: list[Step]) -> float:
    """The most a routine can wait in all, along its longest branch."""
    total = 0.0
    for step in steps:
        if isinstance(step, WaitStep):
            total += step.seconds
        elif isinstance(step, IfStep):
            total += max(longest_wait(step.then), longest_wait(step.otherwise))
        elif isinstance(step, TogetherStep):
            total += max((longest_wait([s]) for s in step.steps), default=0.0)
    return total


# --------------------------------------------------------------------------- provenance


def layer_lines(config: Config) -> list[str]:
    """One line per owner file: what it adds, changes and switches off."""
    if len(config.layers) < 2:
        return []
    done: dict[str, Counter[str]] = {}
    every = [*config.intents.values(), *config.disabled.values()]
    for spec in every:
        for origin in spec.origins:
            if not origin.shipped:
                done.setdefault(origin.path, Counter())[origin.how] += 1
        for phrase in spec.phrases:
            if phrase.at is not None and not _shipped(config, str(phrase.at.path)):
                done.setdefault(str(phrase.at.path), Counter())["phrases"] += 1
        for example in spec.examples:
            if example.path and not _shipped(config, example.path):
                done.setdefault(example.path, Counter())["examples"] += 1
    lines = [f"owner's configuration {config.root} over the shipped {config.layers[0].root}"]
    words = {
        "defined": "new intents",
        "extended": "intents extended",
        "overridden": "intents overridden",
        "disabled": "intents switched off",
        "phrases": "phrases",
        "examples": "examples",
    }
    for path in sorted(done):
        counts = done[path]
        said = ", ".join(f"{counts[k]} {v}" for k, v in words.items() if counts[k])
        lines.append(f"  {path}: {said}")
    for stem, paths in sorted(config.source_paths.items()):
        owner = [p for p in paths if not _shipped(config, str(p))]
        if owner:
            keys = sorted((config.sources.get(stem) or {}).keys())
            over = "over the shipped one" if len(paths) > 1 else "(no shipped one)"
            lines.append(f"  {owner[0]}: {over}; keys {', '.join(keys)}")
    return lines


def _shipped(config: Config, path: str) -> bool:
    return path.startswith(str(config.layers[0].root) + "/")


def provenance_lines(config: Config, names: Sequence[str]) -> list[str]:
    """Each intent asked for (all of them for none) with its origins and its phrases' files."""
    chosen = [n for n in names] or list(config.intents) + list(config.disabled)
    lines: list[str] = []
    for name in chosen:
        spec = config.intents.get(name) or config.disabled.get(name)
        if spec is None:
            lines.append(f"{name}: no such intent{closest(name, list(config.intents))}")
            continue
        state = " (switched off)" if name in config.disabled else ""
        lines.append(f"{name}{state}: " + "; ".join(str(o) for o in spec.origins))
        for phrase in spec.phrases:
            where = phrase.at.where() if phrase.at is not None else spec.path
            lines.append(f"  phrase {phrase.text!r}: {where}")
        for example in spec.examples:
            where = f"{example.path or spec.path}:{example.line}" if example.line else spec.path
            lines.append(f"  example {example.text!r}: {where}")
    return lines


def run_check(root: str | None, where: Sequence[str] | None, out: TextIO | None = None) -> int:
    """Print what `check` found (errors and warnings on standard error); its exit status."""
    out = out or sys.stdout
    report, lines = check(root, where)
    for line in report.errors:
        print(line, file=sys.stderr)
    for line in report.warnings:
        print(f"warning: {line}", file=sys.stderr)
    for line in [*lines, *report.failures, *report.summary]:
        print(line, file=out)
    if report.errors:
        count = len(report.errors)
        print(f"mnemolis: {count} configuration error{'s' if count > 1 else ''}", file=sys.stderr)
    return report.status
