"""Conversation context: what the last turns touched, for pronouns and ellipsis.

"turn it off" takes the last device; "and the bedroom?" and "what about
saturday?" take the last intent and carry its other slots; a clarifying
question is answered in the next turn ("the kitchen one"). Understanding
reads a Context and never changes it; the caller calls `remember` with the
plan it acted on, so the same context and query always give the same plan.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from mnemolis.core.plan import Part, Plan

#: Slots that name what a device request acts on; a new one replaces all of them.
TARGET_SLOTS = ("device", "room")
#: Slots that describe a weather or clock request; each replaces only itself.
CARRIED = ("day", "location", "metric", "state", "color", "brightness", "temperature", "topic")


@dataclass
class Pending:
    """A question Mnemolis asked and the part waiting for its answer."""

    part: Part
    slot: str
    options: list[str]


@dataclass
class Context:
    devices: list[str] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    intent: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    topic: str | None = None
    pending: Pending | None = None
    turns: int = 0

    def copy(self) -> Context:
        return copy.deepcopy(self)

    def remember(self, plan: Plan) -> None:
        """Fold an acted-on plan into the context for the next turn."""
        self.turns += 1
        self.pending = None
        for step in plan.steps:
            parts = [step] if isinstance(step, Part) else [step.condition, *step.then]
            for part in parts:
                options = part.provenance.get("options")
                if options and "device" not in part.slots and part.intent is not None:
                    self.pending = Pending(part, "device", list(options))
                if part.intent is None:
                    continue
                self.intent = part.intent
                self.slots = dict(part.slots)
                device = part.slots.get("device")
                if isinstance(device, list):
                    self.devices = list(device)
                elif device:
                    self.devices = [device]
                if part.slots.get("room"):
                    self.rooms = [part.slots["room"]]
                if part.slots.get("topic"):
                    self.topic = part.slots["topic"]


def carry_slots(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Slots for an elliptical follow-up: the new ones, plus the old ones they do not replace."""
    merged = dict(new)
    carried = []
    replaces_target = any(k in new for k in TARGET_SLOTS)
    for key, value in old.items():
        if key in merged:
            continue
        if key in TARGET_SLOTS and replaces_target:
            continue
        if key in TARGET_SLOTS or key in CARRIED:
            merged[key] = value
            carried.append(key)
    return merged, carried


def pick_option(
    answer: str, options: list[str], ignore: frozenset[str] = frozenset()
) -> str | None:
    """The option a short answer names ("the kitchen one", "porch"), if exactly one fits.

    Words in ``ignore`` ("the", "one") are dropped first, so they neither help
    nor hurt the match.
    """
    text = " ".join(w for w in answer.lower().split() if w not in ignore)
    if not text:
        return None
    scored = sorted(
        ((fuzz.token_set_ratio(text, option), option) for option in options), reverse=True
    )
    if not scored or scored[0][0] < 70:
        return None
    if len(scored) > 1 and scored[1][0] >= scored[0][0] - 5:
        return None
    return scored[0][1]
