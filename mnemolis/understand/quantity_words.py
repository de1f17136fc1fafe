"""The quantity a request names by its word: "set the humidity to 50%" is a humidity.

A bare "50%" fits a light's brightness, a blind's position and a humidifier's
humidity alike; the word of the quantity ("humidity") says which value slot is
meant, so an intent that reads the number into another slot is not meant.
The words are the ``quantity`` slot of `intents/en/values.yaml` (value: the
value slot's name). A unit said after a number ("20 degrees") is no value of a
slot whose ``units`` leave it out (a brightness is in percent).
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from mnemolis.config import Config
from mnemolis.understand.text import TextPipeline, Token

QUANTITY_SLOT = "quantity"


class QuantityWords:
    """Finds the value slots a part names by word."""

    def __init__(self, config: Config, text: TextPipeline) -> None:
        spec = config.slots.get(QUANTITY_SLOT)
        spoken = spec.values if spec is not None else {}
        self.forms = sorted(
            ((tuple(text.words(w)), slot) for w, slot in spoken.items() if w.strip()),
            key=lambda f: len(f[0]),
            reverse=True,
        )
        # a form can only start on its first word: the forms by it (a word is never empty)
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for form, value in self.forms:
            self._by_first.setdefault(form[0], []).append((form, value))
        self.number_slots = {n for n, s in config.slots.items() if s.type == "number"}
        # "20 degrees": the slots each unit marks
        self.units: dict[str, set[str]] = {}
        for name, slot in config.slots.items():
            if slot.type == "number":
                for unit in slot.units:
                    self.units.setdefault(unit, set()).add(name)

    def named(
        self, tokens: Sequence[Token], start: int, end: int, inside_names: Set[int] = frozenset()
    ) -> set[str]:
        """The value slots whose quantity words are in tokens[start:end], outside the
        device names there ("the dhw disinfection temperature" names a number entity,
        not a temperature to set)."""
        found: set[str] = set()
        for s in range(start, end):
            for form, slot in self._by_first.get(tokens[s].lower, ()):
                if s + len(form) > end or any(s + k in inside_names for k in range(len(form))):
                    continue
                if all(tokens[s + k].lower == w for k, w in enumerate(form)):
                    found.add(slot)
        return found

    def units_said(self, tokens: Sequence[Token], start: int, end: int) -> set[str]:
        """The units said right after a number in tokens[start:end] ("20 degrees")."""
        return {
            tokens[i + 1].lower
            for i in range(start, end - 1)
            if tokens[i].is_num and tokens[i + 1].lower in self.units
        }
