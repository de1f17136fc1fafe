"""Small helpers of target resolution (`targets`): the longest name hits, the first tier
of devices where they were asked for, the one type to name, the tokens of hits."""

from __future__ import annotations

from mnemolis.core.devices import Device
from mnemolis.understand.areas import AreaScope, origin_scope
from mnemolis.understand.names import NameHit


def longest(hits: list[NameHit]) -> list[NameHit]:
    """Drop hits inside a longer one (hits on the very same span are all kept)."""
    spans = sorted({(h.start, h.end) for h in hits}, key=lambda s: (-(s[1] - s[0]), s[0]))
    kept: list[tuple[int, int]] = []
    for s, e in spans:
        if not any(ks <= s and e <= ke and (ks, ke) != (s, e) for ks, ke in kept):
            kept.append((s, e))
    return sorted((h for h in hits if (h.start, h.end) in kept), key=lambda h: h.start)


def kind_of(types: set[str]) -> str | None:
    """The one type to name in "there is no vacuum in the living room"."""
    return min(types) if types else None


def tokens_of(hits: list[NameHit]) -> tuple[int, ...]:
    return tuple(i for h in hits for i in range(h.start, h.end))


def first_tier(
    tiers: list[list[Device]],
    scope: AreaScope | None,
    origin: str | None,
    roaming: frozenset[str],
) -> tuple[list[Device], bool]:
    """The first tier with devices where they were asked for, and whether an area
    chose them: a named area or floor is a rule (a device outside it, or in no area,
    is never taken); with no area named, the origin's area is a preference over
    every tier, then the whole house."""
    if scope is not None and not scope.everywhere:
        # a robot that lives there before one that goes anywhere ("vacuum upstairs")
        for sent in (frozenset[str](), roaming):
            for tier in tiers:
                inside = [d for d in tier if scope.holds(d, sent)]
                if inside:
                    return inside, True
        return [], True
    here = origin_scope(origin) if scope is None else None
    if here is not None:
        for tier in tiers:
            inside = [d for d in tier if here.holds(d)]
            if inside:
                return inside, True
    return next((tier for tier in tiers if tier), []), False
