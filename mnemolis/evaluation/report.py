"""From row results to figures, and from figures to text and JSON.

Every summary is a dataclass so that `--json` is just `dataclasses.asdict`.
Ordering is fixed (classes in `CLASSES` order, ties broken by line number),
so two runs print the same report apart from the latencies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from mnemolis.evaluation.compare import PartCheck, RowResult
from mnemolis.evaluation.entities import (
    EntitySummary,
    entity_lines,
    entity_mistakes,
    summarise_entities,
)
from mnemolis.evaluation.metrics import CLASSES, SPLIT_KINDS, ClassScore, Confusion, class_of
from mnemolis.evaluation.metrics import percentile as pct


@dataclass
class LabelConfusion:
    """A frequent mistake: rows with this dataset label went to the wrong class."""

    label: str
    expected: str
    predicted: str
    count: int
    example: str


@dataclass
class RoutingSummary:
    parts: int
    macro_f1: float
    accuracy: float
    classes: list[ClassScore]
    confusion: dict[str, dict[str, int]]
    unaligned: int = 0  # parts left out because the split differed
    top_confusions: list[LabelConfusion] = field(default_factory=list)

    def score(self, name: str) -> ClassScore:
        return next(c for c in self.classes if c.name == name)


@dataclass
class SplitSummary:
    rows: int
    exact: int
    over: int
    under: int
    boundary: int

    @property
    def exact_rate(self) -> float:
        return self.exact / self.rows if self.rows else 0.0


@dataclass
class Rate:
    scored: int
    correct: int

    @property
    def rate(self) -> float:
        return self.correct / self.scored if self.scored else 0.0


@dataclass
class LatencySummary:
    queries: int
    p50_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float


@dataclass
class SliceSummary:
    name: str
    rows: int
    routing: RoutingSummary | None = None
    split: SplitSummary | None = None
    intents: Rate | None = None
    slots: Rate | None = None
    conditionals: Rate | None = None
    latency: LatencySummary | None = None
    multi_part: int = 0  # rows whose parts are not labelled but came out as 2+ parts
    folds: list[int] = field(default_factory=list)
    entities: EntitySummary | None = None  # rows labelled with entities or values


TOP_CONFUSIONS = 15


def summarise(name: str, results: Sequence[RowResult], timing: bool = True) -> SliceSummary:
    out = SliceSummary(name=name, rows=len(results))
    out.folds = sorted({r.row.fold for r in results if r.row.fold is not None})
    confusion = Confusion()
    pairs: Counter[tuple[str, str, str]] = Counter()
    examples: dict[tuple[str, str, str], str] = {}
    intents, slots, conds = Rate(0, 0), Rate(0, 0), Rate(0, 0)
    split = SplitSummary(0, 0, 0, 0, 0)
    unaligned = 0
    for r in results:
        unaligned += r.unaligned
        for c in r.checks:
            if c.source_ok is not None:
                exp, pred = class_of(c.expected.source), class_of(c.predicted_source)
                confusion.add(exp, pred)
                if exp != pred:
                    key = (c.expected.label or c.expected.intent or exp, exp, pred)
                    pairs[key] += 1
                    examples.setdefault(key, c.expected.text or r.row.text)
            if c.intent_ok is not None:
                intents.scored += 1
                intents.correct += c.intent_ok
            slots.scored += c.slots_expected
            slots.correct += c.slots_correct
        if r.conditional_ok is not None:
            conds.scored += 1
            conds.correct += r.conditional_ok
        if r.split is not None:
            split.rows += 1
            setattr(split, r.split.kind, getattr(split, r.split.kind) + 1)
        elif len(r.predicted) > 1:
            out.multi_part += 1
    if confusion.total or unaligned:
        top = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CONFUSIONS]
        out.routing = RoutingSummary(
            parts=confusion.total,
            macro_f1=confusion.macro_f1(),
            accuracy=confusion.accuracy,
            classes=confusion.scores(),
            confusion=confusion.counts,
            unaligned=unaligned,
            top_confusions=[LabelConfusion(*k, n, examples[k]) for k, n in top],
        )
    out.split = split if split.rows else None
    out.intents = intents if intents.scored else None
    out.slots = slots if slots.scored else None
    out.conditionals = conds if conds.scored else None
    out.entities = summarise_entities(results)
    if timing and results:
        times = [r.ms for r in results]
        out.latency = LatencySummary(
            queries=len(times),
            p50_ms=pct(times, 50),
            p99_ms=pct(times, 99),
            mean_ms=sum(times) / len(times),
            max_ms=max(times),
        )
    return out


# --------------------------------------------------------------------------- mistakes


@dataclass
class PartMistake:
    """A part routed to the wrong source, or given the wrong intent or slots."""

    file: str
    line: int
    what: str  # source | intent | slots | entities | value
    text: str  # the row's text
    part: str | None  # the expected part's text, when parts are labelled
    label: str | None  # the dataset's label
    expected: str
    got: str
    got_part: str | None  # the text of the predicted part it was compared with
    confidence: float


@dataclass
class SplitMistake:
    file: str
    line: int
    kind: str
    text: str
    expected: list[str]
    got: list[str]


_WHAT_ORDER = {"source": 0, "intent": 1, "slots": 2, "entities": 3, "value": 4}


def _mistake(r: RowResult, c: PartCheck, what: str, expected: str, got: str) -> PartMistake:
    pred = c.predicted
    return PartMistake(
        file=r.row.file,
        line=r.row.line,
        what=what,
        text=r.row.text,
        part=c.expected.text,
        label=c.expected.label,
        expected=expected,
        got=got,
        got_part=pred.text if pred else None,
        confidence=round(pred.confidence, 3) if pred else 0.0,
    )


def part_mistakes(results: Sequence[RowResult]) -> list[PartMistake]:
    """Wrong sources first, most confident first (a confident mistake is the worst);
    then wrong intents, then wrong slots."""
    out = []
    for r in results:
        for c in r.checks:
            if c.source_ok is False:
                got = class_of(c.predicted_source)
                if c.predicted_intent:
                    got += f" ({c.predicted_intent})"
                out.append(_mistake(r, c, "source", class_of(c.expected.source), got))
            elif c.intent_ok is False:
                out.append(
                    _mistake(r, c, "intent", str(c.expected.intent), str(c.predicted_intent))
                )
            if c.slot_misses and c.source_ok is not False:
                out.append(_mistake(r, c, "slots", "", "; ".join(c.slot_misses)))
            if c.source_ok is not False:
                for what, expected, got in entity_mistakes(c):
                    out.append(_mistake(r, c, what, expected, got))
    out.sort(key=lambda m: (_WHAT_ORDER[m.what], -m.confidence, m.file, m.line))
    return out


def split_mistakes(results: Sequence[RowResult]) -> list[SplitMistake]:
    """Rows whose split is furthest off first (by how many parts), then by line."""
    out = [
        SplitMistake(
            file=r.row.file,
            line=r.row.line,
            kind=r.split.kind,
            text=r.row.text,
            expected=[p.text or "" for p in r.row.parts],
            got=[p.text for p in r.predicted],
        )
        for r in results
        if r.split is not None and not r.split.exact
    ]
    out.sort(key=lambda m: (-abs(len(m.got) - len(m.expected)), m.file, m.line))
    return out


# --------------------------------------------------------------------------- text


def _f(x: float) -> str:
    return f"{x:.3f}"


def routing_lines(r: RoutingSummary) -> list[str]:
    lines = [
        f"routing: {r.parts} parts, macro-F1 {_f(r.macro_f1)}, accuracy {_f(r.accuracy)}"
        + (f" ({r.unaligned} parts not scored: their split differed)" if r.unaligned else ""),
        f"  {'source':<8} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8} {'predicted':>9}",
    ]
    for c in r.classes:
        lines.append(
            f"  {c.name:<8} {_f(c.precision):>9} {_f(c.recall):>7} {_f(c.f1):>6} "
            f"{c.support:>8} {c.predicted:>9}"
        )
    width = max(
        7,
        *(len(c) for c in CLASSES),
        *(len(str(v)) for row in r.confusion.values() for v in row.values()),
    )
    lines.append("  confusion (rows: expected, columns: predicted)")
    lines.append("  " + " " * 9 + "".join(f"{c:>{width + 1}}" for c in CLASSES))
    for e in CLASSES:
        lines.append(f"  {e:<9}" + "".join(f"{r.confusion[e][p]:>{width + 1}}" for p in CLASSES))
    if r.top_confusions:
        lines.append("  most frequent mistakes (label: expected -> predicted, count, example)")
        for m in r.top_confusions:
            lines.append(
                f"  {m.label:<24} {m.expected:>7} -> {m.predicted:<7} {m.count:>5}  {m.example!r}"
            )
    return lines


def slice_lines(s: SliceSummary) -> list[str]:
    folds = f", folds {','.join(map(str, s.folds))}" if s.folds else ""
    lines = [f"== {s.name}{folds}: {s.rows} rows =="]
    if s.routing:
        lines += routing_lines(s.routing)
    if s.intents:
        lines.append(f"intents: {_f(s.intents.rate)} ({s.intents.correct}/{s.intents.scored})")
    if s.slots:
        lines.append(f"slots: {_f(s.slots.rate)} ({s.slots.correct}/{s.slots.scored})")
    if s.conditionals:
        c = s.conditionals
        lines.append(f"conditionals detected: {_f(c.rate)} ({c.correct}/{c.scored})")
    if s.split:
        sp = s.split
        lines.append(
            f"split: exact {_f(sp.exact_rate)} ({sp.exact}/{sp.rows}); "
            + ", ".join(f"{k} {getattr(sp, k)}" for k in SPLIT_KINDS[1:])
        )
    elif s.multi_part:
        lines.append(f"split: not labelled; {s.multi_part} rows came out as 2 or more parts")
    if s.entities:
        lines += entity_lines(s.entities)
    if s.latency:
        lat = s.latency
        lines.append(
            f"latency per query: p50 {lat.p50_ms:.3f} ms, p99 {lat.p99_ms:.3f} ms "
            f"(mean {lat.mean_ms:.3f}, max {lat.max_ms:.3f}, {lat.queries} queries)"
        )
    return lines


def mistake_lines(
    parts: Sequence[PartMistake],
    splits: Sequence[SplitMistake],
    limit: int,
    show_file: bool = False,
) -> list[str]:
    def where(m: PartMistake | SplitMistake) -> str:
        return f"{m.file}:{m.line}" if show_file else f"line {m.line}"

    lines: list[str] = []
    if parts and limit:
        lines.append(f"worst part mistakes ({min(limit, len(parts))} of {len(parts)})")
        for m in parts[:limit]:
            label = f" [{m.label}]" if m.label else ""
            lines.append(
                f"  {where(m)}{label} {m.what}: expected {m.expected or '-'}, "
                f"got {m.got} (confidence {m.confidence:.2f})"
            )
            lines.append(f"    text: {m.text!r}")
            if m.got_part is not None and m.got_part != m.text:
                lines.append(f"    part: {m.got_part!r}")
    if splits and limit:
        lines.append(f"worst split mistakes ({min(limit, len(splits))} of {len(splits)})")
        for s in splits[:limit]:
            lines.append(f"  {where(s)} {s.kind}: {s.text!r}")
            lines.append("    expected: " + " | ".join(s.expected))
            lines.append("    got:      " + " | ".join(s.got))
    return lines
