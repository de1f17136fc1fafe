"""One run of a routine: its steps in order (or together), each with its own report.

Steps go through the other sources, never around them: a device step is a
`Part` for the source of the intent that carries out its action (the MQTT
source), so "which one", confirmations and state echoes are exactly those
of the spoken command; an ``if:`` asks that source to evaluate the device's
state; ``publish:`` uses its broker connection (`base.Publishes`).

A step that needs a yes (a ``confirm:``, a device or intent step the MQTT
source answers with ``needs_confirmation``, such as an unlock or a position
that raises the garage door, or a ``publish:`` to a topic that commands such
a device, `base.Publishes.guarded`) pauses the run: the
steps before it have run, and what is left (that step first) is returned, to
be resumed when the person says yes. The steps that asked are then run
confirmed; a later step that needs a yes asks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config, IntentSpec
from mnemolis.config.routines import (
    CallStep,
    ConfirmStep,
    DeviceStep,
    IfStep,
    IntentStep,
    PublishStep,
    SayStep,
    Step,
    Target,
    TogetherStep,
    WaitStep,
    kind_of,
)
from mnemolis.config.templates import TemplateFailed, ValueMissing, render
from mnemolis.core.devices import TYPE_ACTIONS, Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.sources.base import Publishes, ReadsSensors, Request, Source, Status, Truth
from mnemolis.sources.routines.settings import RoutineSettings
from mnemolis.sources.routines.webhook import call_webhook

#: Time kept back from the routine's deadline, so it reports before the executor gives up.
MARGIN_S = 0.1
#: A step with less time left than this is not started.
MIN_STEP_S = 0.05


@dataclass
class Lane:
    """Steps that run in order: one branch of a ``together:`` step, or what is left of it."""

    steps: list[Numbered]


@dataclass
class Lanes:
    """Lanes that run at the same time: a ``together:`` step, or what is left of it."""

    lanes: list[Lane]


Numbered = tuple[str, "Step | Lane | Lanes"]


def numbered(steps: list[Step], prefix: str = "") -> list[Numbered]:
    return [(f"{prefix}{i + 1}", step) for i, step in enumerate(steps)]


@dataclass
class StepReport:
    """How one step ended, for the structured result."""

    step: str  # "2.1": the first step of step 2's branch
    kind: str
    status: Status
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    spoken: bool = False  # a say: or intent: step, whose sentence is the point

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "kind": self.kind,
            "status": str(self.status),
            "text": self.text,
            "data": self.data,
        }


@dataclass
class Tools:
    """What a run may use: the configuration, the devices, the other sources."""

    config: Config
    registry: DeviceRegistry
    peers: Mapping[str, Source]
    settings: RoutineSettings


class RoutineRun:
    """Runs one routine's steps for one request; `reports` say how each ended."""

    def __init__(
        self,
        spec: IntentSpec,
        part: Part,
        request: Request,
        tools: Tools,
        confirmed: set[int] | None = None,
    ) -> None:
        self.spec = spec
        self.part = part
        self.request = request
        self.tools = tools
        self.every_step_confirmed = confirmed is None and request.confirmed
        self.confirmed = confirmed or set()
        self.asked: set[int] = set()
        self.reports: list[StepReport] = []
        self.no_value: list[str] = []  # sensors a template asked for that had no number
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + max(0.0, request.timeout_s - MARGIN_S)
        self.variables = self._variables()

    # ------------------------------------------------------------------ the run

    def remaining(self) -> float:
        return self.deadline - asyncio.get_running_loop().time()

    async def run(self, steps: list[Numbered]) -> list[Numbered] | None:
        """Run ``steps`` in order; what is left (the pausing step first) when one needs a yes."""
        for i, (label, step) in enumerate(steps):
            if self.remaining() < MIN_STEP_S:
                self._skip(steps[i:], "out_of_time")
                return None
            left = await self._one(label, step)
            if left is not None:
                return left + steps[i + 1 :]
        return None

    def _skip(self, steps: list[Numbered], key: str) -> None:
        for label, step in steps:
            kind = kind_of(step) if not isinstance(step, Lane | Lanes) else "together"
            text = self.tools.settings.say(key, step=f"step {label}")
            self.reports.append(StepReport(label, kind, Status.ERROR, text, {"ran": False}))

    async def _one(self, label: str, step: Step | Lane | Lanes) -> list[Numbered] | None:
        if isinstance(step, Lane):
            return await self.run(step.steps)
        if isinstance(step, TogetherStep):
            step = Lanes([Lane([item]) for item in numbered(step.steps, f"{label}.")])
        if isinstance(step, Lanes):
            return await self._lanes(label, step)
        if isinstance(step, IfStep):
            return await self._if(label, step)
        if isinstance(step, ConfirmStep) and not self._confirmed(step):
            return await self._ask(label, step)
        try:
            report = await self._report(label, step)
        except TemplateFailed as exc:
            reason = self._why(exc)
            text = self.tools.settings.say("template_failed", step=f"step {label}", reason=reason)
            report = StepReport(label, kind_of(step), Status.ERROR, text, {"problem": "template"})
        self.reports.append(report)
        if report.status is Status.NEEDS_CONFIRMATION:
            self.asked.add(id(step))
            return [(label, step)]
        return None

    def _confirmed(self, step: Step) -> bool:
        return self.every_step_confirmed or id(step) in self.confirmed

    async def _report(self, label: str, step: Step) -> StepReport:
        if isinstance(step, SayStep):
            text = await render(step.text, self.variables)
            return StepReport(label, "say", Status.OK, text, spoken=True)
        if isinstance(step, WaitStep):
            seconds = min(step.seconds, max(0.0, self.remaining()))
            await asyncio.sleep(seconds)
            if seconds < step.seconds:
                text = self.tools.settings.say("out_of_time", step=f"the end of step {label}")
                return StepReport(label, "wait", Status.ERROR, text, {"seconds": seconds})
            return StepReport(label, "wait", Status.OK, self.tools.settings.say("waited"))
        if isinstance(step, ConfirmStep):  # confirmed already
            return StepReport(label, "confirm", Status.OK, "", {"confirmed": True})
        if isinstance(step, DeviceStep):
            return await self._device(label, step)
        if isinstance(step, IntentStep):
            return await self._intent(label, step)
        if isinstance(step, PublishStep):
            return await self._publish(label, step)
        if isinstance(step, CallStep):
            return await self._call(label, step)
        raise AssertionError(f"a step of an unknown kind: {step!r}")  # pragma: no cover

    async def _ask(self, label: str, step: ConfirmStep) -> list[Numbered]:
        question = await render(step.question, self.variables)
        self.reports.append(StepReport(label, "confirm", Status.NEEDS_CONFIRMATION, question))
        self.asked.add(id(step))
        return [(label, step)]

    async def _lanes(self, label: str, step: Lanes) -> list[Numbered] | None:
        first = len(self.reports)
        lefts = await asyncio.gather(*(self.run(lane.steps) for lane in step.lanes))
        self.reports[first:] = sorted(self.reports[first:], key=lambda r: _order(r.step))
        waiting = [Lane(left) for left in lefts if left is not None]
        if not waiting:
            return None
        if len(waiting) == 1:
            return waiting[0].steps
        return [(label, Lanes(waiting))]

    async def _if(self, label: str, step: IfStep) -> list[Numbered] | None:
        try:
            device = await render(step.device, self.variables)
        except TemplateFailed as exc:
            text = self.tools.settings.say("template_failed", step=f"step {label}", reason=exc)
            self.reports.append(StepReport(label, "if", Status.ERROR, text))
            return None
        state_intent = self._intent_with_action("state")
        source = self._source_of(state_intent)
        if source is None or state_intent is None:
            self.reports.append(self._no_source(label, "if", state_intent))
            return None
        part = self._part(f"is the {device} {step.state}", state_intent, {"device": device})
        part.slots["state"] = step.state
        found = await source.evaluate(part, self._request(confirmed=False))
        data = {"device": device, "state": step.state, "truth": str(found.truth)}
        if found.truth is Truth.UNKNOWN:
            text = self.tools.settings.say(
                "condition_unknown", device=device, state=step.state, step=f"step {label}"
            )
            self.reports.append(
                StepReport(label, "if", Status.ERROR, f"{text}. {found.text}", data)
            )
            return None
        self.reports.append(StepReport(label, "if", Status.OK, found.text, data))
        chosen, branch = (
            (step.then, "then") if found.truth is Truth.TRUE else (step.otherwise, "else")
        )
        return await self.run(numbered(chosen, f"{label}.{branch}."))

    # ------------------------------------------------------------------ through other sources

    def _intent_with_action(self, action: str) -> IntentSpec | None:
        return next((i for i in self.tools.config.intents.values() if i.action == action), None)

    def _source_of(self, spec: IntentSpec | None) -> Source | None:
        return self.tools.peers.get(spec.source or "") if spec is not None else None

    def _part(self, text: str, spec: IntentSpec, slots: dict[str, Any]) -> Part:
        return Part(
            text=text,
            intent=spec.name,
            source=spec.source,
            slots=slots,
            confidence=1.0,
            provenance={"routine": self.spec.name},
        )

    def _request(self, confirmed: bool) -> Request:
        return Request(
            session=self.request.session,
            confirmed=confirmed,
            timeout_s=max(MIN_STEP_S, self.remaining()),
            origin=self.request.origin,
        )

    def _no_source(self, label: str, kind: str, spec: IntentSpec | None) -> StepReport:
        name = spec.source if spec is not None else "?"
        text = self.tools.settings.say("no_source", source=name, step=f"step {label}")
        return StepReport(label, kind, Status.ERROR, text, {"problem": "no_source"})

    async def _device(self, label: str, step: DeviceStep) -> StepReport:
        spec = self.tools.config.intent(step.intent)
        source = self._source_of(spec)
        if spec is None or source is None:
            return self._no_source(label, "action", spec)
        names = await self._targets(step)
        data: dict[str, Any] = {"action": step.action, "devices": names}
        if not names:
            return StepReport(
                label, "action", Status.OK, self.tools.settings.say("nothing_to_do"), data
            )
        slots: dict[str, Any] = {"device": names[0] if len(names) == 1 else names}
        for slot, value in step.values.items():
            slots[slot] = await self._value(slot, value)
        text = f"{step.action.replace('_', ' ')} {', '.join(names)}"
        confirmed = self._confirmed(step)
        answer = await source.answer(self._part(text, spec, slots), self._request(confirmed))
        status = Status.ERROR if answer.status is Status.OUT_OF_SCOPE else answer.status
        return StepReport(label, "action", status, answer.text, {**data, **answer.data})

    async def _value(self, slot: str, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = await render(value, self.variables)
        spec = self.tools.config.slots.get(slot)
        if spec is not None and spec.type == "number":
            try:
                return float(text)
            except ValueError as exc:
                raise TemplateFailed(f"{slot} {text!r} is not a number") from exc
        return text.lower()

    async def _targets(self, step: DeviceStep) -> list[str]:
        """The devices a step acts on: those it names, and those its area, floor, type
        and device class choose (`config.routines.Target`)."""
        target: Target = step.target
        names: list[str] = []
        for raw in target.devices:
            name = " ".join((await render(raw, self.variables)).lower().split())
            if name and name not in names:
                names.append(name)
        areas = {self._room(await render(a, self.variables)) for a in target.areas}
        for floor in target.floors:
            areas.update(self.tools.config.floors.get(" ".join(floor.lower().split()), ()))
        if not (areas or target.floors or target.types or target.device_classes):
            return names
        chosen = sorted(
            (d for d in self.tools.registry.devices() if _fits(d, step, areas, target)),
            key=lambda d: d.name,
        )
        return names + [d.name for d in chosen if d.name not in names]

    def _room(self, spoken: str) -> str:
        room = " ".join(spoken.lower().split())
        for name, aliases in self.tools.registry.rooms().items():
            if room == name or room in aliases:
                return name
        return room

    async def _intent(self, label: str, step: IntentStep) -> StepReport:
        spec = self.tools.config.intent(step.intent)
        source = self._source_of(spec)
        if spec is None or source is None:
            return self._no_source(label, "intent", spec)
        slots = {k: await self._value(k, v) for k, v in step.slots.items()}
        confirmed = self._confirmed(step)  # a yes asked for by this step, then given
        answer = await source.answer(self._part(step.intent, spec, slots), self._request(confirmed))
        status = Status.ERROR if answer.status is Status.OUT_OF_SCOPE else answer.status
        data = {"intent": step.intent, **answer.data}
        return StepReport(label, "intent", status, answer.text, data, spoken=True)

    async def _publish(self, label: str, step: PublishStep) -> StepReport:
        broker = next((p for p in self.tools.peers.values() if isinstance(p, Publishes)), None)
        data: dict[str, Any] = {"topic": step.topic, "qos": step.qos, "retain": step.retain}
        if broker is None:
            return StepReport(
                label, "publish", Status.ERROR, self.tools.settings.say("no_broker"), data
            )
        device = broker.guarded(step.topic)
        confirmed = self._confirmed(step)
        if device is not None and not confirmed:  # a message that may open it, unread
            data["device"] = device
            said = self.tools.settings.say("publish_confirm", topic=step.topic, device=device)
            text = said or f"Do you want me to send a message to {step.topic} ({device})?"
            return StepReport(label, "publish", Status.NEEDS_CONFIRMATION, text, data)
        payload = await render(step.payload, self.variables, spoken=False)
        try:
            sent = await asyncio.wait_for(
                broker.publish(step.topic, payload.encode(), step.qos, step.retain, confirmed),
                max(MIN_STEP_S, self.remaining()),
            )
        except TimeoutError:
            sent = False
        data["payload"] = payload
        if not sent:
            text = self.tools.settings.say(
                "publish_failed", topic=step.topic, reason="the broker did not take it in time"
            )
            return StepReport(label, "publish", Status.ERROR, text, data)
        text = self.tools.settings.say("published", topic=step.topic)
        return StepReport(label, "publish", Status.DONE, text, data)

    async def _call(self, label: str, step: CallStep) -> StepReport:
        payload = await self._json(step.json) if step.json is not None else None
        body = await render(step.body, self.variables, spoken=False) if step.body else None
        timeout = min(step.timeout_s or self.tools.settings.webhook_timeout_s, self.remaining())
        answer = await call_webhook(
            step.url,
            step.method,
            payload,
            body,
            step.headers,
            max(MIN_STEP_S, timeout),
            self.tools.settings.webhook_max_bytes,
        )
        data = {"url": step.url, "method": step.method, "http_status": answer.status}
        if not answer.ok:
            text = self.tools.settings.say("call_failed", url=step.url, reason=answer.reason)
            return StepReport(label, "call", Status.ERROR, text, {**data, "reason": answer.reason})
        return StepReport(label, "call", Status.DONE, self.tools.settings.say("called"), data)

    async def _json(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: await self._json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [await self._json(v) for v in value]
        if isinstance(value, str):
            return await render(value, self.variables, spoken=False)
        return value

    # ------------------------------------------------------------------ templates

    def _variables(self) -> dict[str, Any]:
        slots = {name: self.part.slots.get(name) for name in self.spec.slots}
        if "room" in slots and not slots["room"] and self.request.origin.room:
            slots["room"] = self.request.origin.room  # the requester's own room
        origin = self.request.origin
        return {
            **slots,
            "slots": dict(slots),
            "text": self.part.text,
            "intent": self.spec.name,
            "origin": {
                "front_end": origin.front_end,
                "session": origin.session,
                "room": origin.room,
                "site": origin.site,
            },
            "state": self._state,
            "sensor": self._sensor,
        }

    async def _state(self, name: str) -> dict[str, Any] | None:
        """``state("thermostat")``: the device's last reported values, or None."""
        spec = self._intent_with_action("state")
        source = self._source_of(spec)
        if spec is None or source is None:
            return None
        answer = await source.answer(
            self._part(f"state of {name}", spec, {"device": str(name)}), self._request(False)
        )
        state = answer.data.get("state")
        return dict(state) if isinstance(state, dict) else None

    def _sensor(self, name: str) -> float | None:
        """``sensor("outdoor temperature")``: its last number, or None (remembered, so a
        sentence that would say it names what has no value)."""
        reader = next((p for p in self.tools.peers.values() if isinstance(p, ReadsSensors)), None)
        reading = reader.read_sensor(str(name)) if reader is not None else None
        value = reading.value if reading is not None else None
        if value is None and str(name) not in self.no_value:
            self.no_value.append(str(name))
        return value

    def _why(self, exc: TemplateFailed) -> str:
        if isinstance(exc, ValueMissing) and self.no_value:
            return f"the {' and the '.join(self.no_value)} has no value yet"
        return str(exc)


def _fits(device: Device, step: DeviceStep, areas: set[str], target: Target) -> bool:
    """A device chosen by area or floor (any of them), narrowed by type and device class,
    that can do the step's action."""
    if (areas or target.floors) and device.room not in areas:
        return False
    if target.types and device.type not in target.types:
        return False
    if target.device_classes and device.device_class not in target.device_classes:
        return False
    return step.action in TYPE_ACTIONS.get(device.type, ())


def _order(label: str) -> tuple[int, ...]:
    """ "1.then.2" in step order: numbers as numbers, a branch name before its steps."""
    return tuple(int(p) if p.isdigit() else 0 for p in label.split("."))
