"""Which areas a spoken place means: a room, a floor, "upstairs", "everywhere", "in here".

A named room is that room; a floor is the rooms on it; "upstairs" and
"downstairs" are the floors above and below the one the request comes from
(without one: above the ground floor, and the ground floor and below);
"everywhere" is every area; "in here" is the area the request comes from.
A device with no area is in none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mnemolis.core.devices import Device, Floor
from mnemolis.understand.names import AREA_MARK, FLOOR_PREFIX, NameHit


@dataclass(frozen=True)
class AreaScope:
    """The areas a request is narrowed to, and the words that said so."""

    rooms: frozenset[str] | None  # None: every area ("everywhere")
    start: int = -1
    end: int = -1
    room: str | None = None  # the one room meant, for intents with a ``room`` slot
    said: str = ""  # what the request named: a room, a floor, "upstairs", "everywhere"

    @property
    def everywhere(self) -> bool:
        return self.rooms is None

    def holds(self, device: Device, roaming: frozenset[str] = frozenset()) -> bool:
        """True when ``device`` is in one of the areas. A device with no area is in
        none, unless its type goes where it is sent (``roaming``: a robot vacuum)."""
        if self.rooms is None:
            return True
        if device.room is None:
            return device.type in roaming and bool(self.rooms)
        return device.room in self.rooms


def scope_of(hit: NameHit, floors: dict[str, Floor], origin: str | None) -> AreaScope | None:
    """The areas a room hit means; None when it cannot narrow anything ("in here"
    with no known origin)."""
    s, e = hit.start, hit.end
    if hit.key.startswith(FLOOR_PREFIX):
        name = hit.key[len(FLOOR_PREFIX) :]
        floor = floors.get(name)
        return AreaScope(frozenset(floor.areas if floor else ()), start=s, end=e, said=name)
    if not hit.key.startswith(AREA_MARK):
        return AreaScope(frozenset({hit.key}), start=s, end=e, room=hit.key, said=hit.key)
    relative = hit.key[len(AREA_MARK) :]
    if relative == "everywhere":
        return AreaScope(None, start=s, end=e, said=relative)
    if relative == "here":
        if origin is None:
            return None
        return AreaScope(frozenset({origin}), start=s, end=e, room=origin, said=origin)
    here = next((f for f in floors.values() if origin is not None and origin in f.areas), None)
    level = here.level if here is not None else None
    chosen: list[Floor] = []
    for floor in floors.values():
        if floor.level is None:
            continue
        if relative == "upstairs":
            above = floor.level > level if level is not None else floor.level > 0
            chosen += [floor] if above else []
        else:
            below = floor.level < level if level is not None else floor.level <= 0
            chosen += [floor] if below else []
    rooms = frozenset(a for f in chosen for a in f.areas)
    return AreaScope(rooms, start=s, end=e, said=relative)


def _within(scopes: list[AreaScope]) -> list[AreaScope]:
    """ "the upstairs bedroom lights": a room said next to a floor (touching it, or
    sharing a word) is that room on that floor, not both. Only the rooms on both
    are kept: a named floor never reaches a device outside it."""
    out: list[AreaScope] = []
    for scope in sorted(scopes, key=lambda s: s.start):
        last = out[-1] if out else None
        touching = last is not None and last.start >= 0 and scope.start <= last.end
        if last is None or not touching or (last.room is None) == (scope.room is None):
            out.append(scope)
            continue
        if last.rooms is None or scope.rooms is None:
            rooms = scope.rooms if last.rooms is None else last.rooms
        else:
            rooms = last.rooms & scope.rooms
        room = last.room or scope.room
        said = f"{last.said} {scope.said}"
        start, end = min(last.start, scope.start), max(last.end, scope.end)
        out[-1] = AreaScope(rooms, start, end, room if room in (rooms or ()) else None, said)
    return out


def union(scopes: list[AreaScope]) -> AreaScope | None:
    """ "the kitchen and dining room lights": every area named in one part (a room
    next to a floor is that room on it, see `_within`)."""
    if not scopes:
        return None
    scopes = _within(scopes)
    if len(scopes) == 1:
        return scopes[0]
    first = scopes[0]
    rooms: frozenset[str] | None = frozenset()
    for scope in scopes:
        rooms = None if rooms is None or scope.rooms is None else rooms | scope.rooms
    start = min(s.start for s in scopes)
    end = max(s.end for s in scopes)
    return AreaScope(rooms, start, end, first.room, " and ".join(s.said for s in scopes))


def origin_scope(origin: str | None) -> AreaScope | None:
    """Where the request comes from, when no area is named: a preference, not a rule."""
    if origin is None:
        return None
    return AreaScope(frozenset({origin}), room=origin, said=origin)


def narrow(
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
