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

from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.core.devices import Device, name_key
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.areas import AreaScope, narrow, origin_scope, scope_of, union
from mnemolis.understand.fuller_names import fuller
from mnemolis.understand.house_wide import house_wide, spoken_here
from mnemolis.understand.kinds import KindFilter, names_it
from mnemolis.understand.name_stems import NameStems
from mnemolis.understand.names import AREA_MARK, NameHit, NameIndex
from mnemolis.understand.quantity_words import QuantityWords
from mnemolis.understand.shared_names import AreaWords, every_one, namesake_in
from mnemolis.understand.shared_nouns import rivals
from mnemolis.understand.target_tiers import first_tier, kind_of, longest, tokens_of
from mnemolis.understand.unknown_names import UnknownNames
from mnemolis.understand.work_words import work_said


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
    missing: str | None = None  # the type asked for ("the vacuum", "mop"), none of it there
    unknown: str | None = None  # words naming an area or a device the home lacks
    stood_in: bool = False  # a name said of another kind, taken for one named with its words


class TargetResolver:
    """Device and area resolution over the name index."""

    def __init__(self, config: Config, names: NameIndex) -> None:
        self.config = config
        self.names = names
        self.all_words = config.language.all_words
        self.roaming = frozenset(config.language.areas.roaming_types)
        lang = config.language
        self.quiet = lang.stop_words | lang.filler_words | lang.determiners
        self.pronouns = frozenset(lang.pronouns)
        self.places = lang.place_prepositions
        self.stems = NameStems(names, self.quiet)
        self.verb_nouns = frozenset(config.verb_nouns)
        self.work = {tuple(words.split()): dtype for words, dtype in config.type_work.items()}
        self.area_words = AreaWords(names)
        self.kinds = KindFilter(config, names)
        self.unknown = UnknownNames(config, names)
        self.quantities = QuantityWords(config, names.text)

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
        # "make it warmer in the nursery": the last word of the name of a device the intent
        # cannot act on ("Towel Warmer", a switch), said as the intent's phrase, is the phrase
        hits = [h for h in hits if not self._phrase_word(h, intent, skip)]
        # "mop the kitchen": work only a vacuum does narrows what the intent may start
        worked = self._work(a, start, end, hits) & set(intent.device_types)
        types = worked or self._types(a, start, end, intent)
        rooms_said = [h for h in hits if h.kind == "room"]
        said = [h for h in hits if h.kind == "device"]
        typed = [h for h in said if self._type_word(a, h, rooms_said, intent, types)]
        # what a type word explains ("garden lights": the area and the type) names no
        # device inside it either (the motion sensor called "garden")
        named = [
            h
            for h in said
            if h not in typed and not any(t.start <= h.start and h.end <= t.end for t in typed)
        ]
        # "the living room ceiling fan": the fan, not the light called "living room ceiling"
        named = self.kinds.drop_modifiers(named, [h for h in hits if h.kind == "noun"])
        exact = longest([*named, *rooms_said])
        rooms = [h for h in exact if h.kind == "room"]
        hits = [h for h in hits if not self._verb(a, h, start, skip)]
        nouns_said = any(h.kind == "noun" and start <= h.start and h.end <= end for h in hits)
        devices = self._not_the_room(
            a, [h for h in exact if h.kind == "device"], rooms, types, nouns_said
        )
        if not devices:
            # "kitchen lite": a device heard slightly wrong beats the exact room inside it
            known = {i for h in hits if h.kind in ("noun", "room") for i in range(h.start, h.end)}
            fuzzy = self.names.fuzzy(a.tokens, start, end, skip=skip, known=known, memo=a.memo)
            devices = [h for h in fuzzy if h.kind == "device"]
            rooms = [
                r
                for r in rooms or [h for h in fuzzy if h.kind == "room" and not h.alternatives]
                if not any(d.start <= r.start and r.end <= d.end for d in devices)
            ]
        if not devices and not rooms:  # (a brand run may hold a type word: "tradfri bulb")
            devices = self.stems.hits(a, start, end, skip)  # "turn off the stairs"
        origin = self.names.canonical_room(a.origin_room)
        found = [s for r in rooms if (s := scope_of(r, self.names.floors, origin)) is not None]
        scope = union(found)
        if "device" not in intent.slots:
            return None, scope
        lost = self.unknown.area(a, start, end, hits) if scope is None else None
        here = [r for r in rooms if r.key == AREA_MARK + "here"]
        if here and scope is None and origin is None and lost is None:
            lost = (here[0].start, here[0].end)  # "all the lights in here", room unknown: never all
        if lost is not None:  # "the lights in the cellar": an area the home does not have
            # (its words stay unexplained: "the temperature in pheonix" may be a place's)
            asked = tokens_of([h for h in hits if h.kind == "noun" and h.end <= lost[0]])
            return Targets([], *lost, "unknown", covered=asked, unknown=a.span_text(*lost)), None
        if devices:  # "the floor lamp": the "LR Floor Lamp 2", not a "Lamp"
            taken = skip | set(tokens_of(rooms))
            devices = fuller(self.names, a, devices, start, taken, self.quiet) or devices
        if devices and self._generic_name(a, devices[0], types, scope, origin):
            devices = []  # "turn off the heating" in the bedroom: its radiator, not "heating"
        if devices:
            devices = self._longer_name(a, devices, end, skip) or devices
            said_words = [a.tokens[i].lemma for i in range(devices[0].start, devices[0].end)]
            states = self._states(a, start, end) if not intent.device_types else set()
            meant = self._named(a, start, devices, intent, types, scope, origin, said_words, states)
            return meant, scope
        kinds = self._kinds(a, start, end, intent, hits, rooms, types, scope, origin, worked)
        return kinds, scope

    def _work(self, a: Analysis, start: int, end: int, hits: list[NameHit]) -> set[str]:
        """The types whose work (devices.yaml `work`) the part says, outside any name."""
        return work_said(self.work, a, start, end, hits)

    def _kinds(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        hits: list[NameHit],
        rooms: list[NameHit],
        types: set[str],
        scope: AreaScope | None,
        origin: str | None,
        worked: set[str],
    ) -> Targets | None:
        """No device named: a type word, the area's devices, or what the intent implies.
        A type word with an area (named, or the one spoken in) means all of them there;
        with none, one of several is asked about. A type asked for (a type word, or work
        only that type does) with no device of it there is none: never another type."""
        taken = {i for h in rooms for i in range(h.start, h.end)}
        nouns = longest([h for h in hits if h.kind == "noun" and h.start not in taken])
        said_all = any(a.tokens[i].lower in self.all_words for i in range(start, end))
        # ("the kitchen one" picks among options: no area alone)
        referred = any(r.end < end and a.tokens[r.end].lower in self.pronouns for r in rooms)
        if said_all and scope is None:
            origin = None  # "turn off all the lights": the whole house, wherever it is said
        wants_all = said_all or (scope is not None and scope.everywhere)
        span = (scope.start, scope.end) if scope is not None else (-1, -1)
        tiers: list[list[Device]] = []
        how = "room"
        asked = set(worked)  # the types the words ask for
        if nouns:
            noun = nouns[-1]
            wants_all = wants_all or self._plural(a, noun)
            every = self.names.noun_tiers(noun.key)
            tiers = [[d for d in t if d.type in types] for t in every] if types else every
            tiers = [t for t in tiers if t]
            tiers, lost = self.unknown.narrow(a, noun, start, skip=taken, tiers=tiers)
            if lost is None:  # "sonoff basic 3": words after it that no name has
                tiers, lost = self.unknown.after(a, noun, end, taken, tiers)
            if lost is not None:  # "the ninja scene": named with words no device has
                kind = kind_of(self.names.noun_types(noun.key) & types or types)
                return Targets([], *lost, "unknown", missing=kind, unknown=a.span_text(*lost))
            how = "noun"
            span = (
                min(noun.start, span[0]) if span[0] >= 0 else noun.start,
                max(noun.end, span[1]),
            )
            kinds = self.names.noun_types(noun.key)
            asked = kinds & types or kinds or asked
            own = self.quantities.named(a.tokens, noun.start, noun.end) & set(intent.slots)
            if every and not tiers and types and not kinds & types and not own:
                # "set the lights to 30 percent" as a temperature: the lights cannot; nor
                # can "the feeder portions" (a number) be the lights a brightness implies
                # ("set the temperature to 70" says its own quantity, not a sensor)
                return Targets([], *span, how, covered=tokens_of(nouns), wrong_type=True)
            if tiers and (rival := rivals(self.names, noun.key, types, intent.also_means, scope)):
                # which door?
                return Targets([*tiers[0], *rival], *span, how, True, tokens_of(nouns))
        if tiers:
            pass  # a type noun named them
        elif scope is not None or asked:
            # "vacuum the living room", "close the living room shades": the devices of the
            # kinds asked for (else of those the intent acts on) there, never another kind
            wanted = (asked & types if types else asked) if asked else types
            if asked and not wanted:
                # "set the heating to 22" as a brightness: no light was asked for
                return Targets([], *span, how, covered=tokens_of(nouns), wrong_type=True)
            all_devices = self.names.devices.values()
            tiers = (
                [[d for d in all_devices if d.type in wanted]]
                if wanted or asked
                else [list(all_devices)]
            )
            alone = not asked and not said_all and not referred
            if alone and intent.area_means and scope is not None:
                # "turn off the kitchen": an area said alone is its lights (the type
                # the intent's `area_means` names), where it has any
                means = intent.area_means
                tiers.insert(0, [d for d in all_devices if d.type == means])
        elif intent.implies:
            # "dim a little", "set the temperature to 20": the intent says what it acts on
            tiers = [[d for d in self.names.devices.values() if d.type == intent.implies]]
            how = "implied"
        elif not nouns:
            return None
        roaming = self.roaming & set(intent.device_types)  # sent there, not asked about
        candidates, where = first_tier(tiers, scope, origin, roaming)
        here = not candidates and spoken_here(rooms)  # "make it 21 in here", none in here
        if how in ("implied", "room") and origin and (not where or here):  # "I'm cold"
            candidates = house_wide(candidates or tiers[0], self.names) or candidates
        alone = not nouns and not asked and not said_all and intent.area_means is not None
        alone = alone and not referred
        if alone and where and all(d.type == intent.area_means for d in candidates):
            wants_all = True
        covered = tokens_of(nouns)
        if not candidates:
            implied = how == "implied"
            # "set the bathroom to 20 degrees" with no thermostat there: none of the kinds
            # the intent acts on is there, and that is what the answer says
            missing = kind_of(asked or (types if where else set()))
            return Targets([], *span, how, covered=covered, implied=implied, missing=missing)
        # "the lights" of an area: all of them there; asking about an area ("is anything
        # on in the kitchen") asks about all of it (a question acts on nothing)
        asks = intent.action in (None, "state")
        # "dim the bedroom a bit", "brighter" (spoken in the kitchen): the area's lights
        implied_there = how in ("implied", "room") and bool(intent.implies)
        implied_there = implied_there and all(d.type == intent.implies for d in candidates)
        wants_all = wants_all or (where and (bool(nouns) or asks or implied_there))
        if where and nouns and not asks and not said_all and len(candidates) > 1:
            # "the bedroom lamp" where no light is named lamp: one of them, which one?
            wants_all = wants_all and not self._one_of_kind(a, nouns[-1], candidates)
        if wants_all and len(candidates) > 1:
            how = "all"
        ask = len(candidates) > 1 and not wants_all
        return Targets(candidates, *span, how, ask, covered, implied=how == "implied")

    def _phrase_word(self, h: NameHit, intent: IntentSpec, skip: set[int]) -> bool:
        if h.kind != "noun" or self.names.noun_types(h.key) or not intent.device_types:
            return False
        meant = {d.type for tier in self.names.noun_tiers(h.key) for d in tier}
        inside = skip.issuperset(range(h.start, h.end))
        return inside and not meant & set(intent.device_types)

    def _verb(self, a: Analysis, noun: NameHit, start: int, skip: set[int]) -> bool:
        """ "switch off the kitchen", "switch it off": a type word that is also a verb
        (devices.yaml `verbs`), uninflected and opening the part as the intent's own
        word, is the verb, not a switch ("turn the switch on" keeps its switch)."""
        if noun.kind != "noun" or noun.start not in skip:
            return False
        token = a.tokens[noun.start]
        if token.lower not in self.verb_nouns or token.lower != token.lemma:
            return False
        return all(a.tokens[i].lower in self.quiet for i in range(start, noun.start))

    def _one_of_kind(self, a: Analysis, noun: NameHit, candidates: list[Device]) -> bool:
        """ "the lamp": a singular type word that is not its type's own word ("light"),
        over devices none of which is named with it, means one of them."""
        if self._plural(a, noun) or noun.key in self.names.noun_types(noun.key):
            return False
        return not any(noun.key in self.names.name_words(d) for d in candidates)

    def _plural(self, a: Analysis, noun: NameHit) -> bool:
        """ "lights", "blinds" (whose lemma the language file keeps: "blind" is a word too)."""
        last = a.tokens[noun.end - 1]
        if not last.lower.endswith("s") or len(last.lower) < 3:
            return False
        return last.lower != last.lemma or self.names.is_noun(last.lower[:-1])

    def _not_the_room(
        self,
        a: Analysis,
        devices: list[NameHit],
        rooms: list[NameHit],
        types: set[str],
        nouns_said: bool,
    ) -> list[NameHit]:
        """ "turn on the garden", "the humidity in the garden": a device called like an
        area (a motion sensor named "garden") is the area said, when it cannot do what
        is asked, when it follows a place word ("in"), or when a kind is named too."""
        if not devices:
            return devices
        first = devices[0]
        if not any(r.start == first.start and r.end == first.end for r in rooms):
            return devices
        same = [h for h in devices if (h.start, h.end) == (first.start, first.end)]
        able = [h for h in same if (d := self.names.device(h.key)) is not None and d.type in types]
        before = [t.lower for t in a.tokens[max(0, first.start - 2) : first.start]]
        placed = any(w in self.places for w in before)
        if (able or not types) and not placed and not nouns_said:
            return devices
        return [h for h in devices if h not in same]

    def _generic_name(
        self,
        a: Analysis,
        hit: NameHit,
        types: set[str],
        scope: AreaScope | None,
        origin: str | None,
    ) -> bool:
        """A device named by a bare type word ("the heating" for the thermostat) is
        that word when the area asked about (named, or spoken in) has others of its
        type and not it."""
        noun = " ".join(a.tokens[i].lemma for i in range(hit.start, hit.end))
        noun_types = self.names.noun_types(noun)
        device = self.names.device(hit.key)
        if device is None or device.type not in noun_types:
            return False
        area = scope if scope is not None and not scope.everywhere else origin_scope(origin)
        if area is None or area.holds(device, self.roaming):
            return False
        others = [d for d in self.names.devices.values() if d.type == device.type]
        return any(area.holds(d, self.roaming) for d in others if not types or d.type in types)

    def _named(
        self,
        a: Analysis,
        start: int,
        hits: list[NameHit],
        intent: IntentSpec,
        types: set[str],
        scope: AreaScope | None,
        origin: str | None,
        said: list[str],
        states: set[str],
    ) -> Targets:
        """A device named (exactly or heard slightly wrong): those sharing the first
        span named, narrowed by what the intent can act on and by area. A name of a
        device of another kind, said exactly, is the device of the right kind named
        with its words ("lock the front door": the "front door lock"; a question's
        state word says the kind: "is the front door locked")."""
        first = hits[0]
        same = [h for h in hits if (h.start, h.end) == (first.start, first.end)]
        keys = [k for h in same for k in (h.key, *h.alternatives)]
        found = [d for k in dict.fromkeys(keys) if (d := self.names.device(k)) is not None]
        able = [d for d in found if d.type in types] if intent.device_types else found
        stand: list[Device] = []
        if found and first.score >= 100 and (not able or (states and types)):
            stand = self.kinds.stand_in(said, types, found, states)
            if stand:
                able = found = stand
        wrong_type = bool(found) and not able
        pool = namesake_in(self.names, said, able or found, scope, self.roaming)
        if len(pool) > 1:
            pool = narrow(pool, scope, origin, self.roaming)
        if len(pool) > 1 and first.score >= 100:  # a shared name said exactly
            area = scope is not None and self._plural(a, first)  # "the blinds downstairs"
            if every_one(a, first, start, pool, self.all_words, area):
                return Targets(pool, first.start, first.end, "all", wrong_type=wrong_type)
            pool = self.area_words.pick(a, first, start, pool, self.quiet.__contains__)
        ask, stood = len(pool) > 1, bool(stand)
        return Targets(
            pool, first.start, first.end, first.how, ask, stood_in=stood, wrong_type=wrong_type
        )

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
        found = self.names.fuzzy(a.tokens, first.start, reach, skip=skip, whole=True, memo=a.memo)
        longer = [
            h for h in found if h.kind == "device" and h.start == first.start and h.end > first.end
        ]
        if longer:
            return longer
        cut = self.names.continued(phrase, a.tokens[first.end].lower)
        if not cut or any(w.start == first.end for w in a.slot_words):  # "the ecobee up 1"
            return []
        # "the bulb end": the "bulb", or the "bulb enddevice" cut short? Ask.
        others = tuple(i for i in cut if i != first.key)
        return [NameHit("device", first.key, first.start, first.end + 1, 99.0, others)]

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
        area = None
        for room in rooms:
            if not room.is_area:
                continue
            if room.start == hit.start and room.end < hit.end:
                start, area = max(start, room.end), room.key  # "kitchen light": area + name
            elif room.end == hit.start:
                area = room.key  # "office" then "light"
        noun = " ".join(a.tokens[i].lemma for i in range(start, hit.end))
        noun_types = self.names.noun_types(noun)
        if not noun_types:
            return False
        last = a.tokens[hit.end - 1]
        plural = last.lower != last.lemma and last.lower.endswith("s")
        if device.type in noun_types:
            # "landing lights off", "the fans": all there, the "landing light", "Fan" among them
            return plural and (area is None or (device.room == area and start > hit.start))
        able = not intent.device_types or device.type in types
        if start == hit.start and not plural and able and names_it(self.names, noun, device):
            return False  # "is the dehumidifier running": the switch called so
        said = " ".join(a.tokens[i].lower for i in range(hit.start, hit.end))
        if able and said == name_key(device.name):
            return False  # "turn on the garage lights": the switch its owner called so
        return not (area is not None and not plural and able)

    def _types(self, a: Analysis, start: int, end: int, intent: IntentSpec) -> set[str]:
        types = set(intent.device_types)
        if not types:
            # "is the door locked": the state word says which kind of device is meant
            states = self._states(a, start, end)
            known = self.config.device_states.items()
            types = {t for t, words in known if states & set(words)}
        return types

    @staticmethod
    def _states(a: Analysis, start: int, end: int) -> set[str]:
        """The state words said in tokens[start:end] ("locked", "open"), in each kind's
        words ("out": off for a light, open for an awning)."""
        slots = ("state", "state_also")
        return {w.value for w in a.slot_words if w.slot in slots and start <= w.start < end}
