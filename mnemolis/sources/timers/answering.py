"""What every answer of the timers source shares: its sentences, the clock, new
items, limits, and resolving a spoken time."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemolis.core.plan import Part, When
from mnemolis.sources.base import PartAnswer, Request, Status, WaitsForYes
from mnemolis.sources.timers.store import Item
from mnemolis.sources.timers.times import Due, resolve

if TYPE_CHECKING:
    from mnemolis.sources.timers.source import TimersSource

SOURCE = "timers"
#: Without a source to judge the effect (`base.WaitsForYes`), these ask when set.
GUARDED_TYPES = ("cover", "valve", "lock", "alarm_control_panel")
OPENING_ACTIONS = ("open", "unlock", "disarm", "set_position", "set_tilt", "turn_on", "toggle")


def positive_number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


class Answering:
    """The helpers of `Requests` and `Managing`."""

    def __init__(self, source: TimersSource) -> None:
        self.source = source

    def reply(
        self, key: str, status: Status, data: dict[str, Any] | None = None, **fields: Any
    ) -> PartAnswer:
        settings = self.source.settings
        assert settings is not None
        return PartAnswer(settings.replies.say(key, **fields), status, SOURCE, data or {})

    def now(self) -> float:
        return self.source.now()

    def local(self, at: float) -> datetime:
        return self.source.describe.moment(at)

    def new_item(self, kind: str, request: Request, due: float, **fields: Any) -> Item:
        origin = replace(request.origin, session=request.session)
        return Item(kind, request.session, origin, due, **fields)

    def room_origin(self, item: Item, room: Any) -> None:
        if isinstance(room, str) and room:
            item.origin = item.origin.with_room(room)  # "the kitchen timer" rings there

    def refuse_more(self) -> PartAnswer | None:
        settings = self.source.settings
        assert settings is not None
        if len(self.source.items) >= settings.max_items:
            return self.reply(
                "too_many", Status.DECLINED, {"reason": "too_many"}, count=len(self.source.items)
            )
        return None

    def too_far(self, seconds: float) -> PartAnswer | None:
        settings = self.source.settings
        assert settings is not None
        if seconds > settings.max_duration_s:
            limit = self.source.speaker.duration(settings.max_duration_s)
            return self.reply("too_far", Status.DECLINED, {"reason": "too_far"}, limit=limit)
        return None

    def due(self, value: Any) -> tuple[When | None, Due | None]:
        if not isinstance(value, dict):
            return None, None
        settings = self.source.settings
        assert settings is not None
        when = When.from_dict(value)
        return when, resolve(when, self.local(self.now()), settings.reminder_time)

    def timed(self, item: Item, due: Due) -> None:
        """Keep the wall-clock time of an item set for a clock time."""
        settings = self.source.settings
        assert settings is not None and due.at is not None
        item.follows_clock = due.follows_clock
        item.local_time = due.at.replace(tzinfo=None).isoformat()
        item.zone = settings.zone_name

    def data(self, item: Item) -> dict[str, Any]:
        return {"id": item.id, "kind": item.kind, "due_at": item.due_at}

    def when_words(self, when: When, due: Due) -> str:
        settings = self.source.settings
        assert settings is not None and due.at is not None
        if when.after_s is not None:
            return settings.replies.say("in", duration=self.source.speaker.duration(when.after_s))
        return self.source.speaker.time(due.at, self.local(self.now()))

    def _confirmations(self, parts: list[Part]) -> list[str]:
        """What of ``parts`` would wait for a yes when it runs (unlocking, opening the
        garage door, any position that could raise it), asked by the source that will
        carry it out, judging by the effect in any state the devices may then be in."""
        names: list[str] = []
        for part in parts:
            peer = self.source.peers.get(part.source or "")
            if isinstance(peer, WaitsForYes):
                found = peer.waits_for_yes(part)
            else:  # nobody to judge the effect now: whatever may open asks
                found = self._may_open(part)
            names.extend(n for n in found if n not in names)
        return names

    def _may_open(self, part: Part) -> list[str]:
        """Without the source that will carry it out: the devices of ``part`` whose
        action could open, raise, unlock or disarm one that may be guarded."""
        spec = self.source.config.intent(part.intent)
        action = spec.action if spec is not None else None
        return [
            d.name
            for d in self.devices(part)
            if d is not None
            and action is not None
            and ((d.type in GUARDED_TYPES and action in OPENING_ACTIONS) or action in d.confirm)
        ]

    def devices(self, part: Part) -> list[Any]:
        raw = part.slots.get("device")
        names = [raw] if isinstance(raw, str) else [n for n in raw or [] if isinstance(n, str)]
        registry = self.source.registry
        return [registry.by_name(n) or registry.get(n) for n in names]

    def save(self, item: Item) -> None:
        assert self.source.store is not None
        self.source.store.save(item)
        self.source.schedule(item)


def without_words(text: str, words: str) -> str:
    """ "turn off the porch light" from "in 5 minutes, turn off the porch light"."""
    if words and words in text:
        text = text.replace(words, " ")
    return " ".join(text.replace(" ,", ",").strip(" ,.").split())
