"""What kept items are called in answers: "the pasta timer", "the alarm for
tomorrow at 7:00", "the plan to turn off the porch light at 23:00"."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mnemolis.sources.timers.settings import Replies
from mnemolis.sources.timers.store import Item
from mnemolis.sources.timers.times import Speaker


class Describer:
    def __init__(self, replies: Replies, speaker: Speaker) -> None:
        self.replies = replies
        self.speaker = speaker

    def moment(self, at: float) -> datetime:
        return datetime.fromtimestamp(at, self.speaker.zone)

    def left(self, item: Item, now: float) -> float:
        if item.state == "paused" and item.remaining_s is not None:
            return max(0.0, item.remaining_s)
        return max(0.0, (item.due_at or now) - now)

    def time(self, item: Item, now: float) -> str:
        if item.due_at is None:
            return ""
        return self.speaker.time(self.moment(item.due_at), self.moment(now))

    def timer_length(self, seconds: float) -> str:
        """ "10 minute" as in "your 10 minute timer"."""
        return self.speaker.duration(seconds, adjective=True)

    def what(self, item: Item, now: float) -> str:
        say = self.replies.say
        if item.kind == "timer":
            if item.name:
                return say("what_named_timer", name=item.name)
            return say("what_timer", duration=self.timer_length(item.duration_s or 0))
        time = self.time(item, now)
        if item.kind == "alarm":
            return say("what_alarm", time=time)
        if item.kind == "reminder":
            if item.label:
                return say("what_reminder", message=item.label)
            return say("what_reminder_plain", time=time)
        if item.kind == "scheduled":
            return say("what_plan", request=item.label, time=time)
        return say("what_watch", condition=item.label)

    def listing(self, items: Sequence[Item], now: float) -> str:
        """ "the pasta timer (4 minutes left) and the alarm for tomorrow at 7:00"."""
        out = []
        for item in items:
            text = self.what(item, now)
            if item.kind == "timer":
                left = self.speaker.duration(self.left(item, now))
                text = self.replies.say("what_left", what=text, left=left)
            out.append(text)
        return self.joined(out)

    def joined(self, words: Sequence[str]) -> str:
        if len(words) <= 1:
            return "".join(words)
        return ", ".join(words[:-1]) + f" {self.replies.sentences['and']} " + words[-1]

    def count(self, items: Sequence[Item]) -> str:
        """ "2 timers", "1 alarm", "3 timers or alarms"."""
        kinds = {i.kind for i in items}
        kind = kinds.pop() if len(kinds) == 1 else "any"
        return f"{len(items)} {self.speaker.kind(kind, many=len(items) != 1)}"
