"""Routing one part: score every intent whose phrases it contains, keep the best.

The score of an intent is the strength of its best phrase (its weight,
higher for longer phrases) scaled by how much of the part's content its
phrases and slots explain; a missing required slot costs a penalty, and
priority breaks ties. Below the floor, the part is out of scope: the
router declines rather than guesses. Intents whose source is null are
recognised requests that Mnemolis does not serve; they decline by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemolis.config import Config, IntentSpec
from mnemolis.core.plan import Part
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.device_sets import CLASS_IN_AREA, DeviceSets
from mnemolis.understand.intents import Match, PhraseRule
from mnemolis.understand.names import AREA_MARK
from mnemolis.understand.quantity_words import QuantityWords
from mnemolis.understand.questions import QuestionFrame
from mnemolis.understand.route_ties import explains_by_name, names_by_stem, noun_after_determiner
from mnemolis.understand.slots import SlotExtractor, SlotResult


@dataclass
class Candidate:
    intent: IntentSpec
    score: float
    match: Match
    slots: SlotResult
    coverage: float


@dataclass
class Routed:
    """A routed range of the analysed text, with what explain needs."""

    start: int
    end: int
    part: Part
    best: Candidate | None = None
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def options(self) -> list[str]:
        return self.best.slots.options if self.best else []


@dataclass
class _PartFacts:
    """What every candidate of one part is scored against."""

    content: list[int]  # content tokens (not stop words or filler)
    literal: dict[str, set[int]]  # tokens each intent's phrases cover
    has_pronoun: bool
    declined: set[int]  # tokens that name a declined domain (source null)
    referent: bool  # a pronoun here can refer to something

    def claimed_by_others(self, intent: str) -> set[int]:
        return set().union(*(v for k, v in self.literal.items() if k != intent))


def _reads_in_area(c: Candidate) -> bool:
    """A reading of one sensor found by its class in the area asked about; a state asked
    of it ("is it cold outside") is no reading."""
    device = c.slots.fills.get("device")
    read = device is not None and device.how == CLASS_IN_AREA
    return read and "state" not in c.intent.slots


def _names_a_day(c: Candidate) -> bool:
    day = c.slots.fills.get("day")
    return day is not None and day.value != "now"


def _announced_by_device(out: list[Candidate], penalty: float) -> None:
    """ "put the ceiling fan on sleep mode": a word the named device announced as its
    own value (the fan's preset "sleep") says which intent is meant, that of the
    device's kind (a fan's preset is its speed, a climate's mode its mode); an intent
    for another kind that reads the same words as its value is not meant."""
    own = {
        i
        for c in out
        if not c.slots.wrong_type
        for f in c.slots.fills.values()
        if f.how == "announced"
        for i in f.tokens
    }
    if not own:
        return
    for c in out:
        if c.slots.wrong_type and any(
            set(f.tokens) & own for n, f in c.slots.fills.items() if n not in ("device", "room")
        ):
            c.score -= penalty


def _in_value(match: Match, slots: SlotResult) -> bool:
    """ "water the pots on the patio": a word of the phrase said in the middle of a value
    of the intent's own list slots ("on" in "pots on the patio") is the value's, not the
    phrase's. At a value's edge it may be both ("water ... every" and "every day"), and a
    phrase that says the whole value ("to do list") is both."""
    if not slots.readings:
        return False
    captured = {i for s, e in match.captures.values() for i in range(s, e)}
    said = set(match.literal) - captured
    return any(
        r.start < i < r.end - 1 and not said.issuperset(range(r.start, r.end))
        for r in slots.readings
        for i in said
    )


def phrase_strength(match: Match) -> float:
    return match.rule.weight * min(1.0, 0.7 + 0.15 * match.rule.literal_words)


class Router:
    def __init__(self, config: Config, slots: SlotExtractor) -> None:
        self.config = config
        self.slots = slots
        lang = config.language
        self.floor = lang.routing.get("floor", 0.5)
        self.coverage_weight = lang.routing.get("coverage_weight", 0.45)
        self.missing_penalty = lang.routing.get("missing_required_penalty", 0.1)
        self.nothing_penalty = lang.routing.get("nothing_to_act_on_penalty", 0.3)
        self.wrong_type_penalty = lang.routing.get("wrong_device_type_penalty", 0.3)
        self.avoid_penalty = lang.routing.get("avoid_penalty", 0.15)
        self.topic_weight = lang.routing.get("topic_coverage", 0.5)
        self.unnamed_coverage = lang.routing.get("unnamed_question_coverage", 0.75)
        self.alone_weight = lang.routing.get("name_alone_weight", 0.8)
        self.quiet = lang.stop_words | lang.filler_words
        self.pronouns = lang.pronouns
        # a question never acts (the question frame), and asks about a class or a set
        self.questions = QuestionFrame(config, slots.names.text)
        self.device_sets = DeviceSets(config, slots.names.text, slots.names)
        self.quantities = QuantityWords(config, slots.names.text)

    def content(self, a: Analysis, start: int, end: int) -> list[int]:
        toks = a.tokens
        words = [i for i in range(start, end) if not toks[i].is_punct]
        content = [i for i in words if toks[i].lower not in self.quiet]
        return content or words

    def candidates(
        self,
        a: Analysis,
        start: int,
        end: int,
        *,
        condition: bool = False,
        referent: bool = False,
    ) -> list[Candidate]:
        """Every intent with a phrase in the range, scored, best first.

        ``referent`` says whether a pronoun here can refer to something (an
        earlier device in the conversation or the request).
        """
        by_intent: dict[str, list[Match]] = {}
        for m in a.matches:
            if m.inside(start, end):
                by_intent.setdefault(m.intent, []).append(m)
        if not by_intent:
            return []
        literal = {n: {i for m in ms for i in m.literal} for n, ms in by_intent.items()}
        part = _PartFacts(
            content=self.content(a, start, end),
            literal=literal,
            has_pronoun=any(a.tokens[i].lower in self.pronouns for i in range(start, end)),
            declined={
                i
                for n, tokens in literal.items()
                if self.config.intents[n].source is None
                for i in tokens
            },
            referent=referent,
        )
        starts = {m.start for ms in by_intent.values() for m in ms}
        asks = self.questions.asks(a.tokens, start, end)
        asks = asks or self.questions.marked(a.tokens, start, end, starts)
        out = []
        for name, matches in by_intent.items():
            intent = self.config.intents[name]
            if asks and self.questions.acts(intent):
                continue  # the invariant: a question is never routed to an action
            if not condition or intent.condition:
                out.append(self._score(a, start, end, intent, matches, part))
        if asks and (
            any(
                h.kind == "device" and h.score >= 100 and start <= h.start and h.end <= end
                for h in a.names
            )
            or any(
                explains_by_name(a, c.match, c.slots, c.coverage, self.slots.names, (start, end))
                or names_by_stem(c.slots)
                for c in out
            )
        ):
            # a question naming a device is about it: "is there post in the mailbox" asks
            # the mailbox sensor, whatever a declined domain's word ("post") or another
            # source's question frame ("what is the ... temperature") says
            for c in out:
                if c.intent.source is None or "device" not in c.intent.slots:
                    c.score -= self.avoid_penalty
        if not self._names_a_thing(a, start, end, part):
            # "how many notifications do i have on facebook", "turn on the local radio":
            # a device intent with no device, type word or area named yields to the
            # domain the part does name; a question about nothing named asks about the
            # house only when its words are all the question's ("what's on", not "what
            # is open late in la")
            for c in out:
                if c.intent.source is None or "device" not in c.intent.slots:
                    continue
                # (a word the intent's own phrase says is its, too: "it's roasting")
                away = part.declined - part.literal.get(c.intent.name, set())
                if away or (asks and c.coverage < self.unnamed_coverage):
                    c.score -= self.avoid_penalty
        if asks and any(_reads_in_area(c) for c in out):
            # "what's the temperature in here": the room's sensor answers, not the forecast;
            # a day other than now is the forecast's ("what's the temperature tomorrow")
            for c in out:
                if "device" not in c.intent.slots and not _names_a_day(c):
                    c.score -= self.avoid_penalty
        if self._names_home_area(a, start, end) and any(
            "device" in c.intent.slots and c.coverage >= 1.0 and not c.slots.wrong_type for c in out
        ):
            # "how humid is it in the bedroom", "the bedroom's a bit chilly": a place that is
            # one of the home's areas, in a part a device intent explains whole, is not a
            # place a forecast or a clock is for
            for c in out:
                if "location" in c.intent.slots and "location" not in c.slots.fills:
                    c.score -= self.avoid_penalty
        self._quantity_named(a, start, end, out)
        _announced_by_device(out, self.avoid_penalty)
        # of two as sure, the one that acts on the device named, not on another named with
        # its words: "set the ceiling fan to 50%" is the fan's speed, not the brightness of
        # the "ceiling fan light" (which "lock the front door" needs: no other intent fits);
        # then the one whose phrase is no noun after "my", "the" ("remove the hawaiian from
        # my order": the removal, not an order)
        out.sort(
            key=lambda c: (
                c.score,
                not c.slots.stood_in,
                not noun_after_determiner(a, c.match, self.config.language.naming_determiners),
                c.intent.priority,
            ),
            reverse=True,
        )
        return out

    def _names_a_thing(self, a: Analysis, start: int, end: int, part: _PartFacts) -> bool:
        """A device, a type word, a room or an area is named, a word of a device's own
        name is said ("the car" of "car mileage"), or a pronoun refers. A type word
        inside a phrase ("switch" of "switch on") names nothing."""
        if part.has_pronoun and part.referent:
            return True
        phrased = {i for n, ts in part.literal.items() if self.config.intents[n].source for i in ts}
        if any(
            (h.kind in ("device", "room", "noun") or h.is_area)
            and start <= h.start < end
            and (h.kind != "noun" or not phrased.issuperset(range(h.start, h.end)))
            for h in a.names
        ):
            return True
        names = self.slots.names
        return any(names.is_name_word(a.tokens[i].lemma) for i in part.content)

    @staticmethod
    def _names_home_area(a: Analysis, start: int, end: int) -> bool:
        """An area of the home is said: its name, or "in here" where the room is known."""
        return any(
            h.kind == "room"
            and start <= h.start < end
            and (h.is_area or (h.key.startswith(AREA_MARK) and a.origin_room is not None))
            for h in a.names
        )

    def _quantity_named(self, a: Analysis, start: int, end: int, out: list[Candidate]) -> None:
        """ "set the humidity in the bedroom to 50%", "set the kitchen to 20 degrees": an
        intent that read the number as another quantity (a light's brightness) is not
        meant, when one read it as the quantity named by its word or its unit."""
        names = {i for h in a.names if h.kind == "device" for i in range(h.start, h.end)}
        named = self.quantities.named(a.tokens, start, end, names)
        units = self.quantities.units_said(a.tokens, start, end)
        if not named and not units:
            return
        slots = self.config.slots
        for c in out:
            # a select's option read from the number ("65") is no temperature either; nor
            # is a brightness a phrase captured ("set ... to {brightness}": "20 degrees")
            read = set(c.slots.fills) | set(c.match.captures)
            values = (self.quantities.number_slots | {"option"}) & read
            if not values:
                continue
            by_word = bool(named) and not values & named
            by_unit = bool(units) and all(
                slots[v].units and not units & set(slots[v].units) for v in values
            )
            if (by_word and any(named & set(o.slots.fills) for o in out)) or (
                by_unit and any(self._takes(o, units) for o in out)
            ):
                c.score -= self.avoid_penalty

    def _takes(self, c: Candidate, units: set[str]) -> bool:
        """The candidate reads a number as a slot that takes one of these units."""
        return any(
            units & set(self.config.slots[n].units)
            for n in c.slots.fills
            if n in self.quantities.number_slots
        )

    def _score(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        matches: list[Match],
        part: _PartFacts,
    ) -> Candidate:
        """Phrase strength, scaled by how much of the part the intent explains."""
        best = max(matches, key=lambda m: (phrase_strength(m), m.end - m.start))
        evidence = part.literal[intent.name]
        claimed = part.claimed_by_others(intent.name)
        slots = self.slots.extract(a, start, end, intent, best)
        if slots.exclusion is None:
            self.device_sets.refine(a, start, end, intent, slots)
        else:  # a question's set, from the words before "except", without what it leaves out
            ex = self.slots.exclusions.find(a, start, end)
            self.device_sets.refine(a, start, ex.cue if ex else end, intent, slots)
            self.slots.exclusions.keep(slots, slots.exclusion, self.slots.names)
        topic = slots.fills.get("topic")
        all_topic = set(topic.tokens) if topic else set()
        # a word another intent's phrase claims is not part of a topic, unless the
        # topic is a known title
        topic_tokens = all_topic - claimed
        covered = evidence | (slots.covered - all_topic)
        if topic is not None and topic.how == "title":
            covered |= all_topic
        weight = sum(1.0 for i in part.content if i in covered)
        weight += sum(self.topic_weight for i in part.content if i in topic_tokens - covered)
        coverage = weight / len(part.content) if part.content else 0.0
        # weights above 1 order phrases; the score itself starts at most at 1
        score = min(
            1.0,
            phrase_strength(best) * ((1 - self.coverage_weight) + self.coverage_weight * coverage),
        )
        # "increase the volume": the implied lights are not meant when a declined domain
        # is what the request is about
        implied_away = slots.implied and any(
            i in part.declined and i not in evidence for i in part.content
        )
        for slot in intent.requires:
            if slot == "device" and implied_away:
                score -= self.nothing_penalty
                continue
            if slot in slots.fills or (slot == "device" and (slots.options or slots.missing)):
                continue  # a "which one", or "there is no vacuum there": both understood
            if slot == "device" and part.has_pronoun and part.referent:
                continue
            spec = self.config.slots[slot]
            leftover = [
                i
                for i in part.content
                if i not in covered and i not in claimed and a.tokens[i].lower not in self.pronouns
            ]
            if spec.missing_penalty is not None:
                score -= spec.missing_penalty
            elif leftover:
                score -= self.missing_penalty  # words left over may name it: say which exist
            else:
                score -= self.nothing_penalty  # "stop it", "turn on the radio": nothing to act on
        argued_against = any(
            m.intent == intent.name and m.inside(start, end) and not evidence.issuperset(m.literal)
            for m in a.avoid
        )
        # a question frame ("what is", "what time") yields to a declined domain named in
        # the same part; a strong phrase ("define", weight 1.2 and more) does not
        yields = intent.defer and bool(part.declined) and best.rule.weight < 1.2
        # "activate movie night": a phrase said only as part of a device's exact name is
        # the name, for an intent that takes no device
        in_name = "device" not in intent.slots and any(
            h.kind == "device" and h.start <= best.start and best.end <= h.end for h in a.names
        )
        if argued_against or yields or _in_value(best, slots):
            score -= self.avoid_penalty
        if in_name:  # "movie night on": the scene named so, not a routine's phrase
            score -= self.nothing_penalty
        if slots.wrong_type:
            score -= self.wrong_type_penalty
        return Candidate(intent, score, best, slots, coverage)

    def route(
        self,
        a: Analysis,
        start: int,
        end: int,
        *,
        condition: bool = False,
        referent: bool = False,
    ) -> Routed:
        candidates = self.candidates(a, start, end, condition=condition, referent=referent)
        return self._routed(a, start, end, candidates)

    def route_as(
        self, a: Analysis, start: int, end: int, name: str, said: tuple[int, ...]
    ) -> Routed:
        """The part as ``name`` said with the words ``said`` (`domain_follow`), or with
        none (`values_alone`)."""
        part = _PartFacts(self.content(a, start, end), {name: set(said)}, False, set(), False)
        rule = PhraseRule(name, "(said without its phrase)", self.alone_weight, max(2, len(said)))
        match = Match(rule, said[0] if said else start, said[-1] + 1 if said else start, said)
        c = self._score(a, start, end, self.config.intents[name], [match], part)
        return self._routed(a, start, end, [c])

    def route_alone(self, a: Analysis, start: int, end: int) -> Routed | None:
        """ "kitchen light", "balcony thermometer", "lights" said in the kitchen: a part
        that is nothing but names of devices, with no intent phrase, means what an intent
        marked `name_alone` does to a device of that kind (toggle a light, read a sensor);
        a device no such intent takes, or a name not known, stays out of scope."""
        if any(m.inside(start, end) for m in a.matches):
            return None  # a phrase was said: what it means, or nothing ("is the ... ?")
        content = self.content(a, start, end)
        named = [
            h
            for h in a.names
            if start <= h.start
            and h.end <= end
            and (h.kind in ("device", "noun", "room") or h.is_area)
        ]
        covered = {i for h in named for i in range(h.start, h.end)}
        if not content or not covered.issuperset(content):
            return None
        if not any(h.kind in ("device", "noun") for h in named):
            return None  # "the kitchen" alone is no request
        asks = self.questions.asks(a.tokens, start, end)
        alone = [
            i
            for i in self.config.intents.values()
            if i.name_alone and i.source and not (asks and self.questions.acts(i))
        ]
        literal: dict[str, set[int]] = {i.name: set() for i in alone}
        part = _PartFacts(content, literal, has_pronoun=False, declined=set(), referent=False)
        out = []
        for intent in alone:
            rule = PhraseRule(intent.name, "(a name alone)", self.alone_weight, 2)
            c = self._score(a, start, end, intent, [Match(rule, start, start, ())], part)
            if c.slots.wrong_type or c.slots.unknown:
                continue  # "front door lock", "garage light" with no garage: nothing alone
            if "device" in c.slots.fills or c.slots.options:
                out.append(c)
        # of two as sure, the one that acts on the device named, not on another named with
        # its words: "set the ceiling fan to 50%" is the fan's speed, not the brightness of
        # the "ceiling fan light" (which "lock the front door" needs: no other intent fits)
        out.sort(key=lambda c: (c.score, not c.slots.stood_in, c.intent.priority), reverse=True)
        return self._routed(a, start, end, out) if out else None

    def _routed(self, a: Analysis, start: int, end: int, candidates: list[Candidate]) -> Routed:
        text = a.span_text(start, end)
        best = candidates[0] if candidates else None
        part = Part(text=text)
        routed = Routed(start, end, part, best, candidates)
        if best is None:
            part.provenance["reason"] = "no intent phrase"
            return routed
        part.confidence = max(0.0, min(1.0, best.score))
        part.provenance["phrase"] = best.match.rule.text
        if len(candidates) > 1:
            runner = candidates[1]
            part.provenance["runner_up"] = [runner.intent.name, round(runner.score, 3)]
        if best.score < self.floor:
            name, score = best.intent.name, best.score
            part.provenance["reason"] = f"best intent {name} scored {score:.2f}, below {self.floor}"
            return routed
        if best.intent.source is None:
            part.provenance["declined"] = best.intent.name
            return routed
        part.intent = best.intent.name
        part.source = best.intent.source
        part.slots = best.slots.values()
        if best.slots.fills:
            part.provenance["slots"] = {n: f.how for n, f in best.slots.fills.items()}
        won = [r for r in best.slots.readings if r.beaten]
        if won:  # "a medium crust": which value won, and over what
            part.provenance["readings"] = [
                f"{r.slot} {r.value!r} ({r.why}) over {', '.join(r.beaten)}" for r in won
            ]
        if best.slots.options:
            part.provenance["options"] = list(best.slots.options)
        elif best.slots.missing and "device" not in part.slots:
            part.provenance["missing"] = best.slots.missing  # "there is no vacuum there"
        if best.slots.left_out:
            part.provenance["left_out"] = best.slots.left_out  # "... except the kitchen"
        if best.slots.unknown and "device" not in part.slots:
            part.provenance["unknown"] = best.slots.unknown  # "the cellar": no such area
        return routed
