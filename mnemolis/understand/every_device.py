"""Phrases that are a whole request about every device an intent acts on: "lock up".

`questions.every_device` in the intents YAML lists them per intent ("lock up",
"turn everything off"). Such a part needs no device: it means every device
of the intent's types that can do its action, in the area when one is named.
It is a request of its own, so decomposition never makes it the bare verb of
the next part ("lock up and turn off the porch light").
"""

from __future__ import annotations

from mnemolis.config import Config, IntentSpec
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.names import NameIndex
from mnemolis.understand.question_scope import Scope
from mnemolis.understand.slots import SlotFill, SlotResult
from mnemolis.understand.text import TextPipeline


class EveryDevice:
    """Finds every-device phrases and fills the device slot with every device meant."""

    def __init__(self, config: Config, text: TextPipeline, names: NameIndex, scope: Scope) -> None:
        self.names = names
        self.scope = scope
        self.quiet = config.language.stop_words | config.language.filler_words
        self.every = {
            intent: sorted({tuple(text.words(p)) for p in phrases}, key=len, reverse=True)
            for intent, phrases in config.questions.every_device.items()
        }

    def every_phrase(self, a: Analysis, start: int, end: int, intent: str) -> range | None:
        """Where a phrase meaning every device of ``intent`` ("lock up") makes up the
        whole of tokens[start:end] but for quiet words and a room."""
        toks = a.tokens
        for form in self.every.get(intent, []):
            for s in range(start, end - len(form) + 1):
                if all(toks[s + k].lower == w for k, w in enumerate(form)):
                    return range(s, s + len(form))
        return None

    def is_every(self, a: Analysis, start: int, end: int) -> bool:
        """True when the tokens are only an every-device phrase ("lock up"): a request
        of its own, never the verb of the next part."""
        for intent in self.every:
            found = self.every_phrase(a, start, end, intent)
            if found is not None and not self._rest(a, start, end, set(found)):
                return True
        return False

    def _rest(self, a: Analysis, start: int, end: int, covered: set[int]) -> list[int]:
        rooms = {i for h in a.names if h.kind == "room" for i in range(h.start, h.end)}
        return [
            i
            for i in range(start, end)
            if i not in covered
            and i not in rooms
            and not a.tokens[i].is_punct
            and a.tokens[i].lower not in self.quiet
        ]

    def fill(self, a: Analysis, start: int, end: int, intent: IntentSpec, out: SlotResult) -> None:
        """The device slot of a part that is only an every-device phrase."""
        if "device" in out.fills or "device" not in intent.slots:
            return  # (options are no question here: "lock" in "lock up" is the verb)
        found = self.every_phrase(a, start, end, intent.name)
        if found is None or self._rest(a, start, end, set(found)):
            return
        members = [
            d
            for d in self.names.devices.values()
            if d.type in intent.device_types and intent.action and d.can(intent.action)
        ]
        areas = self.scope.areas(a, start, end, out)
        if areas is not None:
            members = [d for d in members if d.room in areas]
        if not members:
            return
        names = self.scope.labels(members)
        value: str | list[str] = names[0] if len(names) == 1 else names
        out.fills["device"] = SlotFill("device", value, found.start, found.stop, "every")
        out.covered.update(found)
        out.implied = False
        out.options = []
