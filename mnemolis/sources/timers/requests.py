"""The timers source's answers: one handler per intent of `intents/en/timers.yaml`.

Setting a timer, an alarm or a reminder is here; a plan (an action with a
schedule) and a watch (a "when" conditional) come as the source's own parts
(`TimersSource.keep`) and are set here too, after a yes where the action
needs one; cancelling, changing and listing are in `manage`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mnemolis.core.plan import Conditional, Part
from mnemolis.sources.base import PartAnswer, Request, Status, Truth
from mnemolis.sources.timers.answering import SOURCE, positive_number, without_words
from mnemolis.sources.timers.manage import Managing
from mnemolis.sources.timers.store import Item
from mnemolis.sources.timers.times import resolve

if TYPE_CHECKING:
    from mnemolis.sources.timers.source import TimersSource

#: What a one-shot request may still do: read, not set (nothing could ring later).
READ_ONLY = ("timer.status",)
Handler = Callable[[Part, Request], Awaitable[PartAnswer]]


class Requests(Managing):
    def __init__(self, source: TimersSource) -> None:
        super().__init__(source)
        self.handlers: dict[str, Handler] = {
            "timer.start": self.start_timer,
            "alarm.set": self.set_alarm,
            "reminder.set": self.set_reminder,
            "timer.cancel": self.cancel,
            "timer.add": self.add,
            "timer.subtract": self.subtract,
            "timer.pause": self.pause,
            "timer.resume": self.resume,
            "timer.status": self.status,
            "timers.plan": self.plan,
            "timers.watch": self.watch,
        }

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        source = self.source
        if source.settings is None:
            return PartAnswer(
                f"sources/timers.yaml is broken: {source.problem}", Status.ERROR, SOURCE
            )
        handler = self.handlers.get(part.intent or "")
        if handler is None:
            return self.reply("store_broken", Status.ERROR, reason=f"no answer for {part.intent}")
        if source.one_shot and part.intent not in READ_ONLY:  # the demo's --ask: its chat
            key = "one_shot_demo" if request.origin.front_end == "demo" else "one_shot"
            return self.reply(key, Status.DECLINED, {"reason": "one_shot"})
        if source.store is None:
            return self.reply("store_broken", Status.ERROR, reason=source.problem or "not started")
        return await handler(part, request)

    # ------------------------------------------------------------------ setting

    async def start_timer(self, part: Part, request: Request) -> PartAnswer:
        seconds = positive_number(part.slots.get("duration"))
        if seconds is None:
            return self.reply("no_duration", Status.ERROR, {"problem": "no_duration"})
        refused = self.too_far(seconds) or self.refuse_more()
        if refused is not None:
            return refused
        name = part.slots.get("timer_name")
        item = self.new_item(
            "timer",
            request,
            self.now() + seconds,
            duration_s=seconds,
            name=name if isinstance(name, str) else None,
        )
        self.room_origin(item, part.slots.get("room"))
        self.source.keep_item(item)
        whole = round(seconds)
        self.source.lifecycle(
            item,
            "started",
            total_seconds=whole,
            name=item.name,
            start_hours=whole // 3600,
            start_minutes=whole % 3600 // 60,
            start_seconds=whole % 60,
        )
        duration = self.source.speaker.duration(seconds)
        key = "named_timer_set" if item.name else "timer_set"
        return self.reply(key, Status.DONE, self.data(item), duration=duration, name=item.name)

    async def set_alarm(self, part: Part, request: Request) -> PartAnswer:
        return await self._at_time("alarm", part, request)

    async def set_reminder(self, part: Part, request: Request) -> PartAnswer:
        return await self._at_time("reminder", part, request)

    async def _at_time(self, kind: str, part: Part, request: Request) -> PartAnswer:
        when, due = self.due(part.slots.get("when"))
        if when is None or due is None or due.at is None:
            key = due.problem if due is not None and due.problem else "no_time"
            time = when.text if when is not None else ""
            return self.reply(key, Status.ERROR, {"problem": key}, time=time)
        refused = self.too_far(due.at.timestamp() - self.now()) or self.refuse_more()
        if refused is not None:
            return refused
        message = part.slots.get("message")
        label = message if isinstance(message, str) else ""
        item = self.new_item(kind, request, due.at.timestamp(), label=label)
        self.timed(item, due)
        self.source.keep_item(item)
        spoken = self.when_words(when, due)
        if kind == "alarm":
            return self.reply("alarm_set", Status.DONE, self.data(item), time=spoken)
        key = "reminder_set" if label else "reminder_set_plain"
        return self.reply(key, Status.DONE, self.data(item), message=label, when=spoken)

    async def plan(self, part: Part, request: Request) -> PartAnswer:
        step = Part.from_dict(part.slots.get("plan") or {})
        when = step.schedule
        settings = self.source.settings
        assert settings is not None
        due = resolve(when, self.local(self.now()), settings.reminder_time) if when else None
        if when is None or due is None or due.at is None:
            key = due.problem if due is not None and due.problem else "no_time"
            return self.reply(key, Status.ERROR, {"problem": key}, time=when.text if when else "")
        refused = self.too_far(due.at.timestamp() - self.now()) or self.refuse_more()
        if refused is not None:
            return refused
        request_text = self.named(step, without_words(step.text, when.text))
        spoken = self.when_words(when, due)
        waiting = self._confirmations([step])
        if waiting and not request.confirmed:
            data = {"devices": waiting, "action": step.intent, "when": spoken}
            return self.reply(
                "scheduled_confirm",
                Status.NEEDS_CONFIRMATION,
                data,
                request=request_text,
                when=spoken,
            )
        item = self.new_item(
            "scheduled",
            request,
            due.at.timestamp(),
            label=request_text,
            payload={"part": step.to_dict()},
            confirmed=request.confirmed,
        )
        self.timed(item, due)
        self.source.keep_item(item)
        return self.reply(
            "scheduled_set", Status.OK, self.data(item), request=request_text, when=spoken
        )

    def named(self, part: Part, text: str) -> str:
        """The request as said, with the device it came to when the words did not name it
        ("turn on the light" after "the kitchen one")."""
        settings = self.source.settings
        assert settings is not None
        found = self.devices(part)
        if len(found) != 1 or found[0] is None or found[0].name in text:
            return text  # named, or "all the lights": the words say it
        return settings.replies.say("plan_devices", request=text, devices=f"the {found[0].name}")

    async def watch(self, part: Part, request: Request) -> PartAnswer:
        step = Conditional.from_dict(part.slots.get("watch") or {})
        cond = step.condition
        asked = " and ".join(
            without_words(p.text, p.schedule.text if p.schedule else "") for p in step.then
        )
        peer = self.source.peer_for(cond)
        if peer is None:
            key = "watch_cannot" if step.then else "watch_cannot_tell"
            return self.reply(
                key, Status.DECLINED, {"reason": "cannot_watch"}, condition=cond.text, request=asked
            )
        found = await peer.evaluate(cond, Request(session=request.session, origin=request.origin))
        truth = found.truth
        if step.negate and truth is not Truth.UNKNOWN:
            truth = Truth.FALSE if truth is Truth.TRUE else Truth.TRUE
        if truth is Truth.TRUE:
            return self.reply("watch_already", Status.OK, {"truth": "true"}, said=found.text)
        if "unknown" in found.data or "known" in found.data:
            return self.reply("watch_unknown", Status.ERROR, dict(found.data), said=found.text)
        refused = self.refuse_more()
        if refused is not None:
            return refused
        waiting = self._confirmations(step.then)
        if waiting and not request.confirmed:
            return self.reply(
                "watch_confirm",
                Status.NEEDS_CONFIRMATION,
                {"devices": waiting},
                request=asked,
                condition=cond.text,
            )
        settings = self.source.settings
        assert settings is not None
        expires = self.now() + settings.watch_limit_s
        item = self.new_item(
            "watch",
            request,
            expires,
            label=cond.text,
            expires_at=expires,
            payload={"watch": step.to_dict()},
            confirmed=request.confirmed,
        )
        self.source.keep_item(item)
        self.source.start_watch(item, cond)
        if step.then:
            return self.reply(
                "watch_set_action", Status.OK, self.data(item), request=asked, condition=cond.text
            )
        return self.reply("watch_set", Status.OK, self.data(item), condition=cond.text)

    # ------------------------------------------------------------------ when due

    def ring_text(self, item: Item, now: float) -> str:
        settings = self.source.settings
        assert settings is not None
        say = settings.replies.say
        if item.kind == "timer":
            if item.name:
                return say("named_timer_done", name=item.name)
            return say(
                "timer_done", duration=self.source.describe.timer_length(item.duration_s or 0)
            )
        if item.kind == "alarm":
            return say("alarm_ring", clock=self.source.speaker.clock(self.local(now)))
        if item.label:
            return say("reminder_say", message=item.label)
        return say("reminder_say_plain")

    def recheck(self, part: Part, label: str, clock: str) -> str | None:
        """Before a plan runs: every device still known, and the action still allowed."""
        settings = self.source.settings
        assert settings is not None
        raw = part.slots.get("device")
        names = [raw] if isinstance(raw, str) else [n for n in raw or [] if isinstance(n, str)]
        spec = self.source.config.intent(part.intent)
        action = spec.action if spec is not None else None
        for name, device in zip(names, self.devices(part), strict=True):
            if device is None:
                return settings.replies.say(
                    "scheduled_gone", request=label, clock=clock, device=name
                )
            if action and not device.can(action):
                return settings.replies.say(
                    "scheduled_not_allowed", request=label, clock=clock, device=device.name
                )
        return None
