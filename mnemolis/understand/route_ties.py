"""Two small facts routing weighs a candidate by, kept apart from `route`.

- "is there any sound from the baby monitor": a device intent that fills its device and
  explains the whole part, with words of that device's own name said, is what a question
  asks, whatever a declined domain's word in it ("sound") says; so is one that fills it
  with a device called by its name's stem ("is there post in the mailbox": the
  "Mailbox Sensor");
- "remove the hawaiian from my order": a phrase of one word right after "my" or "the" is
  a noun there, so of two intents as sure, the other one's phrase is the request's verb.
"""

from __future__ import annotations

from mnemolis.understand.analysis import Analysis
from mnemolis.understand.intents import Match
from mnemolis.understand.name_stems import STEM_SCORE
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.slots import SlotResult


def noun_after_determiner(a: Analysis, m: Match, determiners: set[str]) -> bool:
    """A phrase of one word right after a naming determiner ("my order")."""
    if len(m.literal) != 1 or m.literal[0] == 0:
        return False
    return a.tokens[m.literal[0] - 1].lower in determiners


def explains_by_name(
    a: Analysis,
    m: Match,
    slots: SlotResult,
    coverage: float,
    names: NameIndex,
    span: tuple[int, int],
) -> bool:
    """A served device intent fills its device and covers the whole part, and a word of
    a device's own name (not a type word) is said."""
    intent = names.config.intents.get(m.intent)
    if intent is None or intent.source is None or "device" not in slots.fills:
        return False
    if coverage < 1.0:
        return False
    return any(
        names.is_name_word(a.tokens[i].lemma) and not names.is_noun(a.tokens[i].lemma)
        for i in range(*span)
    )


def names_by_stem(slots: SlotResult) -> bool:
    """The device is filled from a stem of its name said (`name_stems`)."""
    device = slots.fills.get("device")
    return device is not None and device.how == NameHit("device", "", 0, 0, STEM_SCORE).how
