"""A binary sensor asked about by a state word of its class and the words of its name.

"is the dishwasher ok", "is the baby crying", "is the freezer too warm", "is
the shed closed": no device is called "dishwasher", but "ok" is a state of the
problem class (`intents/en/device_classes.yaml`) and "dishwasher problem" is
the one sensor of that class whose name holds every other word said. "is it
dark outside": a state word said of "it" asks the sensors of that class in
the area (or, when none is there, those placed nowhere). Only when one sensor
answers; never over a type word said besides ("is the fan on").
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.class_words import ClassWords, word_form
from mnemolis.understand.names import NameHit
from mnemolis.understand.question_scope import Scope
from mnemolis.understand.slots import SlotFill, SlotResult


@dataclass(frozen=True)
class StateNamed:
    """The one sensor meant, and its state in the words said."""

    device: Device
    state: SlotFill


def _name_words(device: Device) -> set[str]:
    return {w for form in device.names for w in form.split()}


class StateNamedFinder:
    """Finds the binary sensor a state word and name words point at, when only one does."""

    def __init__(self, config: Config, words: ClassWords, scope: Scope) -> None:
        self.words = words
        self.scope = scope
        lang = config.language
        self.quiet = lang.stop_words | lang.filler_words
        self.pronouns = set(lang.pronouns)
        self.device_states = config.device_states

    def choose(
        self,
        a: Analysis,
        areas: frozenset[str] | None,
        device: SlotFill | None,
        nouns: list[NameHit],
        out: SlotResult,
        part: tuple[int, int, bool],
    ) -> StateNamed | None:
        """The sensor meant over what the slots hold: nothing named ("is the dishwasher
        ok"), a type word that is the state word ("is it light outside"), or a named
        device that cannot be in the state ("is the washing machine done": its program
        select is never "off"); with the state the slot said, when the class has it.
        ``part``: its start, end and whether it asks of a set."""
        start, end, is_set = part
        if is_set:
            return None  # "which sensors are ok" lists them all
        rooms = {i for h in a.names if h.kind == "room" for i in range(h.start, h.end)}
        found = self.find(a, start, end, areas, rooms)
        if found is None:
            return None
        state = found.state
        same = device is not None and self.scope.device_of(device.value) is found.device
        named_by_name = device is not None and (
            device.how == "exact" or device.how.startswith("fuzzy")
        )
        if same and named_by_name:
            return None  # "is the co alarm going off": named, its state is read as such
        outside = [n for n in nouns if not (state.start <= n.start and n.end <= state.end)]
        if not same and any(self.scope.typed(n.key) for n in outside):
            return None  # "is the fan on": a type word of devices here names them
        said = out.fills.get("state")
        if device is not None and named_by_name:
            value = str(said.value if said is not None else state.value)
            types = {t for t, known in self.device_states.items() if value in known}
            named = self.scope.device_of(device.value)
            if named is None or named.type == "binary_sensor" or named.type in types:
                return None
        dc = self.words.binary_class(found.device)
        longer = said is not None and said.start >= state.start and said.end <= state.end
        if (
            said is not None
            and not longer
            and dc is not None
            and self.words.can_be(dc, str(said.value))
        ):
            return StateNamed(found.device, said)
        return found

    def find(
        self,
        a: Analysis,
        start: int,
        end: int,
        areas: frozenset[str] | None,
        skip: set[int],
    ) -> StateNamed | None:
        """``skip``: tokens that are not name words (the room named)."""
        toks = a.tokens
        devices = self.scope.names.devices
        found: dict[str, StateNamed] = {}
        for dc in self.words.binary.values():
            fill = self.words.state_word(a, dc, start, end)
            if fill is None:
                continue
            said = [
                i
                for i in range(start, end)
                if i not in skip
                and i not in fill.tokens
                and not toks[i].is_punct
                and toks[i].lower not in self.quiet
                and toks[i].lower not in self.pronouns
            ]
            of_class = self.words.members_of(devices, dc, False)
            span = tuple(word_form(toks[i]) for i in fill.tokens)
            if said and dc not in self.words.words.get(span, []):
                # a class word is no state of a name: "is there a water leak" asks them all
                members = [
                    d
                    for d in of_class
                    if all({toks[i].lower, toks[i].lemma} & _name_words(d) for i in said)
                    and (areas is None or d.room in areas)
                ]
            elif fill.start > start and toks[fill.start - 1].lower in self.pronouns:
                # "is it dark outside": of the area, else of no known area
                members = [d for d in of_class if areas is None or d.room in areas]
                if not members and areas is not None:
                    members = [d for d in of_class if d.room is None]
            else:
                continue
            for d in members:
                found[d.id] = StateNamed(d, fill)
        if len(found) != 1:
            return None
        return next(iter(found.values()))
