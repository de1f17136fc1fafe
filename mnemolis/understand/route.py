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
from mnemolis.plan import Part
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.intents import Match
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
        self.quiet = lang.stop_words | lang.filler_words
        self.pronouns = lang.pronouns

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
        content = self.content(a, start, end)
        literal = {n: {i for m in ms for i in m.literal} for n, ms in by_intent.items()}
        claimed = {n: set().union(*(v for k, v in literal.items() if k != n)) for n in literal}
        has_pronoun = any(a.tokens[i].lower in self.pronouns for i in range(start, end))
        out = []
        for name, matches in by_intent.items():
            intent = self.config.intents[name]
            if condition and not intent.condition:
                continue
            best = max(matches, key=lambda m: (phrase_strength(m), m.end - m.start))
            evidence = {i for m in matches for i in m.literal}
            slots = self.slots.extract(a, start, end, intent, best)
            topic = slots.fills.get("topic")
            all_topic = set(topic.tokens) if topic else set()
            # a word another intent's phrase claims is not part of a topic
            topic_tokens = all_topic - claimed.get(name, set())
            covered = evidence | (slots.covered - all_topic)
            weight = sum(1.0 for i in content if i in covered)
            weight += sum(
                self.topic_weight for i in content if i in topic_tokens and i not in covered
            )
            coverage = weight / len(content) if content else 0.0
            score = phrase_strength(best) * (
                (1 - self.coverage_weight) + self.coverage_weight * coverage
            )
            for slot in intent.requires:
                if slot in slots.fills or (slot == "device" and slots.options):
                    continue
                if slot == "device" and has_pronoun and referent:
                    continue
                spec = self.config.slots[slot]
                if spec.missing_penalty is not None:
                    score -= spec.missing_penalty
                elif any(
                    i not in covered for i in content if a.tokens[i].lower not in self.pronouns
                ):
                    score -= self.missing_penalty  # words left over may name it: say which exist
                else:
                    score -= self.nothing_penalty  # "stop it", "turn it off": nothing named at all
            if any(
                m.intent == name and m.inside(start, end) and not evidence.issuperset(m.literal)
                for m in a.avoid
            ):
                score -= self.avoid_penalty
            if slots.wrong_type:
                score -= self.wrong_type_penalty
            out.append(Candidate(intent, score, best, slots, coverage))
        out.sort(key=lambda c: (c.score, c.intent.priority), reverse=True)
        return out

    def route(
        self,
        a: Analysis,
        start: int,
        end: int,
        *,
        condition: bool = False,
        referent: bool = False,
    ) -> Routed:
        text = a.span_text(start, end)
        candidates = self.candidates(a, start, end, condition=condition, referent=referent)
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
        if best.slots.options:
            part.provenance["options"] = list(best.slots.options)
        return routed
