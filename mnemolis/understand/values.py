"""The values a part sets, read once its device is known.

"50 percent" is a brightness for a light, a position for a cover and a speed
for a fan: the intents say which quantity each device type takes (their
``device_types`` and number slots), routing prefers the intent whose type
fits the device, and this reader fills that intent's slots from the words:

- numbers, with decimals said as words ("20 point 5" -> 20.5) and a unit
  that marks which quantities they can be ("22 degrees" is never a fan's
  speed);
- words for a value, from the slots' ``values`` ("halfway" -> 50, "max");
- relative changes, signed, into ``step`` ("up by 10", "down 20 percent",
  "a bit brighter": the size of "a bit" is the ``step`` slot's word);
- what the device itself announced: its preset names, modes and options
  ("whoosh", "debug"), and a fan's "low" as its preset when it has one.

Pure: it reads the analysis and the devices, and writes `SlotFill`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from mnemolis.config import Config, IntentSpec
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.fills import SlotFill, SlotResult
from mnemolis.understand.state_words import fit_state

#: The slot of a relative change, and the helper word lists of intents/en/values.yaml.
STEP = "step"
CHANGE = "change"
DECIMAL_POINT = "decimal_point"
STEP_DEGREES = "step_degrees"
#: Words before a number that make it the size of a change, or a target.
BY_WORDS = frozenset({"by"})
TO_WORDS = frozenset({"to", "at", "on"})
#: Slots filled from what a device announced, and the capability list each reads.
ANNOUNCED = {"preset": "preset_modes", "option": "options", "mode": "modes"}


@dataclass(frozen=True)
class NumberSaid:
    """One number in the text, with the unit after it."""

    value: int | float
    start: int
    end: int  # after the unit, when there is one
    units: frozenset[str]  # the slots its unit marks; empty when said bare


def number(text: str) -> int | float | None:
    """ "21.5" -> 21.5, "1,000" -> 1000, anything else -> None."""
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return int(value) if value.is_integer() else value


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def spoken(value: str) -> str:
    """A device's own value as said: "fan_only" -> "fan only"."""
    return " ".join(value.lower().replace("_", " ").replace("-", " ").split())


class ValueReader:
    """Fills an intent's value slots from one part's words and its devices."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.units: dict[str, set[str]] = {}
        for slot in config.slots.values():
            if slot.type == "number":
                for unit in slot.units:
                    self.units.setdefault(unit, set()).add(slot.name)
        self.number_slots = {n for n, s in config.slots.items() if s.type == "number"}
        self.quiet = config.language.stop_words | config.language.filler_words
        self.words = config.language.numbers
        self.type_nouns = {w for nouns in config.device_nouns.values() for w in nouns}

    # ------------------------------------------------------------------ entry

    def read(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        devices: Sequence[Device],
        out: SlotResult,
        captures: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        captures = captures or {}
        wanted = [s for s in intent.slots if s in self.number_slots]
        for name in wanted:
            # a number's digits are a spoken form of its value ("50" of position 50): they
            # are read here, with their unit, not as a word
            fill = out.fills.get(name)
            if fill is not None and all(a.tokens[i].is_num for i in fill.tokens):
                del out.fills[name]
        quantities = [s for s in wanted if s != STEP]
        # digits inside a name ("light 0", "scene 4") are the name's, not a value; a name
        # hit of digits alone (the "2" of "light 2") is a number said, not that name; the
        # last word of a name said alone ("warmer" of "Towel Warmer") is a word, not a name
        blocked = {
            i
            for h in a.names
            if (h.kind in ("device", "room") or (h.kind == "noun" and h.key in self.type_nouns))
            and start <= h.start
            and h.end <= end
            and not all(a.tokens[k].is_num for k in range(h.start, h.end))
            for i in range(h.start, h.end)
        }
        said = [n for n in self._numbers(a, start, end) if not blocked & set(range(n.start, n.end))]
        if STEP in wanted:
            said = self._step(a, start, end, quantities, said, blocked, out)
        loose = []
        for n in said:
            marked = [s for s in quantities if s in n.units]
            if marked:
                out.fills[marked[0]] = SlotFill(marked[0], n.value, n.start, n.end, "unit")
            elif not n.units or any(not self.config.slots[s].units for s in quantities):
                loose.append(n)
            # a number whose unit marks another quantity ("22 degrees" for a fan's speed)
            # is not this one's: the part is left without it, and declines by name
        for name in wanted:
            fill = out.fills.get(name)
            if fill is not None and isinstance(fill.value, str):
                value = number(fill.value)
                if value is None:
                    del out.fills[name]
                else:
                    fill.value = value
        missing = [s for s in quantities if s not in out.fills]
        for n in loose:
            # "volume {volume}": the phrase's capture says which slot a bare number is
            captured = [s for s, (cs, _ce) in captures.items() if s in missing and n.start == cs]
            if captured and self._takes(captured[0], n):
                out.fills[captured[0]] = SlotFill(captured[0], n.value, n.start, n.end, "pattern")
                missing.remove(captured[0])
        left = [n for n in loose if not any(f.start == n.start for f in out.fills.values())]
        able = [s for s in missing if len(left) == 1 and self._takes(s, left[0])]
        if len(able) == 1:
            n = left[0]
            out.fills[able[0]] = SlotFill(able[0], n.value, n.start, n.end, "number")
        self._announced(a, start, end, intent, devices, out)
        self._whites(a, devices, out)
        self._speeds(devices, out)
        fit_state(self.config, a, start, end, intent, devices, out)

    def _takes(self, slot: str, n: NumberSaid) -> bool:
        """A number said bare, or with a unit of this slot's, or for a slot without units."""
        spec = self.config.slots[slot]
        if not n.units and (
            (spec.minimum is not None and n.value < spec.minimum)
            or (spec.maximum is not None and n.value > spec.maximum)
        ):
            return False  # "set it to 4" is no colour temperature
        return not n.units or slot in n.units or not spec.units

    # ------------------------------------------------------------------ numbers

    def _numbers(self, a: Analysis, start: int, end: int) -> list[NumberSaid]:
        toks = a.tokens
        points = {w.start for w in a.slot_words if w.slot == DECIMAL_POINT}
        found: list[NumberSaid] = []
        i = start
        while i < end:
            value = number(toks[i].text) if toks[i].is_num else None
            if value is None and i + 1 < end and toks[i + 1].lower in self.units:
                value = self.words.get(toks[i].lower)  # "one degree": a number word kept
            if value is None:
                i += 1
                continue
            j = i + 1
            if (
                j + 1 < end
                and j in points
                and toks[j + 1].is_num
                and toks[j + 1].text.isdigit()
                and isinstance(value, int)
            ):
                value = _whole(float(f"{value}.{toks[j + 1].text}"))  # "20 point 5"
                j += 2
            units: frozenset[str] = frozenset()
            for width in (2, 1):
                if j + width <= end:
                    unit = " ".join(t.lower for t in toks[j : j + width])
                    if unit in self.units:
                        units = frozenset(self.units[unit])
                        j += width
                        break
            found.append(NumberSaid(value, i, j, units))
            i = j
        return found

    def _step(
        self,
        a: Analysis,
        start: int,
        end: int,
        quantities: list[str],
        said: list[NumberSaid],
        blocked: set[int],
        out: SlotResult,
    ) -> list[NumberSaid]:
        """A signed relative change; returns the numbers it did not use."""
        toks = a.tokens
        changes = [
            w
            for w in a.slot_words
            if w.slot == CHANGE and start <= w.start and w.end <= end and w.start not in blocked
        ]
        if not changes:
            out.fills.pop(STEP, None)  # "a bit" with no direction is no change
            return said
        change = changes[0]
        sign = 1 if change.value == "up" else -1
        for n in said:
            before = toks[n.start - 1].lower if n.start > start else ""
            if before in TO_WORDS:
                continue
            near = (
                before in BY_WORDS
                or n.start == change.end
                or n.end == change.start
                or (n.start == change.end + 1 and before in BY_WORDS)
            )
            if near and (not n.units or n.units & {*quantities, STEP} or not quantities):
                lo = n.start - (1 if before in BY_WORDS else 0)
                out.fills[STEP] = SlotFill(STEP, sign * n.value, lo, n.end, "step")
                out.covered.update(range(change.start, change.end))
                return [m for m in said if m is not n]
        if any(n.start > start and toks[n.start - 1].lower in TO_WORDS for n in said):
            return said  # "turn the landing light down to 10": the level, no step
        slot = STEP_DEGREES if "temperature" in quantities else STEP
        small = [w for w in a.slot_words if w.slot == slot and start <= w.start and w.end <= end]
        if small:
            size = number(small[0].value)
            if size is not None:
                out.fills[STEP] = SlotFill(STEP, sign * size, small[0].start, small[0].end, "step")
                out.covered.update(range(change.start, change.end))
        return said

    # ------------------------------------------------------------------ announced values

    def _announced(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        devices: Sequence[Device],
        out: SlotResult,
    ) -> None:
        """Preset names, modes and options the device announced, as it spells them."""
        if not devices:
            return
        words = [t.lower for t in a.tokens[start:end]]
        text = f" {' '.join(words)} "
        for slot, caps in ANNOUNCED.items():
            if slot not in intent.slots:
                continue
            offered = _offered(getattr(d.caps, caps) for d in devices)
            said = [v for v in offered if f" {spoken(v)} " in text]
            if said:
                best = max(said, key=lambda v: len(spoken(v)))
                where = _find(words, spoken(best).split())
                s, e = (start + where, start + where + len(spoken(best).split()))
                out.fills[slot] = SlotFill(slot, best, s, e, "announced")
        device = out.fills.get("device")
        if "option" in intent.slots and "option" not in out.fills:
            # what a select is set to, as said: one it does not offer is declined by the
            # source, which names the ones it does
            toks = a.tokens
            i = device.end if device is not None and device.end > 0 else end
            while i < end and toks[i].lower not in TO_WORDS:
                i += 1  # "set the program to eco": what follows "to", nothing without one
            while i < end and toks[i].lower in TO_WORDS:
                i += 1
            j = end
            while j > i and (toks[j - 1].is_punct or toks[j - 1].lower in self.quiet):
                j -= 1
            if i < j:
                value = " ".join(t.lower for t in toks[i:j])
                out.fills["option"] = SlotFill("option", value, i, j, "said")
        preset_said = out.fills.get("preset")
        speed = out.fills.get("percentage")
        if (
            preset_said is not None
            and speed is not None
            and speed.how == "exact"
            and set(speed.tokens) & set(preset_said.tokens)
        ):
            del out.fills["percentage"]  # "low" is the fan's own preset
            return
        if "preset" in intent.slots and speed is not None and speed.how == "exact":
            # "set the fan to low": the fan's own preset "low", when it has one
            said_word = " ".join(a.tokens[i].lower for i in speed.tokens)
            for d in devices:
                match = next((p for p in d.caps.preset_modes if spoken(p) == said_word), None)
                if match is not None and preset_said is None:
                    out.fills["preset"] = SlotFill(
                        "preset", match, speed.start, speed.end, "announced"
                    )
                    del out.fills["percentage"]
                    break

    @staticmethod
    def _speeds(devices: Sequence[Device], out: SlotResult) -> None:
        """ "set the fan to 2": a bare number up to a fan's count of speeds is one of
        them (speed 2 of 3 is 67 percent); "2 percent" says otherwise."""
        speed = out.fills.get("percentage")
        counts = {d.caps.speed_count for d in devices if d.type == "fan"}
        if speed is None or speed.how not in ("number", "pattern") or len(counts) != 1:
            return
        count = counts.pop()
        if count is not None and isinstance(speed.value, int) and 1 <= speed.value <= count:
            speed.value = round(speed.value * 100 / count)

    @staticmethod
    def _whites(a: Analysis, devices: Sequence[Device], out: SlotResult) -> None:
        """ "warm white" is a shade of white for a light that has them, a colour for one
        that has only colours: the other reading is dropped, so the part routes to
        the intent the light can carry out."""
        lights = [d for d in devices if d.type == "light"]
        shades = any("color_temp" in d.features for d in lights)
        colours = any("color" in d.features for d in lights)
        if not lights or shades == colours:
            return
        said = out.fills.get("color_temp")
        if not shades and said is not None and said.how == "exact":
            del out.fills["color_temp"]
        colour = out.fills.get("color")
        if not colours and colour is not None:
            white = {
                i for w in a.slot_words if w.slot == "color_temp" for i in range(w.start, w.end)
            }
            if set(colour.tokens) <= white:
                del out.fills["color"]


class Scored(Protocol):
    """A routing candidate: what its slots found."""

    slots: SlotResult


#: How the fills of numbers read here are marked (`SlotFill.how`).
NUMBER_FILLS = frozenset({"unit", "number", "pattern", "step"})


def said_as_value(a: Analysis, best: Scored | None, start: int, end: int) -> bool:
    """ "at 21", "by 10": a lead word and a bare number that the part's own value slot
    reads is that value, not a time ("10 pm" or "10:30" would say it is a time)."""
    numbers = [i for i in range(start, end) if a.tokens[i].is_num]
    if best is None or end - start != 2 or len(numbers) != 1:
        return False
    return any(f.how in NUMBER_FILLS and numbers[0] in f.tokens for f in best.slots.fills.values())


def announcing(pool: Sequence[Device], out: SlotResult) -> list[Device]:
    """ "put the ac in fan only mode": of the devices asked about, those that announced
    every mode, preset or option said (none said: none)."""
    said = [(slot, str(f.value)) for slot, f in out.fills.items() if slot in ANNOUNCED]
    if not said:
        return []
    return [d for d in pool if all(v in getattr(d.caps, ANNOUNCED[s]) for s, v in said)]


def _offered(lists: Iterable[tuple[str, ...]]) -> list[str]:
    seen: dict[str, str] = {}
    for values in lists:
        for v in values:
            seen.setdefault(spoken(v), v)
    return list(seen.values())


def _find(words: list[str], target: list[str]) -> int:
    for i in range(len(words) - len(target) + 1):
        if words[i : i + len(target)] == target:
            return i
    return 0


#: The quantities a set-to number can be; slots with the same units can stand for
#: each other ("50 percent" is a brightness, a position, a speed or a humidity).
QUANTITIES = ("brightness", "position", "percentage", "humidity", "temperature", "value")


def fit_to_device(part: Part, config: Config, registry: DeviceRegistry) -> None:
    """ "turn on the kitchen fan and set it to 25 percent": once a pronoun has named the
    device, a set-to part takes the intent of the device's type, its value moved to
    that intent's slot of the same units; a value of other units ("22 degrees" for a
    fan) stays, and the source declines it by name."""
    spec = config.intent(part.intent)
    raw = part.slots.get("device")
    if spec is None or spec.source is None or not raw:
        return
    names = raw if isinstance(raw, list) else [raw]
    found = [registry.get(str(n)) or registry.by_name(str(n)) for n in names]
    types = {d.type for d in found if d is not None}
    if not types or None in found or types <= set(spec.device_types):
        return
    held = [s for s in spec.slots if s in QUANTITIES and s in part.slots]
    if len(held) > 1 or (not held and STEP not in part.slots):
        return
    units = set(config.slots[held[0]].units) if held else None
    for other in config.intents.values():
        if other.source != spec.source or not types <= set(other.device_types):
            continue
        targets = [s for s in other.slots if s in QUANTITIES]
        if units is not None:
            targets = [s for s in targets if set(config.slots[s].units) == units]
        elif STEP not in other.slots:
            targets = []
        if targets:
            part.intent = other.name
            if held:
                part.slots[targets[0]] = part.slots.pop(held[0])
            elif ("temperature" in spec.slots) != ("temperature" in other.slots):
                _restep(part, config, to_degrees="temperature" in other.slots)
            part.provenance.setdefault("slots", {})[targets[0] if held else STEP] = "device type"
            return


def _restep(part: Part, config: Config, to_degrees: bool) -> None:
    """ "turn it up a bit" read as degrees (1), for a fan: the small step of its own
    units (10 percent), and back."""
    sizes = [
        next((float(v) for v in slot.values.values()), None)
        for slot in (config.slots.get(STEP_DEGREES), config.slots.get(STEP))
        if slot is not None
    ]
    step = part.slots.get(STEP)
    if len(sizes) != 2 or None in sizes or not isinstance(step, int | float):
        return
    degrees, percent = sizes
    was, now = (percent, degrees) if to_degrees else (degrees, percent)
    if was is not None and now is not None and abs(step) == was:
        part.slots[STEP] = int(now) if step > 0 else -int(now)
