"""Whether a routine will wait for a yes when it runs, worked out before it runs.

A routine kept for later (a plan: "in 10 minutes run leaving home"; a watch's
action) runs when nobody may be there to say yes, so the timers source asks
here when it is set (`base.WaitsForYes`): a ``confirm:`` step, a device or
intent step the source that carries it out says would wait (the MQTT source:
opening, raising, unlocking, disarming, by the effect in any state the devices
may then be in), or a ``publish:`` to a topic that commands such a device. What
the steps' templates will say is not known yet, so a step whose devices are
templated counts for every device of its type that can do its action, and a
templated value counts as unknown (which may open).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mnemolis.config.routines import (
    ConfirmStep,
    DeviceStep,
    IfStep,
    IntentStep,
    PublishStep,
    Step,
    TogetherStep,
)
from mnemolis.core.devices import TYPE_ACTIONS
from mnemolis.core.plan import Part
from mnemolis.sources.base import Publishes, WaitsForYes
from mnemolis.sources.routines.run import Tools


def every_step(steps: list[Step]) -> Iterator[Step]:
    for step in steps:
        yield step
        if isinstance(step, IfStep):
            yield from every_step(step.then)
            yield from every_step(step.otherwise)
        elif isinstance(step, TogetherStep):
            yield from every_step(step.steps)


def _templated(value: Any) -> bool:
    return isinstance(value, str) and ("{" in value or "%" in value)


def _fixed(values: dict[str, Any]) -> dict[str, Any]:
    """The values known before the run (a templated one is left out: unknown)."""
    return {
        k: (v.lower() if isinstance(v, str) else v) for k, v in values.items() if not _templated(v)
    }


def waits(tools: Tools, steps: list[Step]) -> list[str]:
    """What of ``steps`` would wait for a yes: the confirm questions, the devices."""
    found: list[str] = []
    for step in every_step(steps):
        for said in _step(tools, step):
            if said not in found:
                found.append(said)
    return found


def _step(tools: Tools, step: Step) -> list[str]:
    if isinstance(step, ConfirmStep):
        return [step.question]
    if isinstance(step, PublishStep):
        broker = next((p for p in tools.peers.values() if isinstance(p, Publishes)), None)
        device = broker.guarded(step.topic) if broker is not None else None
        return [device] if device is not None else []
    if isinstance(step, DeviceStep):
        return _ask(tools, step.intent, _devices(tools, step), _fixed(step.values))
    if isinstance(step, IntentStep):
        slots = _fixed(step.slots)
        raw = step.slots.get("device")
        names: list[str] | None = None if _templated(raw) else []
        return _ask(tools, step.intent, names, slots)
    return []


def _devices(tools: Tools, step: DeviceStep) -> list[str] | None:
    """The devices a device step may act on; None: any that can do its action."""
    target = step.target
    if any(_templated(n) for n in target.devices):
        return None
    names = [" ".join(n.lower().split()) for n in target.devices]
    if target.areas or target.floors or target.types or target.device_classes:
        for device in tools.registry.devices():  # the area is left out: it may be templated
            if target.types and device.type not in target.types:
                continue
            if target.device_classes and device.device_class not in target.device_classes:
                continue
            if step.action in TYPE_ACTIONS.get(device.type, ()) and device.name not in names:
                names.append(device.name)
    return names


def _ask(tools: Tools, intent: str, names: list[str] | None, slots: dict[str, Any]) -> list[str]:
    spec = tools.config.intent(intent)
    peer = tools.peers.get(spec.source or "") if spec is not None else None
    if spec is None or not isinstance(peer, WaitsForYes):
        return []
    if names is None:  # templated: every device that could do it
        names = [
            d.name
            for d in tools.registry.devices()
            if spec.action in TYPE_ACTIONS.get(d.type, ()) or spec.action == "toggle"
        ]
    if not names and "device" not in slots:
        return peer.waits_for_yes(_part(spec.name, spec.source, slots))
    found: list[str] = []
    for name in names or [slots.get("device")]:
        part = _part(spec.name, spec.source, {**slots, "device": name})
        found.extend(peer.waits_for_yes(part))
    return found


def _part(intent: str, source: str | None, slots: dict[str, Any]) -> Part:
    return Part(text=intent, intent=intent, source=source, slots=slots, confidence=1.0)
