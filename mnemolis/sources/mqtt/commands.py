"""Carrying out an action: allowed?, confirmed?, encoded, published, echoed.

Each device of a part gets its own `Act` (`values`) and its own commands
(`codec`); the part waits for a spoken yes when any of them would open,
raise, unlock or disarm a guarded device (`opening`: judged by the effect on
the device, whatever intent, routine step, plan or watch produced it, just
before the command is encoded), or do what its ``confirm:`` lists. A command
is published only to topics from the config, with its schema's QoS and
retain flag, before a deadline, and counts as done only when the device's
state echo says so (`codec.expectation`). A toggle becomes, per device, the
turn_off or turn_on its last reported state calls for (`toggled`), so it is
encoded, confirmed and echoed as that action; a device whose state is unknown
is not flipped blindly.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from mnemolis.core.devices import TYPE_ACTIONS, Device
from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Request, Status
from mnemolis.sources.mqtt import codec
from mnemolis.sources.mqtt.state import DeviceState
from mnemolis.sources.mqtt.truth import state_matches
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported, format_number

if TYPE_CHECKING:
    from mnemolis.sources.mqtt.source import MqttSource

READ_ONLY = ("sensor", "binary_sensor", "device_tracker")
#: What a toggle may turn out to be, once the device's state is known.
TOGGLES = ("turn_on", "turn_off")
#: Worst first: a part over several devices takes the worst status among them.
SEVERITY = (
    Status.ERROR,
    Status.NOT_CONFIRMED,
    Status.NEEDS_CONFIRMATION,
    Status.DECLINED,
    Status.OUT_OF_SCOPE,
    Status.DONE,
    Status.OK,
)
#: Reasons a command cannot be built that are a failure, not "it can't do that".
ERRORS = frozenset(
    {
        "no_command_topic",
        "template_refused",
        "template_failed",
        "out_of_range",
        "no_value",
        "unknown_color",
    }
)
DECLINES = frozenset({"needs_code"})


#: The slots that carry the value of a set-to request, in the order they are shown.
VALUE_SLOTS = (
    "brightness",
    "position",
    "percentage",
    "temperature",
    "humidity",
    "value",
    "color_temp",
    "color",
    "mode",
    "preset",
    "option",
)


def asked_value(part: Part) -> str | None:
    """The value a part asks for, as a reply shows it ("100", "warm white")."""
    for name in VALUE_SLOTS:
        raw = part.slots.get(name)
        if isinstance(raw, bool) or raw is None:
            continue
        if isinstance(raw, int | float):
            return format_number(raw)
        if isinstance(raw, str) and raw.strip():
            return raw.strip()
    return None


def toggled(device: Device, cached: DeviceState | None) -> str | None:
    """The opposite of what ``device`` last said (turn_off when on, turn_on when off);
    None when it never said or is unavailable: a guess could switch it the wrong way."""
    if cached is None or cached.available is False:
        return None
    on = state_matches(device, cached.values, "on")
    if on is None:
        return None
    return "turn_off" if on else "turn_on"


class Commands:
    """Actions on devices for one MQTT source."""

    def __init__(self, source: MqttSource) -> None:
        self.source = source
        self.words = source.words

    async def run(
        self, devices: list[Device], action: str, part: Part, request: Request
    ) -> PartAnswer:
        if len(devices) > 1 and not request.confirmed:
            asked = [(d, self.waiting(d, action, part)) for d in devices]
            waiting = [(d, found) for d, found in asked if found is not None]
            if waiting:
                conj = f" {self.words.say('and')} "
                question = self.words.say("confirm", action=conj.join(p for _d, p in waiting))
                data = {"devices": [d.name for d, _p in waiting], "action": action}
                return self.source.reply(question, Status.NEEDS_CONFIRMATION, data)
        answers = await asyncio.gather(*(self.one(d, action, part, request) for d in devices))
        if len(answers) == 1:
            return answers[0]
        return self._combine(devices, list(answers))

    def _combine(self, devices: list[Device], answers: list[PartAnswer]) -> PartAnswer:
        status = min((a.status for a in answers), key=SEVERITY.index)
        said = [a.data.get("said") for a in answers]
        if all(a.status == Status.DONE for a in answers) and len(set(said)) == 1 and said[0]:
            names = self.words.names([d.name for d in devices], limit=len(devices))
            text = self.words.say("done_many", names=names, state=said[0])
        else:
            text = "; ".join(a.text for a in answers)
        data = {"devices": [{"status": str(a.status), **a.data} for a in answers]}
        return self.source.reply(text, status, data)

    async def one(self, device: Device, action: str, part: Part, request: Request) -> PartAnswer:
        source, words = self.source, self.words
        if device.refused is not None:
            return source.answers.refused(device.name, device.refused)
        asked_for = action
        action = self.resolve(device, action, part)
        data: dict[str, Any] = {"device": device.name, "device_id": device.id, "action": action}
        if asked_for == "toggle":
            data["asked"] = asked_for  # the answer says what it became
        if action not in TYPE_ACTIONS.get(device.type, ()):
            key = "read_only" if device.type in READ_ONLY else "cannot"
            # "I can't set the garage door to 100 %": the value asked for, as said
            asked = words.action(action, device, asked_value(part))
            text = words.say(key, device, action=asked, kind=words.kind(device))
            return source.reply(text, Status.OUT_OF_SCOPE, data)
        if action == "toggle":  # a type that toggles, but its state is not known
            text = words.say("toggle_unknown", device)
            return source.reply(text, Status.DECLINED, data, reason="state_unknown")
        if not device.can(action):
            text = words.say("not_allowed", device, action=words.action(action, device))
            return source.reply(text, Status.DECLINED, data, allow=list(device.allow or []))
        cached = source.cache.get(device.id)
        state = cached.values if cached is not None else {}
        act, problem = source.values.act(device, action, part, state)
        phrase = words.action(act.action if act else action, device, self._shown(device, act))
        if act is None or problem is not None:
            text = words.say(
                problem or "no_value", device, action=phrase, color=part.slots.get("color")
            )
            return source.reply(text, Status.ERROR, data)
        # The gate: every command to a device passes here before it is encoded and sent.
        waits = source.settings.confirm.waits(device, act, state, asked_for)
        if waits is not None and not request.confirmed:
            data["waits_for"] = waits
            return source.reply(
                words.say("confirm", device, action=phrase), Status.NEEDS_CONFIRMATION, data
            )
        try:
            commands = codec.encode(device, act, state)
        except Unsupported as exc:
            status = (
                Status.ERROR
                if exc.reason in ERRORS
                else (Status.DECLINED if exc.reason in DECLINES else Status.OUT_OF_SCOPE)
            )
            text = words.say(
                exc.reason, device, action=phrase, detail=exc.detail, color=part.slots.get("color")
            )
            return source.reply(text, status, data, reason=exc.reason)
        data["commands"] = [
            {"topic": c.topic, "payload": c.text, "qos": c.qos, "retain": c.retain}
            for c in commands
        ]
        if not source.started:
            return source.reply(words.say("not_started", device), Status.ERROR, data)
        if cached is not None and cached.available is False:
            return source.reply(words.say("unavailable_command", device), Status.ERROR, data)
        return await self._send(device, act, commands, request, data)

    def waiting(self, device: Device, action: str, part: Part, later: bool = False) -> str | None:
        """What carrying out ``action`` on ``device`` would be asked as ("set the garage
        door to 100 %") when it waits for a yes; None when it would run without one.
        Now: by the device's last reported state, as `one` decides. ``later`` (a plan
        or a watch, set now and run when its state is unknown): by any state it may be
        in then, so whatever could open, raise or unlock it asks now."""
        if device.refused is not None:
            return None
        if later and action == "toggle":
            candidates = [self.source.values.refine(device, a, part) for a in TOGGLES]
        else:
            candidates = [self.resolve(device, action, part)]
        cached = None if later else self.source.cache.get(device.id)
        state = cached.values if cached is not None else {}
        for resolved in candidates:
            if not device.can(resolved):
                continue
            act, _problem = self.source.values.act(device, resolved, part, state)
            if act is None and not later:
                continue  # `one` says the value is missing, and sends nothing
            act = act or Act(resolved)  # no value to judge by yet: as if it may open
            if self.source.settings.confirm.waits(device, act, state, action) is not None:
                return self.words.action(act.action, device, self._shown(device, act))
        return None

    def resolve(self, device: Device, action: str, part: Part) -> str:
        """The action carried out on ``device``: a toggle by its last reported state
        (left ``toggle`` when unknown), then the source's own refinements."""
        if action == "toggle" and action in TYPE_ACTIONS.get(device.type, ()):
            action = toggled(device, self.source.cache.get(device.id)) or action
        return self.source.values.refine(device, action, part)

    def _shown(self, device: Device, act: Act | None) -> str | None:
        if act is None:
            return None
        if act.color is not None:
            return act.color.name
        if act.temperature is not None:
            return self.words.quantity(device, act.temperature)
        if act.kelvin is not None:
            return f"{act.kelvin} K"
        for found in (
            act.brightness,
            act.position,
            act.tilt,
            act.percentage,
            act.humidity,
            act.value,
        ):
            if found is not None:
                return format_number(found)
        for text in (
            act.preset,
            act.mode,
            act.fan_mode,
            act.swing_mode,
            act.fan_speed,
            act.option,
            act.effect,
            act.direction,
        ):
            if text is not None:
                return text
        return None

    async def _send(
        self,
        device: Device,
        act: Act,
        commands: list[Command],
        request: Request,
        data: dict[str, Any],
    ) -> PartAnswer:
        source, words = self.source, self.words
        loop = asyncio.get_running_loop()
        timeouts = source.settings.timeouts
        start = loop.time()
        budget = max(0.05, min(request.timeout_s, timeouts.answer_s))
        confirm_s = min(timeouts.confirm_s, budget)
        send_deadline = start + confirm_s
        seconds = format_number(timeouts.confirm_s)
        broker = source.settings.broker.address
        prov = {"origin": device.origin, "qos": max(c.qos for c in commands)}
        link = source.link
        if link.down_until_after(send_deadline):
            reason = link.last_error or "not connected"
            text = words.say("broker_down", device, broker=broker, reason=reason)
            return source.reply(text, Status.ERROR, data, **prov, broker=broker)
        watch = (
            source.cache.watch(device.id, codec.expectation(device, act), loop)
            if source.answers.has_state(device)
            else None
        )
        try:
            for command in commands:
                outcome = await link.publish(
                    command.topic, command.payload, send_deadline, command.qos, command.retain
                )
                if not outcome.sent:
                    reason = link.last_error or "not connected"
                    text = words.say("broker_down", device, broker=broker, reason=reason)
                    return source.reply(text, Status.ERROR, data, **prov, broker=broker)
                if not outcome.acknowledged:
                    text = words.say("not_acknowledged", device, broker=broker, seconds=seconds)
                    return source.reply(text, Status.NOT_CONFIRMED, data, **prov)
            if watch is None:
                return source.reply(
                    words.say("not_reported", device), Status.NOT_CONFIRMED, data, **prov
                )
            sent_at = loop.time()
            echo_deadline = min(sent_at + timeouts.confirm_s, start + budget)
            echoed = await watch.wait(echo_deadline - loop.time())
        finally:
            if watch is not None:
                watch.cancel()
        if echoed is None:
            text = words.say("not_confirmed", device, seconds=seconds)
            return source.reply(text, Status.NOT_CONFIRMED, data, **prov)
        data["state"] = echoed.values
        data["said"] = self._said_state(device, echoed.values)
        return source.reply(
            words.say("done", sentence=self._done_sentence(device, act, echoed.values)),
            Status.DONE,
            data,
            **prov,
            confirmed_by="state echo",
        )

    def _done_sentence(self, device: Device, act: Act, values: dict[str, Any]) -> str:
        if act.action == "set_color" and act.color is not None:
            return self.words._sentence("color", device, color=act.color.name)
        return self.words.describe(device, values) or device.name

    def _said_state(self, device: Device, values: dict[str, Any]) -> str | None:
        state = values.get("state")
        if device.type in ("light", "switch", "fan", "lock", "cover", "valve") and isinstance(
            state, str
        ):
            if device.type == "light" and 0 < (values.get("brightness") or 100) < 100:
                return None
            return self.words.state_word(device, state)
        return None
