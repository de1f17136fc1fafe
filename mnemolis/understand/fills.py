"""What slot extraction found in one part: each slot's value and where it came from.

Its own module so that the readers of slot values (devices in `slots`, numbers and
value words in `values`) share the result without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SlotFill:
    """One slot value and where it came from."""

    name: str
    value: Any
    start: int = -1  # token range in the analysed text; -1 when not from the text
    end: int = -1
    how: str = "exact"  # exact, fuzzy:0.91, noun, room, all, unit, pattern, topic, context, ...
    #: Several values of one slot ("ham and olives"): where each was said; the words
    #: between them are not the slot's.
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def tokens(self) -> list[int] | range:
        if self.spans:
            return [i for s, e in self.spans for i in range(s, e)]
        return range(self.start, self.end) if self.start >= 0 else range(0)


@dataclass
class SlotResult:
    fills: dict[str, SlotFill] = field(default_factory=dict)
    options: list[str] = field(default_factory=list)  # ambiguous device candidates
    covered: set[int] = field(default_factory=set)
    wrong_type: bool = False  # the named device cannot do what the intent does
    #: A name said exactly, of a device of another kind, taken for the device of the
    #: intent's kind named with its words ("lock the front door": the front door lock)
    stood_in: bool = False
    implied: bool = False  # no device was named; the intent's own type stands in
    missing: str | None = None  # the device type asked for, with no device of it there
    unknown: str | None = None  # the words of an area or a device the home does not have
    left_out: list[str] = field(default_factory=list)  # "... except the kitchen": taken out
    exclusion: Any = None  # what "except ..." takes out (`exclusion.LeftOut`), for readings
    #: The list values read, with what each beat (`list_values.Reading`), for explain.
    readings: list[Any] = field(default_factory=list)

    def values(self) -> dict[str, Any]:
        return {name: fill.value for name, fill in self.fills.items()}
