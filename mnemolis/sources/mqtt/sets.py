"""Questions over sets of devices, answered from the state cache.

"how many lights are on" (count), "which windows are open" (which), "are any
doors unlocked" (any), "is everything off" (all): the device slot lists every
device asked about, and the answer counts or names those in the state asked
about, in the words of `sources/mqtt.yaml` ("3 lights are on: the kitchen
light, ...", "no, no windows are open"). A device whose reading is missing
or unavailable is never counted as either; the answer says it can't tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.sources.base import PartAnswer, Status
from mnemolis.sources.mqtt.truth import state_matches

if TYPE_CHECKING:
    from mnemolis.sources.mqtt.answers import Answers

#: The set questions by intent; a ``quantifier`` slot (any | all) makes the others.
SET_INTENTS = {"device.count": "count", "device.which": "which"}
QUANTIFIERS = ("any", "all")


def set_question(part: Part) -> str | None:
    """count | which | any | all, or None for a question about each device."""
    kind = SET_INTENTS.get(part.intent or "")
    if kind is not None:
        return kind
    quantifier = part.slots.get("quantifier")
    return quantifier if quantifier in QUANTIFIERS else None


@dataclass
class Tally:
    """The devices of a set, sorted by what their readings say."""

    matching: list[Device] = field(default_factory=list)
    other: list[Device] = field(default_factory=list)
    unknown: list[Device] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.matching) + len(self.other) + len(self.unknown)


class SetAnswers:
    """Count, list, any and all over the devices one part asks about."""

    def __init__(self, answers: Answers) -> None:
        self.answers = answers
        self.source = answers.source
        self.words = answers.words

    def tally(self, devices: list[Device], wanted: str | None) -> Tally:
        tally = Tally()
        for device in devices:
            state = self.source.cache.get(device.id)
            if device.refused is not None or state is None or not state.values:
                tally.unknown.append(device)
                continue
            if state.available is False or self.answers.expired(device, state):
                tally.unknown.append(device)
                continue
            truth = state_matches(device, state.values, wanted) if wanted else None
            if truth is None and wanted is not None:
                tally.unknown.append(device)
            elif truth or wanted is None:
                tally.matching.append(device)
            else:
                tally.other.append(device)
        return tally

    def noun(self, devices: list[Device]) -> str:
        """What the set is called: "windows", "lights", else "devices"."""
        table = self.words.replies.get("set_nouns") or {}
        keys = {d.device_class or d.type for d in devices}
        if len(keys) == 1:
            key = next(iter(keys))
            if isinstance(table.get(key), str):
                return str(table[key])
        types = {d.type for d in devices}
        if len(types) == 1 and isinstance(table.get(next(iter(types))), str):
            return str(table[next(iter(types))])
        default = table.get("default")
        return default if isinstance(default, str) else "devices"

    def answer(self, kind: str, devices: list[Device], part: Part) -> PartAnswer:
        raw = part.slots.get("state")
        wanted = raw if isinstance(raw, str) else None
        tally = self.tally(devices, wanted)
        room = part.slots.get("room")
        where = self.words.say("set_where", room=room) if isinstance(room, str) and room else ""
        noun = self.noun(devices)
        state = self.words.state_name(wanted) if wanted else ""
        fields: dict[str, Any] = {"noun": noun, "state": state, "where": where}
        text = self._sentence(kind, tally, wanted, fields)
        if tally.unknown and (tally.matching or tally.other):
            text += "; " + self.words.say(
                "set_unknown", names=self.words.names(d.name for d in tally.unknown)
            )
        data: dict[str, Any] = {
            "question": kind,
            "wanted": wanted,
            "devices": [d.name for d in devices],
            "matching": [d.name for d in tally.matching],
            "other": [d.name for d in tally.other],
            "unknown": [d.name for d in tally.unknown],
            "count": len(tally.matching),
        }
        if kind in QUANTIFIERS:
            data["truth"] = self._truth(kind, tally)
        status = Status.OK if tally.matching or tally.other else Status.ERROR
        return self.source.reply(text, status, data)

    @staticmethod
    def _truth(kind: str, tally: Tally) -> str:
        if kind == "any":
            if tally.matching:
                return "true"
            return "unknown" if tally.unknown else "false"
        if tally.other:
            return "false"
        return "unknown" if tally.unknown or not tally.matching else "true"

    def _sentence(self, kind: str, tally: Tally, wanted: str | None, fields: dict[str, Any]) -> str:
        say, names = self.words.say, self.words.names
        matching = [d.name for d in tally.matching]
        count = len(matching)
        verb = "is" if count == 1 else "are"
        if not tally.total:  # an empty set: nothing to count, and no "all 0" of it
            return say("set_empty", **fields)
        if wanted is not None and not tally.matching and not tally.other:
            unknown = [d.name for d in tally.unknown]  # nothing known: neither yes nor no
            are = "is" if len(unknown) == 1 else "are"
            return say("set_cannot_tell", names=names(unknown), are=are, **fields)
        if wanted is None:
            listed = [d.name for d in (*tally.matching, *tally.other, *tally.unknown)]
            return say("set_listed", count=len(listed), names=names(listed), **fields)
        if kind == "count":
            if count == 0:
                return say("set_count_none", are="are", **fields)
            if not tally.other and not tally.unknown and count > 1:
                return say("set_count_all", count=count, are=verb, **fields)
            key = "set_count_one" if count == 1 else "set_count"
            return say(key, count=count, names=names(matching), are=verb, **fields)
        if kind == "which":
            if count == 0:
                return say("set_which_none", are="are", **fields)
            return say("set_which", names=names(matching), are=verb, **fields)
        if kind == "any":
            if count == 0:
                return say("set_any_no", are="are", **fields)
            return say("set_any_yes", names=names(matching), are=verb, **fields)
        # all
        other = [d.name for d in tally.other]
        if other:
            verb = "is" if len(other) == 1 else "are"
            return say("set_all_no", names=names(other), are=verb, **fields)
        if tally.unknown or count == 1:  # "yes, all 1" is no answer; unknown ones are no yes
            key = "set_which" if tally.unknown else "set_any_yes"
            return say(key, names=names(matching), are=verb, **fields)
        return say("set_all_yes", count=count, are=verb, **fields)
