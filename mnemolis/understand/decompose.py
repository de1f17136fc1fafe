"""Decomposition: split a compound request into independent parts.

The mechanism is the one Mnemolis was modelled on. Every conjunction type
is tried on its own, longest first, and then all of them together (adjacent
occurrences such as "and also" collapse into one split point); the split
with the most meaningful parts wins and ties keep the first found. Guards
(see `guards`) protect single occurrences. After a split, each fragment is
judged in the seed's order: an INTENT_MAP phrase makes it meaningful; then
a colloquial question form; then fragments of three characters or fewer are
dropped; then fragments of only stop words and filler are dropped.

A few rules keep splitting honest on speech, where there are no capitals
and no commas. A fragment after a split point must open a request of its
own: a question word, a verb in its base form, an auxiliary, a subject with
its verb ("i want ...", not "my mom and i at a restaurant"), or a phrase of
an intent Mnemolis serves; ", and" and the strong connectors ("and then",
"and also") always start a new request. Otherwise the fragment inherits the
verb or topic of the part before it, when it is made of slot values that
part's intent takes ("close the garage door as well as the living room
blinds"), or the split point is undone ("book a table for catalina and
brandie mendoza"). A bare verb shares the next part's object ("find and play
a concerto"), after a split point too. Three more joins: an app opened before
the request made in it ("open itunes and play ..."); a verb on "it" that no
source serves, which works on what the part before made ("play music by X and
sort it through the top 50"); a fragment of pronouns only ("for my mom and i").
A verbless fragment after a plain "and" needs a sure route
(`verbless_part_floor`). Nothing is lost either way: every word stays in some
part.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemolis.config import Config
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.guards import Guards, Occurrence
from mnemolis.understand.route import Router
from mnemolis.understand.text import TextPipeline

COMMA = ","


@dataclass
class Fragment:
    """A part's token range; ``inherits_from`` is the index of the part it borrows from."""

    start: int
    end: int
    inherits_from: int | None = None
    slot_types: frozenset[str] = frozenset()
    route_from: int | None = None  # after an app opened for it: "open itunes and | play ..."


@dataclass
class Split:
    """One strategy's result, kept for `explain`."""

    strategy: str
    points: list[Occurrence]
    fragments: list[Fragment]
    dropped: list[tuple[int, int, str]] = field(default_factory=list)
    undone: list[Occurrence] = field(default_factory=list)


@dataclass
class Decomposition:
    fragments: list[Fragment]
    occurrences: list[Occurrence]
    tried: list[Split] = field(default_factory=list)
    chosen: Split | None = None


class Decomposer:
    def __init__(self, config: Config, guards: Guards, router: Router, text: TextPipeline) -> None:
        self.config = config
        self.guards = guards
        self.router = router
        self.text = text
        lang = config.language
        self.quiet = lang.stop_words | lang.filler_words
        self.stop = lang.stop_words
        self.clause_starts = lang.clause_starts
        self.subjects = lang.subject_pronouns
        self.not_after_subject = lang.prepositions | lang.determiners
        self.particles = lang.stop_words - lang.pronouns - lang.determiners - lang.subject_pronouns
        self.strong = set(lang.strong_conjunctions)
        self.edge_words = {c for c in lang.conjunctions if " " not in c} | {"&"}
        self.pronouns = lang.pronouns | lang.subject_pronouns
        # "it", "them": a pronoun that stands for a thing, not a determiner ("this album")
        self.objects = lang.pronouns - lang.determiners - lang.subject_pronouns - set(lang.numbers)
        self.app_openers = [o.split() for o in lang.app_openers]
        self.verbless_floor = lang.routing.get("verbless_part_floor", self.router.floor)
        # longest first, as the seed tries them; commas last
        self.types = [*sorted(lang.conjunctions, key=len, reverse=True), COMMA]

    def decompose(self, a: Analysis, start: int, end: int) -> Decomposition:
        occurrences = self.guards.occurrences(a, start, end)
        whole = self._clean(a, start, end)
        if whole is None:
            whole = (start, end)
        base = Decomposition([Fragment(*whole)], occurrences)
        splitting = [o for o in occurrences if o.splits]
        if not splitting:
            return base
        for kind in self.types:
            points = [o for o in splitting if o.kind == kind]
            if points:
                base.tried.append(self._evaluate(a, start, end, points, kind))
        if len(splitting) > 1:
            strategy = "combined" if len({o.kind for o in splitting}) > 1 else "all"
            base.tried.append(self._evaluate(a, start, end, self._collapse(splitting), strategy))
        best: Split | None = None
        for split in base.tried:  # the most parts wins; ties keep the first found
            if len(split.fragments) >= 2 and (
                best is None or len(split.fragments) > len(best.fragments)
            ):
                best = split
        if best is None:  # one part; keep where its request begins after an app opened
            best = next((t for t in base.tried if any(f.route_from for f in t.fragments)), None)
        if best is not None:
            base.fragments = best.fragments
            base.chosen = best
        return base

    @staticmethod
    def _collapse(points: list[Occurrence]) -> list[Occurrence]:
        """All occurrences at once; overlapping or adjacent ones ("and also") become one."""
        out: list[Occurrence] = []
        for o in sorted(points, key=lambda o: (o.start, -o.end)):
            if out and o.start <= out[-1].end:
                last = out[-1]
                out[-1] = Occurrence(f"{last.kind}+{o.kind}", last.start, max(last.end, o.end))
            else:
                out.append(o)
        return out

    # ------------------------------------------------------------------ one strategy

    def _evaluate(
        self, a: Analysis, start: int, end: int, points: list[Occurrence], strategy: str
    ) -> Split:
        split = Split(strategy, points, [])
        raw: list[tuple[int, int, Occurrence | None]] = []
        cursor = start
        before: Occurrence | None = None
        for p in points:
            if p.start < cursor:
                continue
            raw.append((cursor, p.start, before))
            cursor, before = p.end, p
        raw.append((cursor, end, before))

        kept: list[Fragment] = []
        for n, (s, e, point) in enumerate(raw):
            clean = self._clean(a, s, e)
            if clean is not None and kept and self._pronouns_only(a, *clean):
                self._undo(kept, clean[1], point, split)  # "for my mom and i"
                continue
            carries = clean is not None and n + 1 < len(raw) and self._bare_verb(a, *clean)
            if clean is None or not (carries or self._meaningful(a, *clean)):
                if clean is not None:
                    split.dropped.append((clean[0], clean[1], "no content"))
                continue
            cs, ce = clean
            if not kept:
                kept.append(Fragment(cs, ce))
                continue
            prev = kept[-1]
            comma = point is not None and point.kind.startswith(COMMA)
            strong = self._strong(point)
            if comma and not self._opens(a, prev.start, prev.end, left=True):
                self._undo(kept, ce, point, split)  # "Paris, France"
            elif (
                prev.inherits_from is None
                and self._bare_verb(a, self._last_clause(a, prev.start, prev.end), prev.end)
                and not self.router.device_sets.is_every(a, prev.start, prev.end)
            ):
                # "find and play a concerto": one object; "lock up and ..." is a request
                self._undo(kept, ce, point, split)
            elif carries:
                kept.append(Fragment(cs, ce))  # "..., find and play a concerto"
            elif not strong and not comma and self._app_preamble(a, prev):
                self._undo(kept, ce, point, split)  # "open itunes and play ..."
                kept[-1].route_from = cs
            elif not strong and self._refers_back(a, cs, ce):
                self._undo(kept, ce, point, split)  # "... and sort it through the top 50"
            elif self._opens(a, cs, ce) or self._after_comma_and(a, point):
                kept.append(Fragment(cs, ce))
            elif types := self._inheritable(a, kept, cs, ce):
                root = next(
                    k for k in range(len(kept) - 1, -1, -1) if kept[k].inherits_from is None
                )
                kept.append(Fragment(cs, ce, root, frozenset(types)))
            elif strong or self._served(
                a, cs, self._clause_end(a, cs, ce), comma or self._after_comma_and(a, point)
            ):
                kept.append(Fragment(cs, ce))  # "... and then movie times", "... and the weather"
            else:
                self._undo(kept, ce, point, split)  # "catalina and brandie mendoza"
        split.fragments = kept
        return split

    def _strong(self, point: Occurrence | None) -> bool:
        """ "and then", "and also": connectors that only ever join two requests."""
        return point is not None and any(k in self.strong for k in point.kind.split("+"))

    @staticmethod
    def _clause_end(a: Analysis, s: int, e: int) -> int:
        """Where the fragment's first clause ends: at a comma this strategy did not use."""
        for i in range(s + 1, e):
            if a.tokens[i].text in ",;":
                return i
        return e

    @staticmethod
    def _after_comma_and(a: Analysis, point: Occurrence | None) -> bool:
        """ ", and" is a clause boundary however the next clause opens."""
        if point is None:
            return False
        if COMMA in point.kind and point.kind != COMMA:
            return True
        return point.kind != COMMA and point.start > 0 and a.tokens[point.start - 1].text in ",;"

    @staticmethod
    def _undo(kept: list[Fragment], e: int, point: Occurrence | None, split: Split) -> None:
        """Join the fragment back onto the part before it: this point does not split."""
        prev = kept[-1]
        kept[-1] = Fragment(prev.start, e, prev.inherits_from, prev.slot_types, prev.route_from)
        if point is not None:
            split.undone.append(point)

    def _clean(self, a: Analysis, s: int, e: int) -> tuple[int, int] | None:
        """Trim punctuation, conjunction words and polite openers from the edges."""
        toks = a.tokens
        while s < e:
            cue = a.cue_at("opener", s) or a.cue_at("conj", s)
            if cue is not None and cue.end < e:
                s = cue.end
            elif toks[s].is_punct or toks[s].lower in self.edge_words:
                s += 1
            else:
                break
        while e > s:
            ending = [c for c in a.cues if c.kind == "conj" and c.end == e and c.start > s]
            if ending:
                e = min(c.start for c in ending)
            elif toks[e - 1].is_punct or toks[e - 1].lower in self.edge_words:
                e -= 1
            else:
                break
        return (s, e) if s < e else None

    # ------------------------------------------------------------------ judging parts

    def _meaningful(self, a: Analysis, s: int, e: int) -> bool:
        """The seed's order: intent phrase, colloquial form, length, stop words."""
        if any(m.inside(s, e) for m in a.matches):
            return True
        if any(s <= c.start and c.end <= e for c in a.cues if c.kind == "colloquial"):
            return True
        if len(a.span_text(s, e)) <= 3:
            return False
        return any(
            not a.tokens[i].is_punct and a.tokens[i].lower not in self.quiet for i in range(s, e)
        )

    def _verb(self, a: Analysis, i: int) -> bool:
        """A word that can open a request: listed in clause_starts, or an English verb in
        its base form, as imperatives are ("locate", not "pawns")."""
        tok = a.tokens[i]
        if tok.lower in self.clause_starts or tok.lemma in self.clause_starts:
            return True
        return (
            tok.lower not in self.stop and tok.lower == tok.lemma and self.text.is_verb(tok.lemma)
        )

    def _opens(self, a: Analysis, s: int, e: int, left: bool = False) -> bool:
        """Does the fragment open a request of its own?

        It does when it starts with a question word, a verb or an auxiliary
        (and is more than that one word), with a subject and its verb ("i
        want ...", not "i at a restaurant"), with a colloquial question or a
        condition, or with a phrase of an intent Mnemolis serves. Phrases of
        declined intents do not count: "the sabines playing at the nearest
        cinema" is the rest of a name, not a request. The left side of a
        comma also opens a request when a listed verb stands anywhere in it
        ("onto my playlist add the album, ...").
        """
        toks = a.tokens
        first = toks[s]
        if first.lower in self.subjects:  # "i want", not "i, play ..." ("my mom and i")
            after = toks[s + 1] if e - s > 1 else None
            return (
                after is not None
                and after.text.isalpha()
                and after.lower not in self.not_after_subject
            )
        if self._verb(a, s) and (e - s > 1 or any(m.inside(s, e) for m in a.matches)):
            return True
        if any(c.start == s for c in a.cues if c.kind in ("colloquial", "lead", "cquestion")):
            return True
        if any(
            m.start == s and m.end <= e and self.config.intents[m.intent].source for m in a.matches
        ):
            return True
        if left:
            listed = any(
                toks[i].lower not in self.stop
                and (toks[i].lower in self.clause_starts or toks[i].lemma in self.clause_starts)
                for i in range(s, e)
            )
            return listed or self._served(a, s, e)
        return False

    def _served(self, a: Analysis, s: int, e: int, loose: bool = True) -> bool:
        """Would the fragment, on its own, be routed to a source Mnemolis serves? Not
        ``loose`` (a verbless fragment after a plain "and"): surely so."""
        cands = self.router.candidates(a, s, e)
        floor = self.router.floor if loose else self.verbless_floor
        return bool(cands) and cands[0].score >= floor and cands[0].intent.source is not None

    def _pronouns_only(self, a: Analysis, s: int, e: int) -> bool:
        """ "i" in "a table for my mom and i": the end of the phrase before, not a part."""
        return all(a.tokens[i].is_punct or a.tokens[i].lower in self.pronouns for i in range(s, e))

    def _app_preamble(self, a: Analysis, frag: Fragment) -> bool:
        """ "open itunes", "go to deezer": an app opened for the request that follows.
        What it opens is no known name (a device, a room, a type word) and no source
        serves the fragment on its own."""
        if frag.inherits_from is not None:
            return False
        start = self._last_clause(a, frag.start, frag.end)
        words = [t.lower for t in a.tokens[start : frag.end]]
        opener = next((o for o in self.app_openers if words[: len(o)] == o), None)
        if opener is None or len(words) == len(opener):
            return False
        if any(start <= h.start and h.end <= frag.end for h in a.names):
            return False
        return not self._served(a, start, frag.end)

    @staticmethod
    def _last_clause(a: Analysis, s: int, e: int) -> int:
        """Where the fragment's last clause starts: after a comma this strategy kept."""
        for i in range(e - 1, s, -1):
            if a.tokens[i].text in ",;":
                return i + 1
        return s

    def _refers_back(self, a: Analysis, s: int, e: int) -> bool:
        """ "sort it through the top 50": a verb on "it" that no source serves works on
        what the part before made, so it stays with it."""
        toks = a.tokens
        return (
            e - s > 1
            and self._verb(a, s)
            and toks[s + 1].lower in self.objects
            and not self._served(a, s, e)
        )

    def _bare_verb(self, a: Analysis, s: int, e: int) -> bool:
        """ "find", "look up": a verb whose object is the next part's ("find and play X")."""
        toks = a.tokens
        first = toks[s]
        listed = first.lower in self.clause_starts or first.lemma in self.clause_starts
        return listed and all(toks[i].lower in self.particles for i in range(s + 1, e))

    def _slot_values(self, a: Analysis, s: int, e: int) -> tuple[set[str], set[int]]:
        """Slot types a verbless fragment carries (a device, a room, a day, a place),
        and the tokens they cover."""
        types: set[str] = set()
        covered: set[int] = set()
        for h in a.names:
            if s <= h.start and h.end <= e:
                types.add("room" if h.kind == "room" else "device")
                covered.update(range(h.start, h.end))
        for w in a.slot_words:
            if s <= w.start and w.end <= e:
                types.add(w.slot)
                covered.update(range(w.start, w.end))
        toks = a.tokens
        places = self.config.language.place_prepositions
        for i in range(s, e - 1):
            if toks[i].lower in places and toks[i + 1].text.isalpha():
                types.add("location")
                j = i + 1
                while j < e and toks[j].text.isalpha() and toks[j].lower not in self.stop:
                    covered.add(j)
                    j += 1
        for i in range(s, e):
            if toks[i].is_num:
                types.update(n for n, spec in self.config.slots.items() if spec.type == "number")
                covered.add(i)
        return types, covered

    def _inheritable(self, a: Analysis, kept: list[Fragment], s: int, e: int) -> set[str]:
        """Slot types of a fragment made only of slot values that the intent of the part
        it follows takes ("... as well as the living room blinds", "... and tomorrow")."""
        types, covered = self._slot_values(a, s, e)
        if not types:
            return set()
        content = [
            i
            for i in range(s, e)
            if not a.tokens[i].is_punct and a.tokens[i].lower not in self.quiet
        ]
        if any(i not in covered for i in content):
            return set()
        root = next(k for k in range(len(kept) - 1, -1, -1) if kept[k].inherits_from is None)
        takes: set[str] = set()
        for m in a.matches:
            if m.inside(kept[root].start, kept[root].end):
                intent = self.config.intents[m.intent]
                if intent.source:
                    takes.update(intent.slots)
        return types & takes
