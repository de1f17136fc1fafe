"""Questions about devices, answered from the state cache, and conditions evaluated.

"is the front door locked", "what is the boiler set to", "is the robot
docked": the last reading, said in the words of `sources/mqtt.yaml`, with a
yes or a no when a state was asked about, its age when it is old, and what
went wrong when there is none (unavailable, no state topic, the broker
down, a config that was refused, a reading past its ``expire_after``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, PartAnswer, Status, Truth
from mnemolis.sources.mqtt import codec
from mnemolis.sources.mqtt.sets import SetAnswers, set_question
from mnemolis.sources.mqtt.state import DeviceState
from mnemolis.sources.mqtt.truth import state_matches

if TYPE_CHECKING:
    from mnemolis.sources.mqtt.source import MqttSource

log = logging.getLogger(__name__)


def wanted_state(part: Part) -> str | None:
    wanted = part.slots.get("state")
    return wanted if isinstance(wanted, str) else None


class Answers:
    """State questions and conditions for one MQTT source."""

    def __init__(self, source: MqttSource) -> None:
        self.source = source
        self.words = source.words
        self.sets = SetAnswers(self)

    def refused(self, name: str, reason: str) -> PartAnswer:
        text = self.words.say("refused_device", name=name, reason=reason)
        return self.source.reply(text, Status.ERROR, {"device": name, "refused": reason})

    def none_named(self, part: Part, everyone: list[str]) -> PartAnswer:
        """No device in the part: none of the type asked for ("there is no vacuum in the
        living room", understanding's ``missing``), else which device is meant."""
        room = part.slots.get("room")
        missing = part.provenance.get("missing")
        unknown = part.provenance.get("unknown")
        if isinstance(unknown, str):
            return self.unknown(unknown, missing, everyone)
        if isinstance(missing, str):
            kind = self.words.kind_of(missing)
            key = "no_kind_in_room" if isinstance(room, str) else "no_kind"
            text = self.words.say(key, kind=kind, room=room)
            return self.source.reply(text, Status.ERROR, {"missing": missing, "known": everyone})
        devices = self.source.registry.devices()
        in_room = sorted(d.name for d in devices if room and d.room == room)
        if in_room:
            text = self.words.say("which_in_room", room=room, names=self.words.names(in_room))
        else:
            text = self.words.say("which_device", names=self.words.names(everyone))
        return self.source.reply(text, Status.ERROR, {"known": everyone})

    def unknown(self, words: str, kind: Any, everyone: list[str]) -> PartAnswer:
        """ "the lights in the cellar", "the ninja scene": a name the home does not have,
        with the areas (or the devices of that kind) it has; never another one."""
        data: dict[str, Any] = {"unknown": words}
        if isinstance(kind, str):
            named = sorted(d.name for d in self.source.registry.devices() if d.type == kind)
            data["known"] = named or everyone
            text = self.words.say(
                "unknown_device", name=words, names=self.words.names(named or everyone)
            )
        else:
            areas = sorted(self.source.registry.rooms())
            data["areas"] = areas
            # "all the lights in here" from where no room is known: which room, never all
            here = words.lower() in self.source.config.language.areas.here
            key = "unknown_here" if here else "unknown_area"
            text = self.words.say(key, name=words, names=self.words.names(areas))
        return self.source.reply(text, Status.ERROR, data)

    def has_state(self, device: Device) -> bool:
        return bool(codec.state_roles(device))

    def expired(self, device: Device, state: DeviceState) -> bool:
        limit = device.config.get("expire_after")
        age = state.age(self.source.cache.clock())
        return isinstance(limit, int) and limit > 0 and age is not None and age > limit

    def state(self, devices: list[Device], part: Part) -> PartAnswer:
        kind = set_question(part)
        if kind is not None:
            return self.sets.answer(kind, devices, part)
        answers = [self.one(device, part) for device in devices]
        if len(answers) == 1:
            return answers[0]
        worst = (Status.ERROR, Status.OK)
        status = next((s for s in worst if any(a.status == s for a in answers)), Status.OK)
        data = {"devices": [{"status": str(a.status), **a.data} for a in answers]}
        return self.source.reply("; ".join(a.text for a in answers), status, data)

    def one(self, device: Device, part: Part) -> PartAnswer:
        if device.refused is not None:
            return self.refused(device.name, device.refused)
        state = self.source.cache.get(device.id)
        wanted = wanted_state(part)
        data: dict[str, Any] = {"device": device.name, "device_id": device.id}
        if state is not None:
            data["available"] = state.available
        if state is None or not state.values:
            return self.source.reply(self.no_reading(device, state), Status.ERROR, data)
        data["state"] = dict(state.values)
        age = state.age(self.source.cache.clock())
        data["age_s"] = round(age, 1) if age is not None else None
        if state.available is False:
            word = (
                self.words.state_word(device, state.values["state"])
                if isinstance(state.values.get("state"), str)
                else self.words.describe(device, state.values)
            )
            if age is not None and word:
                text = self.words.say(
                    "unavailable_last", device, state=word, age=self.words.age(age)
                )
            else:
                text = self.words.say("unavailable_state", device)
            return self.source.reply(text, Status.ERROR, data)
        if self.expired(device, state):
            text = self.words.say("expired", device, age=self.words.age(age or 0))
            return self.source.reply(text, Status.ERROR, data)
        attribute = part.slots.get("attribute")
        sentence = (
            self.words.attribute(device, attribute, state.values)
            if isinstance(attribute, str)
            else None
        ) or self.words.describe(device, state.values)
        if sentence is None:
            return self.source.reply(self.no_reading(device, None), Status.ERROR, data)
        truth = state_matches(device, state.values, wanted)
        if wanted is not None or device.type == "binary_sensor":
            data["truth"] = "unknown" if truth is None else str(truth).lower()
        if wanted is not None and truth is not None:
            sentence = self.words.say("yes" if truth else "no", sentence=sentence)
        stale = self.source.settings.timeouts.stale_s
        if age is not None and age > stale:
            sentence = self.words.say("old_reading", sentence=sentence, age=self.words.age(age))
        return self.source.reply(sentence, Status.OK, data, origin=device.origin)

    def no_reading(self, device: Device, state: DeviceState | None) -> str:
        source = self.source
        if state is not None and state.available is False:
            return self.words.say("unavailable_state", device)
        if not self.has_state(device):
            return self.words.say("no_state_topic", device)
        if not source.link.connected:
            reason = source.link.last_error or "not connected yet"
            return self.words.say(
                "broker_down_state", device, broker=source.settings.broker.address, reason=reason
            )
        return self.words.say("no_reading", device)

    def evaluate(self, part: Part) -> Evaluation:
        try:
            return self._evaluate(part)
        except Exception as exc:  # a condition that cannot be checked is unknown, not a crash
            log.exception("the MQTT source failed to evaluate %r", part.text[:120])
            return Evaluation(Truth.UNKNOWN, f"the MQTT source failed: {exc}")

    def _evaluate(self, part: Part) -> Evaluation:
        devices, problem = self.source.devices_for(part)
        if problem is not None:
            return Evaluation(Truth.UNKNOWN, problem.text, problem.data)
        wanted = wanted_state(part)
        truths: list[bool | None] = []
        sentences: list[str] = []
        for device in devices:
            if device.refused is not None:
                truths.append(None)
                sentences.append(self.refused(device.name, device.refused).text)
                continue
            state = self.source.cache.get(device.id)
            if state is None or not state.values or state.available is False:
                truths.append(None)
                sentences.append(
                    self.no_reading(device, state)
                    if state is None or not state.values
                    else self.words.say("unavailable_state", device)
                )
                continue
            truths.append(state_matches(device, state.values, wanted))
            sentences.append(self.words.describe(device, state.values) or device.name)
        if part.slots.get("quantifier") == "any":
            # "if any window is open": one is enough, and all must say no for a no
            if any(t is True for t in truths):
                truth = Truth.TRUE
            elif truths and all(t is False for t in truths):
                truth = Truth.FALSE
            else:
                truth = Truth.UNKNOWN
        elif any(t is False for t in truths):
            truth = Truth.FALSE
        elif truths and all(t is True for t in truths):
            truth = Truth.TRUE
        else:
            truth = Truth.UNKNOWN
        data = {"devices": [d.name for d in devices], "wanted": wanted}
        return Evaluation(truth, "; ".join(sentences), data)
