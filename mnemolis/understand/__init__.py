"""Understanding: text in, Plan out, with no I/O.

The stages run in this order: normalise; analyse (tokens, lemmas, every
matcher once); conditional detection on the whole query; decomposition with
its guards; conditional detection again on every part; routing of each part
with its slots; context for pronouns and ellipsis; clarification. Given the
same config, the same names and the same context, the same query always
gives the same Plan.
"""

from __future__ import annotations

from collections.abc import Iterable

from mnemolis.config import Config
from mnemolis.config.home import registry_from_config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.plan import Conditional, Part, Plan, Step
from mnemolis.understand.analysis import Analysis, Analyzer
from mnemolis.understand.conditional import ConditionDetector, ConditionSplit
from mnemolis.understand.context import Context, carry_slots, pick_option
from mnemolis.understand.decompose import Decomposer, Decomposition, Fragment
from mnemolis.understand.domain_follow import follows, sibling, values_alone
from mnemolis.understand.guards import Guards
from mnemolis.understand.intents import IntentMap
from mnemolis.understand.lookup import NameSource
from mnemolis.understand.names import NameIndex
from mnemolis.understand.normalize import Normalizer
from mnemolis.understand.route import Routed, Router
from mnemolis.understand.same_device import takes_previous_device
from mnemolis.understand.schedule import TimedSlots, TimeReader
from mnemolis.understand.scheduled import ScheduledActions
from mnemolis.understand.slots import SlotExtractor
from mnemolis.understand.text import TextPipeline
from mnemolis.understand.trace import Trace
from mnemolis.understand.unable import drop_unable
from mnemolis.understand.values import fit_to_device

__all__ = ["Context", "Trace", "Understander", "registry_from_config"]


class Understander:
    """Compiles the config once; `understand` is pure and fast."""

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry | None = None,
        name_sources: Iterable[NameSource] = (),
    ) -> None:
        self.config = config
        self.registry = registry if registry is not None else registry_from_config(config)
        self.text = TextPipeline(config.language)
        self.normalizer = Normalizer(config.language)
        self.intent_map = IntentMap(config, self.text, self.normalizer.written)
        # times: "for an hour and a half" is one span, "at 11 pm" schedules an action
        self.times = TimeReader(config)
        self.scheduled = ScheduledActions(config, self.times)
        self.names = NameIndex(config, self.text, self.registry, [self.times, *name_sources])
        self.analyzer = Analyzer(
            config, self.text, self.intent_map, self.names, self.normalizer.written
        )
        self.slots: SlotExtractor = TimedSlots(config, self.names, self.times)
        self.router = Router(config, self.slots)
        self.guards = Guards(config, self.names)
        self.decomposer = Decomposer(config, self.guards, self.router, self.text)
        self.conditions = ConditionDetector(config, self.router)
        lang = config.language
        self.pronouns = lang.pronouns
        self.plural_pronouns = lang.plural_pronouns
        self.quiet_words = frozenset(lang.stop_words | lang.filler_words | lang.pronouns)

    # ------------------------------------------------------------------ entry

    def understand(
        self,
        query: str,
        context: Context | None = None,
        trace: Trace | None = None,
        room: str | None = None,
    ) -> Plan:
        """The plan for ``query``; ``room`` is the area it was spoken in, when a
        front-end knows ("turn on the lights" then means that area's lights)."""
        if trace:
            trace.begin("normalise")
        norm = self.normalizer.normalize(query)
        plan = Plan(query=query, normalized=norm.text)
        if norm.truncated:
            plan.notes.append(
                f"the query was longer than {self.config.language.max_query_chars} characters "
                "and was cut at a word boundary"
            )
        if trace:
            trace.note(f"text: {norm.text!r}")
            for change in norm.changes:
                trace.note(change)
        if not any(ch.isalnum() for ch in norm.text):
            plan.clarify = self.config.language.replies["empty"]
            if trace:
                trace.end()
            return plan
        if trace:
            trace.begin("analyse")
        a = self.analyzer.analyze(norm.text)
        a.origin_room = room
        if trace:
            if room:
                trace.note(f"spoken in: {room}")
            trace.note(f"{len(a.tokens)} tokens; lemmas: {' '.join(t.lemma for t in a.tokens)}")
            phrases = sorted({f"{m.intent}:{m.rule.text!r}" for m in a.matches})
            trace.note("phrases: " + (", ".join(phrases) if phrases else "none"))
            names = sorted({f"{h.kind}:{a.span_text(h.start, h.end)}" for h in a.names})
            if names:
                trace.note("names: " + ", ".join(names))
        if context is not None and context.pending is not None:
            answered = self._answer_pending(a, context, plan, trace)
            if answered:
                if trace:
                    trace.end()
                return plan
        plan.steps = self._clause(a, 0, len(a.tokens), context, trace, top=True)
        if trace:
            trace.begin("clarify")
        plan.clarify = self._clarification(plan)
        if trace:
            trace.note(plan.clarify or "nothing to ask")
            trace.end()
        return plan

    # ------------------------------------------------------------------ structure

    def _clause(
        self,
        a: Analysis,
        start: int,
        end: int,
        context: Context | None,
        trace: Trace | None,
        top: bool = False,
    ) -> list[Step]:
        if trace:
            trace.begin("condition" if top else "condition (part)")
        found = self.conditions.detect(a, start, end)
        if trace:
            trace.note(self._describe_condition(a, found) if found else "none")
        if found is not None:
            rest = self._clause(a, *found.after, context, trace) if found.after else []
            return [self._conditional(a, found, context, trace), *rest]
        if trace:
            trace.begin("decompose")
        dec = self.decomposer.decompose(a, start, end)
        if trace:
            self._describe_split(a, (start, end), dec, trace)
        return self._steps(a, dec, context, None, trace, conditions=True)

    def _steps(
        self,
        a: Analysis,
        dec: Decomposition,
        context: Context | None,
        hint: object,
        trace: Trace | None,
        conditions: bool,
    ) -> list[Step]:
        """Route each fragment; a pronoun takes the device named just before it."""
        steps: list[Step] = []
        routed: list[Routed | None] = []
        for frag in dec.fragments:
            if conditions and len(dec.fragments) > 1 and frag.inherits_from is None:
                if trace:
                    trace.begin("condition (part)")
                inner = self.conditions.detect(a, frag.start, frag.end)
                if trace:
                    trace.note(
                        f"{a.span_text(frag.start, frag.end)!r}: "
                        + (self._describe_condition(a, inner) if inner else "none")
                    )
                if inner is not None:
                    steps.append(self._conditional(a, inner, context, trace))
                    routed.append(None)
                    continue
            if trace:
                trace.begin("route")
            root = routed[frag.inherits_from] if frag.inherits_from is not None else None
            if root is not None:
                part = self._inherit(a, root, frag, trace)
                routed.append(None)
            else:
                referent = bool(hint) or bool(context is not None and context.devices)
                begin = frag.route_from or frag.start  # the request, not the app opened for it
                r = self.scheduled.route(self.router, a, begin, frag.end, referent=referent)
                # after a domain's part, its phrase's head keeps to it ("... and add a coke");
                # values left say which of its intents is meant ("water the roses daily")
                kept = follows(self.config, a, _last_part(steps), r) if steps else None
                if kept := kept or sibling(self.config, a, r):
                    r = self.router.route_as(a, begin, frag.end, kept.intent, kept.said)
                part = r.part
                if begin != frag.start:
                    part.text = a.span_text(frag.start, frag.end)
                    part.provenance["app"] = a.span_text(frag.start, begin)
                routed.append(r)
                if trace:
                    self._describe_route(r, trace)
            self._resolve(a, part, frag.start, frag.end, context, hint, trace)
            if part.intent is None and part.provenance.get("reason") == "no intent phrase":
                alone = self.router.route_alone(a, frag.start, frag.end)  # "kitchen light"
                if alone is None and (own := values_alone(self.config, a, frag.start, frag.end)):
                    alone = self.router.route_as(a, frag.start, frag.end, own, ())
                asked = self.config.device_classes.state_intent
                if (
                    alone is None
                    and asked
                    and self.router.questions.marked(a.tokens, frag.start, frag.end, set())
                ):  # "front door open?": the state asked, though no phrase of it is said
                    alone = self.router.route_as(a, frag.start, frag.end, asked, ())
                if alone is not None and alone.part.intent is not None:
                    part, routed[-1] = alone.part, alone
                    if trace:
                        self._describe_route(alone, trace)
            fit_to_device(part, self.config, self.registry)  # "set it to 25 percent"
            drop_unable(part, self.config, self.registry)  # "lock the back door": a sensor
            if part.revert is not None:  # "... for 10 minutes": put back what was resolved
                part.revert.slots = dict(part.slots)
                part.revert.provenance = dict(part.provenance)
            hint = part.slots.get("device") or hint
            steps.append(part)
        return steps

    def _conditional(
        self, a: Analysis, found: ConditionSplit, context: Context | None, trace: Trace | None
    ) -> Step:
        if trace:
            trace.begin("route")
        cond_routed = self.router.route(a, *found.condition, condition=True, referent=True)
        condition = cond_routed.part
        if trace:
            self._describe_route(cond_routed, trace, "if")
        report = a.cue_at("report", found.then[0])
        if report is not None and report.end == found.then[1] and found.trigger == "when":
            # "let me know when the garage door opens": a watch with nothing to do but tell
            self._resolve(a, condition, *found.condition, context, None, trace)
            return Conditional(condition=condition, trigger=found.trigger)
        if report is not None and report.end == found.then[1] and found.otherwise is None:
            # "if the back door is unlocked, let me know": that is the question itself
            question = self.router.route(a, *found.condition).part
            self._resolve(a, question, *found.condition, context, None, trace)
            question.provenance["asked_as"] = "condition to report"
            return question
        # a pronoun refers across the condition: "if it is unlocked, lock the back door",
        # "if the back door is unlocked, lock it", "... otherwise open it"
        cond_device = condition.slots.get("device")
        then = self._branch(a, found.then, context, cond_device, trace)
        then_device = next((p.slots["device"] for p in then if p.slots.get("device")), None)
        self._resolve(a, condition, *found.condition, context, then_device, trace)
        if condition.intent is None:
            condition.provenance["reason"] = "no source can check this condition"
        hint = condition.slots.get("device") or then_device
        otherwise = (
            self._branch(a, found.otherwise, context, hint, trace) if found.otherwise else []
        )
        return Conditional(
            condition=condition,
            then=then,
            otherwise=otherwise,
            negate=found.negate,
            trigger=found.trigger,
        )

    def _branch(
        self,
        a: Analysis,
        span: tuple[int, int] | None,
        context: Context | None,
        hint: object,
        trace: Trace | None,
    ) -> list[Part]:
        if span is None:
            return []
        dec = self.decomposer.decompose(a, *span)
        steps = self._steps(a, dec, context, hint, trace, conditions=False)
        return [s for s in steps if isinstance(s, Part)]

    # ------------------------------------------------------------------ inheritance

    def _inherit(self, a: Analysis, root: Routed, frag: Fragment, trace: Trace | None) -> Part:
        """ "close the garage door as well as the living room blinds": borrow the verb."""
        toks = a.tokens
        # the values the fragment says anew replace the root's ("order a large pepperoni
        # and a small margherita": both the size and the pizza)
        fills = [
            f
            for slot_type in sorted(frag.slot_types)
            if root.best is not None
            and (f := root.best.slots.fills.get(slot_type)) is not None
            and f.start >= 0
        ]
        frag_s, frag_e = frag.start, frag.end
        if fills:
            first = min(f.start for f in fills)
            last = max(f.end for f in fills)
            before = [t.lower for t in toks[max(root.start, first - 2) : first]]
            while frag_s < frag_e and before and toks[frag_s].lower in before:
                before.remove(toks[frag_s].lower)
                frag_s += 1
            head = a.text[toks[root.start].start : toks[first].start]
            tail = a.text[toks[last - 1].end : toks[root.end - 1].end]
            kept = list(range(root.start, first)) + list(range(last, root.end))
        else:
            head = a.span_text(root.start, root.end) + " "
            tail = ""
            kept = list(range(root.start, root.end))
        text = head + a.span_text(frag_s, frag_e) + tail
        inherited = [toks[i].text for i in kept if not toks[i].is_punct]
        sub = self.analyzer.analyze(text)
        sub.origin_room = a.origin_room
        r = self.scheduled.route(self.router, sub, 0, len(sub.tokens), referent=True)
        part = r.part
        # "in 5 minutes turn off the porch light and the hallway light", and "turn off the
        # porch light and the hallway light in 5 minutes": one request, one time
        part.schedule = part.schedule or root.part.schedule
        root.part.schedule = root.part.schedule or part.schedule
        part.provenance["inherited"] = inherited
        part.provenance["from"] = root.part.text
        if trace:
            trace.note(f"{a.span_text(frag.start, frag.end)!r} inherits -> {text!r}")
            self._describe_route(r, trace)
        return part

    # ------------------------------------------------------------------ context

    def _resolve(
        self,
        a: Analysis,
        part: Part,
        start: int,
        end: int,
        context: Context | None,
        hint: object,
        trace: Trace | None,
    ) -> None:
        """Pronouns take the device the conditional names, else the last one; ellipsis
        takes the last intent."""
        words = {a.tokens[i].lower for i in range(start, end)}
        if part.intent is not None:
            bare = takes_previous_device(a, part, start, end, hint, self.config, self.registry)
            # "... and 20 degrees": a bare value is about the device just named, as "it" is
            said_it = bool(words & self.pronouns) or bare
            if part.source == "mqtt" and "device" not in part.slots and said_it:
                if hint:
                    part.slots["device"] = hint
                    part.provenance.setdefault("slots", {})["device"] = "same request"
                elif context is not None and context.devices:
                    plural = bool(words & self.plural_pronouns)
                    value: object = list(context.devices) if plural else context.devices[-1]
                    if plural and len(context.devices) == 1:
                        value = context.devices[0]
                    part.slots["device"] = value
                    part.provenance.setdefault("slots", {})["device"] = "context"
                part.provenance.pop("options", None)
                if trace and "device" in part.slots:
                    trace.begin("context")
                    trace.note(f"{part.text!r}: same device -> {part.slots['device']}")
            return
        if context is None or context.intent is None or "declined" in part.provenance:
            return
        is_followup = any(c.kind == "ellipsis" and start - 1 <= c.start <= start for c in a.cues)
        content = self.router.content(a, start, end)
        if not is_followup and len(content) > 3:
            return
        intent = self.config.intents.get(context.intent)
        if intent is None:
            return
        found = self.slots.extract(a, start, end, intent, None)
        # a follow-up changes the values of the last request ("what about tomorrow"); its
        # words are never a broadcast's message or a timer's name (a free-text slot)
        new = {k: v for k, v in found.values().items() if not self._free_text(k)}
        if not new and not found.options:
            return
        merged, carried = carry_slots(context.slots, new)
        part.intent = intent.name
        part.source = intent.source
        part.slots = merged
        part.confidence = max(part.confidence, self.router.floor)
        how = {n: f.how for n, f in found.fills.items()}
        how.update({k: "context" for k in carried})
        part.provenance = {"intent": "context", "slots": how}
        if found.options and "device" not in merged:
            part.provenance["options"] = found.options
        part.provenance.pop("reason", None)
        if trace:
            trace.begin("context")
            trace.note(f"{part.text!r}: follow-up of {intent.name}, carried {carried or 'nothing'}")

    def _free_text(self, slot: str) -> bool:
        spec = self.config.slots.get(slot)
        return spec is not None and spec.type == "text"

    def _answer_pending(
        self, a: Analysis, context: Context, plan: Plan, trace: Trace | None
    ) -> bool:
        pending = context.pending
        assert pending is not None
        choice = pick_option(a.text, pending.options, self.quiet_words)
        if choice is None:
            return False
        part = Part.from_dict(pending.part.to_dict())
        part.slots[pending.slot] = choice
        part.provenance.pop("options", None)
        part.provenance.setdefault("slots", {})[pending.slot] = "clarified"
        plan.steps = [part]
        if trace:
            trace.begin("context")
            trace.note(f"answer to the clarifying question: {choice}")
        return True

    def _clarification(self, plan: Plan) -> str | None:
        replies = self.config.language.replies
        for part in plan.parts():
            options = part.provenance.get("options")
            if options and "device" not in part.slots:
                named = [replies["option"].format(name=o) for o in options]
                listed = ", ".join(named[:-1]) + replies["or"] + named[-1]
                return replies["which"].format(options=listed)
        return None

    # ------------------------------------------------------------------ explain

    @staticmethod
    def _describe_condition(a: Analysis, found: ConditionSplit) -> str:
        text = (
            f"{found.form} {found.word!r} ({found.trigger}"
            + (", negated" if found.negate else "")
            + f"), split at {found.boundary}: if {a.span_text(*found.condition)!r} "
            f"then {a.span_text(*found.then)!r}"
        )
        if found.otherwise:
            text += f" else {a.span_text(*found.otherwise)!r}"
        return text

    def _describe_split(
        self, a: Analysis, span: tuple[int, int], dec: Decomposition, trace: Trace
    ) -> None:
        if not dec.occurrences:
            trace.note("no conjunctions")
        judge = self.guards.value_lists.judge
        for o in dec.occurrences:
            where = f"{a.span_text(o.start, o.end)!r} at token {o.start}"
            if o.guard:
                trace.note(f"{where}: protected ({o.guard})")
            else:  # why the value-list guard let it split
                trace.note(f"{where}: split point ({judge(a, *span, o, dec.occurrences).why})")
        for split in dec.tried:
            mark = "*" if split is dec.chosen else " "
            trace.note(f"{mark} {split.strategy!r}: {len(split.fragments)} part(s)")
            for s, e, why in split.dropped:
                trace.note(f"    dropped {a.span_text(s, e)!r} ({why})")
            for o in split.undone:
                kept = a.span_text(o.start, o.end)
                trace.note(f"    kept {kept!r} inside a part (what follows is not a request)")
        for frag in dec.fragments:
            extra = (
                f" (inherits from part {frag.inherits_from + 1})"
                if frag.inherits_from is not None
                else ""
            )
            trace.note(f"part: {a.span_text(frag.start, frag.end)!r}{extra}")

    @staticmethod
    def _describe_route(r: Routed, trace: Trace, label: str = "part") -> None:
        p = r.part
        trace.note(
            f"{label} {p.text!r} -> {p.intent or 'out of scope'} (confidence {p.confidence:.2f})"
        )
        for c in r.candidates[:3]:
            trace.note(
                f"    {c.intent.name}: {c.score:.2f} via {c.match.rule.text!r}, "
                f"coverage {c.coverage:.2f}"
            )
        if p.slots:
            hows = p.provenance.get("slots", {})
            trace.note(
                "    slots: "
                + ", ".join(f"{k}={v!r} ({hows.get(k, '?')})" for k, v in p.slots.items())
            )
        for key in ("declined", "reason", "options", "readings"):
            if key in p.provenance:
                trace.note(f"    {key}: {p.provenance[key]}")


def _last_part(steps: list[Step]) -> Part | None:
    return steps[-1] if isinstance(steps[-1], Part) else None
