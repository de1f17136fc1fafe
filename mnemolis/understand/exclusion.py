"""Exclusion: "turn off all the lights except the kitchen" is every light but the kitchen's.

An exclusion cue (``exclusions`` of the language file: "except", "but not", "all
but", "everything apart from", "other than") parts a request's devices in two: the
set asked for, from every other word of the part, and what is left out, the names
right after the cue (devices, areas, type words, joined by "and" or commas). The
part acts on the first without the second, never on the second: what is left out
is resolved with the same intent (a device named, the devices of an area, of a
type), and every device it holds or that stands in an area it names is taken out.
With no kind said for the set ("turn off all but the porch light"), the set is
every device of the kinds left out. A conjunction between the things left out
joins them, not two requests (`protect`, a decomposition guard).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mnemolis.config import Config, IntentSpec
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import AreaScope
from mnemolis.understand.fills import SlotResult
from mnemolis.understand.item_lists import Guarded
from mnemolis.understand.names import NameHit, NameIndex
from mnemolis.understand.targets import TargetResolver, Targets

#: Names that can be left out.
LEFT_OUT = ("device", "room", "noun")


@dataclass(frozen=True)
class Excluded:
    """Where a part's exclusion is: its cue and the names left out."""

    cue: int  # the cue's first word that is not an all-word ("all *but*")
    start: int  # the names left out: tokens[start:end]
    end: int

    @property
    def tokens(self) -> range:
        return range(self.cue, self.end)


@dataclass(frozen=True)
class LeftOut:
    """What an exclusion takes out: the devices it names, and those in an area it names."""

    ids: frozenset[str]
    area: AreaScope | None
    roaming: frozenset[str]

    def holds(self, device: Device) -> bool:
        return device.id in self.ids or bool(self.area and self.area.holds(device, self.roaming))


class Exclusions:
    """Finds a part's exclusion and takes what it leaves out from the set asked for."""

    def __init__(self, config: Config) -> None:
        lang = config.language
        self.all_words = lang.all_words
        self.quiet = lang.stop_words | lang.filler_words | lang.determiners
        self.joiners = {c for c in lang.conjunctions if " " not in c} | {"&"}
        self.active = bool(lang.exclusions)

    def find(self, a: Analysis, start: int, end: int) -> Excluded | None:
        """The exclusion in tokens[start:end]: its cue, then the names it leaves out."""
        if not self.active:
            return None
        cue = next(iter(a.cues_of("exclude", start, end)), None)
        if cue is None:
            return None
        lead = cue.start
        while lead < cue.end and a.tokens[lead].lower in self.all_words:
            lead += 1  # "all but", "everything apart from": the all-word asks for the set
        last = self._names_after(a, cue.end, end)
        return Excluded(lead, cue.end, last) if last > cue.end else None

    def _names_after(self, a: Analysis, start: int, end: int) -> int:
        """Where the run of names (with quiet words, conjunctions and commas between)
        after the cue ends."""
        hits = [h for h in a.names if h.kind in LEFT_OUT and start <= h.start and h.end <= end]
        k, last = start, start
        while k < end:
            here = [h for h in hits if h.start == k]
            if here:
                k = last = max(h.end for h in here)
            elif a.tokens[k].is_punct or a.tokens[k].lower in self.quiet | self.joiners:
                k += 1
            else:
                break
        return last

    @staticmethod
    def hits_left_out(ex: Excluded, hits: Sequence[NameHit]) -> list[NameHit]:
        return [h for h in hits if ex.start <= h.start and h.end <= ex.end]

    def leave_out(
        self,
        resolver: TargetResolver,
        a: Analysis,
        ex: Excluded,
        intent: IntentSpec,
        hits: Sequence[NameHit],
        found: Targets | None,
    ) -> tuple[Targets, LeftOut, list[Device]]:
        """The set asked for (``found``, resolved without the names left out) without
        what they name; what they name; and the devices of the set taken out."""
        gone, scope = resolver.resolve(a, ex.start, ex.end, intent, list(hits), set())
        named = gone.devices if gone is not None else []
        area = scope if scope is not None and not scope.everywhere else None
        rule = LeftOut(frozenset(d.id for d in named), area, resolver.roaming)
        base = list(found.devices) if found is not None else []
        if not base:
            base = self._every(a, ex, intent, named, resolver)
        kept = [d for d in base if not rule.holds(d)]
        if found is None:
            found = Targets([], ex.start, ex.end, "all")
        ask = found.ask and len(kept) > 1
        how = found.how if len(kept) == 1 and found.how != "all" else "all"
        taken = [d for d in base if rule.holds(d)]
        return replace(found, devices=kept, ask=ask, how=how, unknown=None), rule, taken

    @staticmethod
    def keep(out: SlotResult, rule: LeftOut, names: NameIndex) -> None:
        """Take what is left out from a device slot filled again later (a question's
        set: "are all the lights off except the kitchen")."""
        fill = out.fills.get("device")
        if fill is None:
            return
        labels = fill.value if isinstance(fill.value, list) else [fill.value]
        kept = [
            label
            for label in labels
            if (d := names.device(label) or names.device_named(label)) is None or not rule.holds(d)
        ]
        if kept == labels:
            return
        if not kept:
            del out.fills["device"]
            return
        value: str | list[str] = kept[0] if len(kept) == 1 else kept
        out.fills["device"] = replace(fill, value=value)

    def _every(
        self,
        a: Analysis,
        ex: Excluded,
        intent: IntentSpec,
        named: Sequence[Device],
        resolver: TargetResolver,
    ) -> list[Device]:
        """No kind said for the set: "everything apart from the porch light" is every
        device the intent acts on; otherwise of the kinds left out."""
        devices = resolver.names.devices.values()
        if any(a.tokens[i].lower in self.all_words for i in range(ex.cue)):
            action = intent.action
            return [
                d
                for d in devices
                if d.type in intent.device_types and (action is None or d.can(action))
            ]
        kinds = {d.type for d in named}
        return [d for d in devices if d.type in kinds]

    def protect(self, a: Analysis, start: int, end: int, occ: Sequence[Guarded]) -> None:
        """ "except the kitchen and the hallway": a conjunction between names left out."""
        ex = self.find(a, start, end)
        if ex is None:
            return
        for o in occ:
            if o.guard is None and ex.start < o.start and o.end < ex.end:
                o.guard = f"left out: {a.span_text(ex.start, ex.end)}"
