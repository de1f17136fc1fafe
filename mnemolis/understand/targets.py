"""The devices a part acts on or asks about: its ``device`` slot (and ``room``).

One rule for every intent. A device named exactly wins wherever it is; of
several that share the spoken name (two "ceiling light"s), the named area,
then the area the request comes from, picks one, else the part asks "which
one". A type word ("the lights") means devices of that type in the named
area, floor or everywhere; with no area named, the area the request comes
from when it has some. A named area selects only devices in it: a device
with no area is in none, and an area with none of the kind asked for selects
nothing (the part then declines or asks), never a device elsewhere. The slot
holds each device's label (`DeviceRegistry.label`: its name, or a form only it
has, or its id), so execution acts on exactly what was resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import AreaScope, origin_scope, scope_of
from mnemolis.understand.names import NameHit, NameIndex


@dataclass
class Targets:
    """What a part's words say it is about."""

    devices: list[Device]
    start: int = -1
    end: int = -1
    how: str = "exact"  # exact, fuzzy:0.91, noun, room, implied, all
    ask: bool = False  # several fit and one was meant: a "which one" question
    covered: tuple[int, ...] = ()  # tokens explained (the nouns naming the devices)
    wrong_type: bool = False
    implied: bool = False


def longest(hits: list[NameHit]) -> list[NameHit]:
    """Drop hits inside a longer one (hits on the very same span are all kept)."""
    spans = sorted({(h.start, h.end) for h in hits}, key=lambda s: (-(s[1] - s[0]), s[0]))
    kept: list[tuple[int, int]] = []
    for s, e in spans:
        if not any(ks <= s and e <= ke and (ks, ke) != (s, e) for ks, ke in kept):
            kept.append((s, e))
    return sorted((h for h in hits if (h.start, h.end) in kept), key=lambda h: h.start)


class TargetResolver:
    """Device and area resolution over the name index."""

    def __init__(self, config: Config, names: NameIndex) -> None:
        self.config = config
        self.names = names
        self.all_words = config.language.all_words
        self.roaming = frozenset(config.language.areas.roaming_types)

    def resolve(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        hits: list[NameHit],
        skip: set[int],
    ) -> tuple[Targets | None, AreaScope | None]:
        """The devices meant in tokens[start:end] and the area named there."""
        types = self._types(a, start, end, intent)
        rooms_said = [h for h in hits if h.kind == "room"]
        named = [
            h
            for h in hits
            if h.kind == "device" and not self._type_word(a, h, rooms_said, intent, types)
        ]
        exact = longest([*named, *rooms_said])
        rooms = [h for h in exact if h.kind == "room"]
        devices = [h for h in exact if h.kind == "device"]
        if not devices:
            # "kitchen lite": a device heard slightly wrong beats the exact room inside it
            known = {i for h in hits if h.kind in ("noun", "room") for i in range(h.start, h.end)}
            fuzzy = self.names.fuzzy(a.tokens, start, end, skip=skip, known=known)
            devices = [h for h in fuzzy if h.kind == "device"]
            rooms = [
                r
                for r in rooms or [h for h in fuzzy if h.kind == "room" and not h.alternatives]
                if not any(d.start <= r.start and r.end <= d.end for d in devices)
            ]
        origin = self.names.canonical_room(a.origin_room)
        scope = next(
            (s for r in rooms if (s := scope_of(r, self.names.floors, origin)) is not None), None
        )
        if "device" not in intent.slots:
            return None, scope
        if devices:
            devices = self._longer_name(a, devices, end, skip) or devices
            return self._named(devices, intent, types, scope, origin), scope
        taken = {i for h in (*devices, *rooms) for i in range(h.start, h.end)}
        nouns = longest([h for h in hits if h.kind == "noun" and h.start not in taken])
        wants_all = any(a.tokens[i].lower in self.all_words for i in range(start, end))
        wants_all = wants_all or (scope is not None and scope.everywhere)
        span = (scope.start, scope.end) if scope is not None else (-1, -1)
        tiers: list[list[Device]] = []
        how = "room"
        if nouns:
            noun = nouns[-1]
            last = a.tokens[noun.end - 1]
            wants_all = wants_all or (last.lower != last.lemma and last.lower.endswith("s"))
            tiers = self.names.noun_tiers(noun.key, types)
            how = "noun"
            span = (
                min(noun.start, span[0]) if span[0] >= 0 else noun.start,
                max(noun.end, span[1]),
            )
        if tiers:
            pass  # a type noun named them
        elif scope is not None:
            # "vacuum the living room": the devices of the kinds the intent acts on
            every = self.names.devices.values()
            tiers = [[d for d in every if d.type in types]] if types else [list(every)]
        elif intent.implies:
            # "dim a little", "set the temperature to 20": the intent says what it acts on
            tiers = [[d for d in self.names.devices.values() if d.type == intent.implies]]
            how = "implied"
        elif not nouns:
            return None, scope
        candidates = _first(tiers, scope, origin, self.roaming)
        covered = tuple(i for h in nouns for i in range(h.start, h.end))
        if not candidates:
            return Targets([], *span, how, covered=covered, implied=how == "implied"), scope
        if wants_all and len(candidates) > 1:
            how = "all"
        ask = len(candidates) > 1 and not wants_all
        return (
            Targets(candidates, *span, how, ask, covered, implied=how == "implied"),
            scope,
        )

    def _named(
        self,
        hits: list[NameHit],
        intent: IntentSpec,
        types: set[str],
        scope: AreaScope | None,
        origin: str | None,
    ) -> Targets:
        """A device named (exactly or heard slightly wrong): those sharing the first
        span named, narrowed by what the intent can act on and by area."""
        first = hits[0]
        same = [h for h in hits if (h.start, h.end) == (first.start, first.end)]
        keys = [k for h in same for k in (h.key, *h.alternatives)]
        found = [d for k in dict.fromkeys(keys) if (d := self.names.device(k)) is not None]
        able = [d for d in found if d.type in types] if intent.device_types else found
        wrong_type = bool(found) and not able
        pool = able or found
        if len(pool) > 1:
            pool = _narrow(pool, scope, origin, self.roaming)
        ask = len(pool) > 1
        return Targets(pool, first.start, first.end, first.how, ask, wrong_type=wrong_type)

    def _longer_name(
        self, a: Analysis, devices: list[NameHit], end: int, skip: set[int]
    ) -> list[NameHit]:
        """ "the bulb enddevise": an exact name ("bulb") that is only the start of a
        longer one, followed by words close to the rest of it, is the longer name
        heard slightly wrong, not the short one."""
        first = devices[0]
        phrase = " ".join(a.tokens[i].lower for i in range(first.start, first.end))
        if not self.names.starts_a_name(phrase) or first.end >= end:
            return []
        reach = min(end, first.end + 2)
        found = self.names.fuzzy(a.tokens, first.start, reach, skip=skip, whole=True)
        return [
            h for h in found if h.kind == "device" and h.start == first.start and h.end > first.end
        ]

    def _type_word(
        self,
        a: Analysis,
        hit: NameHit,
        rooms: list[NameHit],
        intent: IntentSpec,
        types: set[str],
    ) -> bool:
        """A device whose name (after its area) is a type word of another type: "the
        lights" and "kitchen lights on" are lights, not the binary sensor called
        "light". Its area and its name, singular, still reach it where it can do
        what is asked ("is the office light on")."""
        device = self.names.device(hit.key)
        if device is None:
            return False
        start = hit.start
        for room in rooms:
            if room.start == hit.start and room.end < hit.end and room.is_area:
                start = max(start, room.end)  # "kitchen light": the area said with the name
        noun = " ".join(a.tokens[i].lemma for i in range(start, hit.end))
        noun_types = self.names.noun_types(noun)
        if not noun_types or device.type in noun_types:
            return False
        last = a.tokens[hit.end - 1]
        plural = last.lower != last.lemma and last.lower.endswith("s")
        able = not intent.device_types or device.type in types
        return not (start > hit.start and not plural and able)

    def _types(self, a: Analysis, start: int, end: int, intent: IntentSpec) -> set[str]:
        types = set(intent.device_types)
        if not types:
            # "is the door locked": the state word says which kind of device is meant
            states = {w.value for w in a.slot_words if w.slot == "state" and start <= w.start < end}
            known = self.config.device_states.items()
            types = {t for t, words in known if states & set(words)}
        return types


def _narrow(
    pool: list[Device], scope: AreaScope | None, origin: str | None, roaming: frozenset[str]
) -> list[Device]:
    """Of several devices, those in the named area, else in the origin's."""
    tests: list[Callable[[Device], bool]] = []
    if scope is not None:
        tests.append(lambda d: scope.holds(d, roaming))
    here = origin_scope(origin)
    if here is not None and (scope is None or scope.everywhere):
        tests.append(here.holds)
    for test in tests:
        inside = [d for d in pool if test(d)]
        if inside:
            return inside
    return pool


def _first(
    tiers: list[list[Device]],
    scope: AreaScope | None,
    origin: str | None,
    roaming: frozenset[str],
) -> list[Device]:
    """The first tier with devices where they were asked for: a named area or floor is
    a rule (a device outside it, or in no area, is never taken); with no area named,
    the origin's area is a preference over every tier, then the whole house."""
    if scope is not None and not scope.everywhere:
        tests: list[Callable[[Device], bool]] = [lambda d: scope.holds(d, roaming)]
    else:
        here = origin_scope(origin) if scope is None else None
        tests = [here.holds] if here is not None else []
        tests.append(lambda d: True)
    for test in tests:
        for tier in tiers:
            inside = [d for d in tier if test(d)]
            if inside:
                return inside
    return []
