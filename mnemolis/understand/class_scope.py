"""What a device-class question's own words say of its scope: here, a quantity, a type.

"is the window open" asked in the bedroom is the bedroom's window, not any in
the house ("the window", in the singular, with the origin room); "how many
kilometres are on the car" asks a quantity, not a count of devices (a sensor
class's word right after a count frame); "what humidity is the humidifier set
to" asks the humidifier (a type word naming a device the intent reads), the
class word is what is asked of it. The words are `questions.definite` and
`questions.count_frames` in `intents/en/device_questions.yaml`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemolis.config import Config, IntentSpec
from mnemolis.config.questions import CLASS_DOMAINS
from mnemolis.core.devices import Device
from mnemolis.understand.class_words import ClassHit
from mnemolis.understand.names import NameHit
from mnemolis.understand.question_scope import Scope
from mnemolis.understand.slots import SlotFill, SlotResult
from mnemolis.understand.text import TextPipeline, Token


def longer(hit: ClassHit, noun: NameHit) -> bool:
    """The class phrase holds the type noun and more words ("smoke detector")."""
    inside = hit.start <= noun.start and noun.end <= hit.end
    return inside and hit.end - hit.start > noun.end - noun.start


def same(hit: ClassHit, noun: NameHit) -> bool:
    return hit.start == noun.start and hit.end == noun.end


def none_of(hits: list[ClassHit], out: SlotResult) -> None:
    """No device of the class asked about: say which class, choose none."""
    out.fills.pop("device", None)
    out.options = []
    out.wrong_type = False
    first = min(hits, key=lambda h: (h.start, h.device_class.name))
    out.fills["device_class"] = SlotFill(
        "device_class", first.device_class.name, first.start, first.end, "class"
    )


def _plural(token: Token) -> bool:
    return token.lower != token.lemma and token.lower.endswith("s")


class ClassScope:
    """Reads a class question's scope from its words."""

    def __init__(self, config: Config, text: TextPipeline, scope: Scope) -> None:
        self.scope = scope
        self.definite = set(config.questions.definite)
        self.count_frames = [
            tuple(text.lemmas(w)) for w in config.questions.count_frames if w.strip()
        ]

    def spoken_in(
        self,
        tokens: Sequence[Token],
        part_start: int,
        group: list[ClassHit],
        members: list[Device],
        origin: str | None,
    ) -> list[Device]:
        """The origin room's members, when a class word is said of one ("the window", not
        "windows" or "is there a leak") and the room has one; else every member.
        The caller asks only for a part that names no area and is no set."""
        if origin is None or len(members) < 2:
            return members
        for h in group:
            before = tokens[h.start - 1].lower if h.start > part_start else None
            if _plural(tokens[h.end - 1]) or before not in self.definite:
                continue
            here = [d for d in members if d.room == origin]
            if here:
                return here
        return members

    def reads_typed(self, intent: IntentSpec, nouns: list[NameHit]) -> bool:
        """A type word names a device the intent reads that is no sensor (a humidifier)."""
        readable = set(intent.device_types) - set(CLASS_DOMAINS)
        return any(self.scope.noun_types(n) & readable for n in nouns)

    def acting(self, intent: IntentSpec, nouns: list[NameHit]) -> list[NameHit]:
        """The type words that name a type that acts and that the intent reads, if it
        names types: "water" names a valve, but "is there water in the laundry" reads
        no valve; the class word (a leak) stands."""
        reads = set(intent.device_types)
        return [
            n
            for n in nouns
            if (types := self.scope.noun_types(n) - set(CLASS_DOMAINS))
            and (not reads or types & reads)
        ]

    def no_count(self, tokens: Sequence[Token], hits: list[ClassHit], out: SlotResult) -> bool:
        """A count question that asks a quantity is no count: its device slot is emptied
        and it is marked of the wrong type, so that the reading wins."""
        if not self.asks_quantity(tokens, hits):
            return False
        out.fills.pop("device", None)
        out.options = []
        out.wrong_type = True
        return True

    def asks_quantity(self, tokens: Sequence[Token], hits: list[ClassHit]) -> bool:
        """A sensor class's word right after a count frame ("how many kilometres"), not
        also a binary sensor's ("how many batteries are low" counts those)."""
        binary = {(h.start, h.end) for h in hits if h.device_class.domain == "binary_sensor"}
        for h in hits:
            if h.device_class.domain != "sensor" or (h.start, h.end) in binary:
                continue
            for form in self.count_frames:
                s = h.start - len(form)
                if s >= 0 and all(tokens[s + k].lemma == w for k, w in enumerate(form)):
                    return True
        return False
