"""Routines: an intent's `do:` steps, as the owner writes them in YAML, checked.

A step is a mapping whose one kind key says what it does:

- ``action:`` a device action, on devices chosen by ``device`` (names),
  ``area``, ``floor``, ``type`` and ``device_class``, with the values the
  action takes (``temperature: 17``); it runs as the intent that carries out
  that action, through the MQTT source, exactly like the spoken command;
- ``say:`` a sentence (a template);
- ``publish:`` an MQTT message: ``topic`` written here (never a template,
  never what was said), ``payload`` a template, ``qos``, ``retain``;
- ``call:`` an HTTP webhook: ``url`` written here, ``method``, ``json`` or
  ``body``, ``headers``, ``timeout_s``;
- ``wait:`` seconds; ``confirm:`` a question that needs a yes before the rest;
- ``if:`` ``{device, state}``, with ``then:`` and ``else:`` steps;
- ``together:`` steps run at the same time;
- ``intent:`` any other source's intent with ``slots:`` ("weather.forecast").

A bare string is a ``say:``. Template names are checked against the
routine's slots (`templates.check_template`); what needs the home (which
devices and areas exist) is checked by `mnemolis check`, since discovery
may announce devices only at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config.intents import ACTIONS, IntentSpec, SlotSpec, closest
from mnemolis.config.problems import Problems
from mnemolis.config.templates import check_template
from mnemolis.config.yaml_at import At, as_mapping, as_strings, as_text
from mnemolis.core.devices import TYPE_ACTIONS

#: What each kind of step is called by its key.
KINDS = ("action", "say", "publish", "call", "wait", "confirm", "if", "together", "intent")
TARGET_KEYS = ("device", "area", "floor", "type", "device_class")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@dataclass
class Target:
    """Which devices a device step acts on: all of the given criteria at once."""

    devices: list[str] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    floors: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    device_classes: list[str] = field(default_factory=list)

    @property
    def named(self) -> bool:
        return bool(self.devices)


@dataclass
class DeviceStep:
    action: str
    intent: str  # the intent that carries the action out ("device.turn_off")
    target: Target
    values: dict[str, Any]  # slot -> number or (template) text
    at: At


@dataclass
class SayStep:
    text: str
    at: At


@dataclass
class PublishStep:
    topic: str
    payload: str
    qos: int
    retain: bool
    at: At


@dataclass
class CallStep:
    url: str
    method: str
    body: str | None
    json: Any
    headers: dict[str, str]
    timeout_s: float | None
    at: At


@dataclass
class WaitStep:
    seconds: float
    at: At


@dataclass
class ConfirmStep:
    question: str
    at: At


@dataclass
class IfStep:
    device: str
    state: str
    then: list[Step]
    otherwise: list[Step]
    at: At


@dataclass
class TogetherStep:
    steps: list[Step]
    at: At


@dataclass
class IntentStep:
    intent: str
    slots: dict[str, Any]
    at: At


Step = (
    DeviceStep
    | SayStep
    | PublishStep
    | CallStep
    | WaitStep
    | ConfirmStep
    | IfStep
    | TogetherStep
    | IntentStep
)


def kind_of(step: Step) -> str:
    return {
        DeviceStep: "action",
        SayStep: "say",
        PublishStep: "publish",
        CallStep: "call",
        WaitStep: "wait",
        ConfirmStep: "confirm",
        IfStep: "if",
        TogetherStep: "together",
        IntentStep: "intent",
    }[type(step)]


def walk(steps: list[Step]) -> list[Step]:
    """Every step, nested ones included, in the order written."""
    out: list[Step] = []
    for step in steps:
        out.append(step)
        if isinstance(step, IfStep):
            out += walk(step.then) + walk(step.otherwise)
        elif isinstance(step, TogetherStep):
            out += walk(step.steps)
    return out


@dataclass
class _Reader:
    """Reads the steps of one routine, keeping every error."""

    owner: IntentSpec
    intents: dict[str, IntentSpec]
    slots: dict[str, SlotSpec]
    states: frozenset[str]
    problems: Problems

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.owner.slots)

    def label(self, at: At) -> str:
        """ "routine 'routine.good_night' step 2.1" (the first step of step 2's branch)."""
        steps = [k for k in at.keys if isinstance(k, int)]
        if not steps:
            return f"routine {self.owner.name!r}"
        return f"routine {self.owner.name!r} step {'.'.join(str(n + 1) for n in steps)}"

    def template(self, value: Any, at: At, what: str) -> str:
        return check_template(value, at, self.names, f"{self.label(at)}: {what}")

    def steps(self, raw: Any, at: At) -> list[Step]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise at.error(f"routine {self.owner.name!r}: steps must be a list")
        out: list[Step] = []
        for i, item in enumerate(raw):
            with self.problems.each():
                out.append(self.step(item, at / i))
        return out

    def step(self, raw: Any, at: At) -> Step:
        if isinstance(raw, str):
            return SayStep(self.template(raw, at, "say"), at)
        data = as_mapping(raw, at, f"{self.label(at)}: a step")
        kinds = [k for k in KINDS if k in data]
        if not kinds:
            first = next(iter(data), "")
            hint = closest(str(first), KINDS) if first else ""
            raise at.error(
                f"{self.label(at)}: unknown step {str(first)!r}{hint}; a step is one of "
                + ", ".join(KINDS)
            )
        if len(kinds) > 1 and kinds != ["if"]:
            raise at.error(f"{self.label(at)}: one step does one thing, not {' and '.join(kinds)}")
        kind = kinds[0]
        reader = getattr(self, f"_{kind}")
        step: Step = reader(data, at)
        return step

    def _keys(self, data: dict[str, Any], at: At, allowed: tuple[str, ...]) -> None:
        for key in data:
            if key not in allowed:
                raise (at / key).error(
                    f"{self.label(at)}: unknown key {key!r}{closest(str(key), allowed)}"
                )

    # ------------------------------------------------------------------ kinds

    def _action(self, data: dict[str, Any], at: At) -> DeviceStep:
        action = as_text(data["action"], at / "action", f"{self.label(at)}: action")
        if action not in ACTIONS:
            raise (at / "action").error(
                f"{self.label(at)}: unknown action {action!r}{closest(action, ACTIONS)}"
            )
        spec = next((i for i in self.intents.values() if i.action == action), None)
        if spec is None:
            raise (at / "action").error(
                f"{self.label(at)}: no intent carries out the action {action!r} "
                "(an intent with `action: " + action + "`)"
            )
        values_allowed = tuple(s for s in spec.slots if s not in ("device", "room"))
        self._keys(data, at, ("action", *TARGET_KEYS, *values_allowed))
        target = Target(
            devices=[self.template(d, at / "device", "device") for d in _listed(data, "device")],
            areas=[self.template(a, at / "area", "area") for a in _listed(data, "area")],
            floors=as_strings(data.get("floor"), at / "floor", "floor"),
            types=as_strings(data.get("type"), at / "type", "type"),
            device_classes=as_strings(data.get("device_class"), at / "device_class", "class"),
        )
        for i, dtype in enumerate(target.types):
            if dtype not in TYPE_ACTIONS:
                raise (at / "type" / i).error(
                    f"{self.label(at)}: unknown device type {dtype!r}"
                    f"{closest(dtype, tuple(TYPE_ACTIONS))}"
                )
            if action not in TYPE_ACTIONS[dtype]:
                raise (at / "action").error(
                    f"{self.label(at)}: a {dtype} cannot {action} "
                    f"(it can {', '.join(a for a in TYPE_ACTIONS[dtype] if a != 'state')})"
                )
        if not any(
            (target.devices, target.areas, target.floors, target.types, target.device_classes)
        ):
            raise at.error(
                f"{self.label(at)}: {action} on what? Name a device, an area, a floor, a type "
                "or a device class"
            )
        values: dict[str, Any] = {}
        for slot in values_allowed:
            if slot in data:
                values[slot] = self._value(data[slot], self.slots[slot], at / slot)
        return DeviceStep(action, spec.name, target, values, at)

    def _value(self, raw: Any, slot: SlotSpec, at: At) -> Any:
        if slot.type == "number" and isinstance(raw, int | float) and not isinstance(raw, bool):
            low, high = slot.minimum, slot.maximum
            if (low is not None and raw < low) or (high is not None and raw > high):
                raise at.error(
                    f"{self.label(at)}: {slot.name} {raw} is outside {low:g} to {high:g}"
                    if low is not None and high is not None
                    else f"{self.label(at)}: {slot.name} {raw} is out of range"
                )
            return float(raw)
        text = self.template(raw, at, slot.name)
        if slot.type == "list" and "{" not in text and text.lower() not in slot.values:
            known = tuple(sorted(set(slot.values.values())))
            raise at.error(
                f"{self.label(at)}: {slot.name} {text!r} is not one of its values"
                f"{closest(text.lower(), known)}"
            )
        return text

    def _say(self, data: dict[str, Any], at: At) -> SayStep:
        self._keys(data, at, ("say",))
        return SayStep(self.template(data["say"], at / "say", "say"), at)

    def _confirm(self, data: dict[str, Any], at: At) -> ConfirmStep:
        self._keys(data, at, ("confirm",))
        return ConfirmStep(self.template(data["confirm"], at / "confirm", "confirm"), at)

    def _wait(self, data: dict[str, Any], at: At) -> WaitStep:
        self._keys(data, at, ("wait",))
        seconds = data["wait"]
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise (at / "wait").error(f"{self.label(at)}: wait is a number of seconds above 0")
        return WaitStep(float(seconds), at)

    def _publish(self, data: dict[str, Any], at: At) -> PublishStep:
        self._keys(data, at, ("publish",))
        p_at = at / "publish"
        raw = as_mapping(data["publish"], p_at, f"{self.label(at)}: publish")
        self._keys(raw, p_at, ("topic", "payload", "qos", "retain"))
        topic = check_topic(raw.get("topic"), p_at / "topic", self.label(at))
        payload = self.template(raw.get("payload", ""), p_at / "payload", "payload")
        qos = raw.get("qos", 1)
        if qos not in (0, 1, 2) or isinstance(qos, bool):
            raise (p_at / "qos").error(f"{self.label(at)}: qos is 0, 1 or 2")
        retain = raw.get("retain", False)
        if not isinstance(retain, bool):
            raise (p_at / "retain").error(f"{self.label(at)}: retain is true or false")
        return PublishStep(topic, payload, int(qos), retain, at)

    def _call(self, data: dict[str, Any], at: At) -> CallStep:
        self._keys(data, at, ("call",))
        c_at = at / "call"
        raw = as_mapping(data["call"], c_at, f"{self.label(at)}: call")
        self._keys(raw, c_at, ("url", "method", "json", "body", "headers", "timeout_s"))
        url = as_text(raw.get("url"), c_at / "url", f"{self.label(at)}: url")
        if not url.startswith(("http://", "https://")) or "{" in url or " " in url:
            raise (c_at / "url").error(
                f"{self.label(at)}: url must be an http:// or https:// address written out "
                "(no template)"
            )
        method = str(raw.get("method", "POST")).upper()
        if method not in METHODS:
            raise (c_at / "method").error(
                f"{self.label(at)}: method {method!r} is not one of {', '.join(METHODS)}"
            )
        if "json" in raw and "body" in raw:
            raise c_at.error(f"{self.label(at)}: a call sends json or a body, not both")
        body = self.template(raw["body"], c_at / "body", "body") if "body" in raw else None
        payload = self._json(raw.get("json"), c_at / "json")
        headers = {
            str(k): as_text(v, c_at / "headers" / k, f"{self.label(at)}: header {k}")
            for k, v in as_mapping(raw.get("headers"), c_at / "headers", "headers").items()
        }
        timeout = raw.get("timeout_s")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
        ):
            raise (c_at / "timeout_s").error(f"{self.label(at)}: timeout_s is seconds above 0")
        return CallStep(url, method, body, payload, headers, timeout, at)

    def _json(self, raw: Any, at: At) -> Any:
        """A JSON body: its strings may be templates, the rest is sent as written."""
        if isinstance(raw, dict):
            return {str(k): self._json(v, at / k) for k, v in raw.items()}
        if isinstance(raw, list):
            return [self._json(v, at / i) for i, v in enumerate(raw)]
        if isinstance(raw, str):
            return self.template(raw, at, "json")
        return raw

    def _if(self, data: dict[str, Any], at: At) -> IfStep:
        self._keys(data, at, ("if", "then", "else"))
        i_at = at / "if"
        cond = as_mapping(data["if"], i_at, f"{self.label(at)}: if")
        self._keys(cond, i_at, ("device", "state"))
        device = self.template(cond.get("device"), i_at / "device", "device")
        state = as_text(cond.get("state"), i_at / "state", f"{self.label(at)}: state").lower()
        if self.states and state not in self.states:
            raise (i_at / "state").error(
                f"{self.label(at)}: unknown state {state!r}{closest(state, tuple(self.states))} "
                f"(one of {', '.join(sorted(self.states))})"
            )
        if "then" not in data and "else" not in data:
            raise at.error(f"{self.label(at)}: an if step needs then: or else: steps")
        then = self.steps(data.get("then"), at / "then")
        otherwise = self.steps(data.get("else"), at / "else")
        return IfStep(device, state, then, otherwise, at)

    def _together(self, data: dict[str, Any], at: At) -> TogetherStep:
        self._keys(data, at, ("together",))
        return TogetherStep(self.steps(data["together"], at / "together"), at)

    def _intent(self, data: dict[str, Any], at: At) -> IntentStep:
        self._keys(data, at, ("intent", "slots"))
        name = as_text(data["intent"], at / "intent", f"{self.label(at)}: intent")
        spec = self.intents.get(name)
        if spec is None:
            raise (at / "intent").error(
                f"{self.label(at)}: unknown intent {name!r}{closest(name, tuple(self.intents))}"
            )
        if spec.source is None or spec.steps is not None or spec.source == "external":
            raise (at / "intent").error(
                f"{self.label(at)}: {name!r} is not answered by a source a routine can ask"
            )
        slots = as_mapping(data.get("slots"), at / "slots", "slots")
        values: dict[str, Any] = {}
        for key, raw in slots.items():
            if key not in spec.slots:
                raise (at / "slots" / key).error(
                    f"{self.label(at)}: {name} has no slot {key!r}{closest(str(key), spec.slots)}"
                )
            values[str(key)] = self._value(raw, self.slots[str(key)], at / "slots" / key)
        return IntentStep(name, values, at)


def _listed(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def check_topic(value: Any, at: At, label: str) -> str:
    """A topic to publish on, as written in YAML: no wildcard, no template, no blank."""
    topic = as_text(value, at, f"{label}: topic") if value is not None else ""
    if not topic or topic != topic.strip() or any(c in topic for c in "+#\x00{}"):
        raise at.error(
            f"{label}: topic {topic!r} must be written out in full "
            "(no wildcard +/#, no template, no spaces at the ends)"
        )
    if len(topic.encode()) > 256:
        raise at.error(f"{label}: topic is longer than 256 bytes")
    return topic


def load_steps(
    owner: IntentSpec,
    intents: dict[str, IntentSpec],
    slots: dict[str, SlotSpec],
    states: frozenset[str],
    problems: Problems,
) -> list[Step]:
    """The steps of ``owner`` (its `do:` and a final `say:`), every error kept."""
    reader = _Reader(owner, intents, slots, states, problems)
    home = owner.at if owner.at is not None else At(Path(owner.path))
    steps = reader.steps(owner.raw_do, owner.at_do or home / "do")
    if owner.say is not None:
        with problems.each():
            say_at = home / "say"
            steps.append(SayStep(reader.template(owner.say, say_at, "say"), say_at))
    return steps
