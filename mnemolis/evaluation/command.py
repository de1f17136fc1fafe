"""`mnemolis eval FILE.jsonl [FILE ...]`: score the router on labelled sentences.

The report gives, for routing, precision, recall and F1 per source over
{mqtt, weather, kiwix, clock, null} and their macro-F1, a confusion table and
the most frequent and the worst mistakes; for splitting, the exact-match rate
of the list of parts and how many rows were over-split, under-split or split
at the wrong place; and the understanding latency per query (p50, p99).
``--json`` writes the same figures for machines, ``--dump`` every row with
expected against predicted, and ``--min-*`` floors make the command exit 1
when missed, so CI can gate on it. Exit 2 means the input itself is wrong.
Several files of one format are scored as one set (``tests/data/*.jsonl``).

Formats (``--format``, or detected from the first row)
------------------------------------------------------
``hwu64``     ``{"text", "intent", "scenario", "fold", ...}``: one request a row;
              ``intent`` is a dataset label mapped to a source by ``--mapping``
              (default: ``mnemolis/evaluation/hwu64_sources.yaml``).
``mixsnips``  ``{"text", "parts": [{"text", "intent"}, ...], "connectors"}``:
              compound requests; part labels mapped by ``--mapping`` (default:
              ``mnemolis/evaluation/mixsnips_sources.yaml``).
``mnemolis``  the project's own regression format, one JSON object a line::

    {"text": "turn off the kitchen light and what's the weather tomorrow",
     "parts": ["turn off the kitchen light", "what's the weather tomorrow"],
     "intents": ["device.turn_off", "weather.forecast"],
     "slots": [{"device": "kitchen light"}, {"day": "tomorrow"}]}
    {"text": "lock the back door if it is unlocked", "conditional": true,
     "parts": ["lock the back door", "it is unlocked"],
     "intents": ["device.lock", "device.state"]}
    {"text": "order me a pizza", "intent": null}
    {"text": "who wrote hamlet", "source": "kiwix"}

  - ``text`` (required): the query as a person would say or type it.
  - ``parts``: the expected parts, as spoken, in spoken order. A conditional
    lists its condition where it was said, without its trigger word ("if",
    "when", "as soon as"): "it is unlocked".
    A part that borrows a verb ("... and also in berlin") may be written as
    spoken ("in berlin") or complete ("the weather in berlin"). Required when
    the row has more than one part; when absent, the row is one part and its
    split is not scored.
  - ``intents`` / ``sources`` / ``slots``: one entry per part, or for a
    one-part row the singular ``intent`` / ``source`` and ``slots`` as a
    mapping. ``null`` means out of scope. An intent must exist in the config;
    its source follows from it, so ``sources`` is only needed for rows that
    name no intent. A ``decline.*`` intent is out of scope and must be
    declined by that name. A slot whose expected value is ``null`` must be
    absent. Only the slots named are checked.
  - ``conditional``: true or false, whether the plan must hold a conditional.
  - ``fold``: an integer, for ``--folds`` and ``--holdout``; ``note``: free text.

  - An intent must exist in the config unless ``--allow-undefined-intents``:
    then a row may expect an intent still to be written; the report lists
    such intents with their counts, and their parts are scored as wrong.
  - ``entities``: the exact set of device ids the part acts on or asks
    about (a list for a one-part row, one list per part otherwise; ``[]``:
    none, a "which one" question or a decline); ``values``: the value slots
    it must carry (``{"brightness": 50}``, ``{"state": "on", "quantifier":
    "any"}``), a mapping or one per part; ``room``: the area the request is
    spoken in, passed to understanding as its origin.

  Scored: source macro-F1, intent accuracy, slot accuracy (per expected
  slot), conditional detection, and split exact match; with ``entities`` or
  ``values``, entity accuracy, value accuracy and "fully right" (see
  `mnemolis.evaluation.entities`).

The home
--------
Device ids are the registry's: the configuration's YAML devices plus the
retained discovery configs of ``--discovery FILE``, or of ``discovery.jsonl``
in the configuration directory (``--config tests/data/big_home``), read
through the MQTT source's own parsers without a broker
(`mnemolis.evaluation.discovered`).

Comparing parts
---------------
Both sides are lower-cased, passed through the router's normaliser, stripped
of punctuation, and of connector and condition words (mnemolis/evaluation/
scoring.yaml) and the router's polite openers at part edges; then they must be
equal. A plan's parts are read in spoken order (see `mnemolis.evaluation.
compare`). A one-part row is routed by its first in-scope part; a several-part
row is scored for routing part by part only when its split is exact.

Folds
-----
HWU64 comes in folds 1..10. ``--holdout`` reports the rows of every fifth fold
(5 and 10) separately from the rest, so that tuning on the rest can be told
from learning the language. ``--folds`` and ``--exclude-folds`` pick rows.
``--limit N`` takes N rows spread evenly over the file (the files are sorted
by label, so the first N would be a single label).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from mnemolis.config import Config, load_config
from mnemolis.evaluation import speech
from mnemolis.evaluation.compare import IdsOf, RowResult, RowScorer
from mnemolis.evaluation.datasets import (
    FORMATS,
    DataError,
    Dataset,
    Row,
    load_edge_words,
    read_datasets,
)
from mnemolis.evaluation.entities import entity_ids, unknown_ids
from mnemolis.evaluation.floors import FLOORS, check_floors, wrong_device_floor
from mnemolis.evaluation.metrics import PartKeyer
from mnemolis.evaluation.output import dump_row, jsonable, write_file
from mnemolis.evaluation.report import (
    SliceSummary,
    mistake_lines,
    part_mistakes,
    slice_lines,
    split_mistakes,
    summarise,
)
from mnemolis.evaluation.wrong_device import wrong_device_lines, wrong_devices

if TYPE_CHECKING:  # spaCy loads when the command runs, not when `mnemolis --help` builds its parser
    from mnemolis.core.devices import DeviceRegistry
    from mnemolis.understand import Understander

EXIT_OK = 0
EXIT_FLOOR = 1
EXIT_INPUT = 2
HOLDOUT_EVERY = 5
WARM_UP = "turn on the kitchen light and what time is it"


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _folds(text: str) -> set[int]:
    try:
        return {int(x) for x in text.split(",") if x.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of fold numbers") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def add_eval_parser(sub: Any) -> None:
    """Register `mnemolis eval` on the CLI's subparsers."""
    p = sub.add_parser(
        "eval",
        help="score the router on labelled sentences (JSON lines)",
        description="Score routing, splitting and latency on a labelled JSON-lines file.",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="labelled data, one JSON object a line; several files of one format",
    )
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--format", choices=FORMATS, help="default: detected from the first row")
    p.add_argument("--mapping", help="YAML mapping dataset labels to sources (hwu64, mixsnips)")
    p.add_argument(
        "--discovery",
        metavar="FILE",
        help="retained discovery configs (JSON lines: topic, payload) to load into the home; "
        "default: discovery.jsonl in the configuration directory",
    )
    p.add_argument(
        "--allow-undefined-intents",
        action="store_true",
        help="keep rows expecting intents the config does not define yet (listed in the "
        "report, scored as wrong) instead of refusing them",
    )
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    p.add_argument("--dump", metavar="PATH", help="write every row, expected vs predicted (JSONL)")
    p.add_argument(
        "--errors",
        type=_positive,
        default=10,
        metavar="N",
        help="print the N worst part and split mistakes (default 10)",
    )
    p.add_argument("--limit", type=_positive, metavar="N", help="N rows spread over the file")
    p.add_argument("--folds", type=_folds, metavar="1,2", help="only these folds")
    p.add_argument("--exclude-folds", type=_folds, metavar="5,10", help="leave these folds out")
    p.add_argument(
        "--holdout",
        action="store_true",
        help=f"report every {HOLDOUT_EVERY}th fold apart from the others",
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="show a row counter on stderr (default: only on a terminal)",
    )
    p.add_argument(
        "--no-timing",
        action="store_true",
        help="leave latencies out, so that two runs print the same bytes",
    )
    for f in FLOORS:
        p.add_argument(
            "--" + f.option.replace("_", "-"),
            type=_fraction,
            metavar="X",
            help=f"exit 1 when {f.name} is below X",
        )
    p.add_argument(
        "--max-wrong-device",
        type=int,
        metavar="N",
        help="exit 1 when more than N parts act on a device outside the labelled ones",
    )
    p.set_defaults(func=cmd_eval)


# --------------------------------------------------------------------------- running


def select_rows(dataset: Dataset, args: argparse.Namespace) -> list[Row]:
    rows = dataset.rows
    wants_folds = args.folds is not None or args.exclude_folds is not None or args.holdout
    if wants_folds and any(r.fold is None for r in rows):
        raise DataError(dataset.path, None, "fold options need a 'fold' on every row")
    if args.folds is not None:
        rows = [r for r in rows if r.fold in args.folds]
    if args.exclude_folds is not None:
        rows = [r for r in rows if r.fold not in args.exclude_folds]
    if args.limit is not None and args.limit < len(rows):
        n = len(rows)
        rows = [rows[i * n // args.limit] for i in range(args.limit)]
    if not rows:
        raise DataError(dataset.path, None, "no rows left after the fold and limit options")
    return rows


class Progress:
    """A row counter on stderr, rewritten in place on a terminal."""

    def __init__(self, stream: TextIO, total: int, enabled: bool) -> None:
        self.stream, self.total, self.enabled = stream, total, enabled
        self.tty = stream.isatty()
        self.step = max(1, total // 100) if self.tty else max(1, total // 10)

    def update(self, done: int) -> None:
        if self.enabled and (done % self.step == 0 or done == self.total):
            end = "\r" if self.tty and done < self.total else "\n"
            self.stream.write(f"eval: {done}/{self.total} rows{end}")
            self.stream.flush()


def evaluate_rows(
    rows: Sequence[Row],
    understander: Understander,
    keyer: PartKeyer,
    progress: Progress | None = None,
    ids_of: IdsOf | None = None,
    texts: Sequence[str | None] | None = None,
) -> list[RowResult]:
    """Understand every row (timed, no context between rows) and compare.

    A row's ``room`` is passed as ``room=``: the area the request was spoken in;
    ``texts`` (what was heard of rows with audio) replace the rows' own."""
    scorer = RowScorer(keyer, ids_of)
    understander.understand(WARM_UP)
    collecting = gc.isenabled()
    results = []
    for n, row in enumerate(rows, 1):
        # as timeit does, the cyclic collector waits outside the timed call: a full
        # collection over the evaluator's own growing results is not the router's time
        gc.disable()
        try:
            t0 = time.perf_counter()
            text = texts[n - 1] if texts is not None else None
            plan = understander.understand(row.text if text is None else text, room=row.room)
            ms = (time.perf_counter() - t0) * 1000
        finally:
            if collecting:
                gc.enable()
        results.append(scorer.score(row, plan, ms))
        if progress:
            progress.update(n)
    return results


def make_keyer(config: Config, understander: Understander) -> PartKeyer:
    edges = load_edge_words() + list(config.language.polite_openers)

    def normalize(text: str) -> str:
        return understander.normalizer.normalize(text).text

    return PartKeyer(edge_words=edges, normalize=normalize)


def slices(results: list[RowResult], holdout: bool, timing: bool) -> list[SliceSummary]:
    out = [summarise("all", results, timing)]
    if holdout:
        kept = [r for r in results if (r.row.fold or 0) % HOLDOUT_EVERY != 0]
        held = [r for r in results if (r.row.fold or 0) % HOLDOUT_EVERY == 0]
        out.append(summarise("tuning", kept, timing))
        out.append(summarise("holdout", held, timing))
    return out


def run(
    args: argparse.Namespace,
    understander: Understander | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The command, with its understander and streams injectable for tests."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        config = understander.config if understander else load_config(args.config)
        allow = bool(getattr(args, "allow_undefined_intents", False))
        dataset = read_datasets(args.files, config, args.format, args.mapping, allow)
        rows = select_rows(dataset, args)
        if args.holdout and not any((r.fold or 0) % HOLDOUT_EVERY == 0 for r in rows):
            raise DataError(
                dataset.path, None, f"--holdout: no row is in a fold divisible by {HOLDOUT_EVERY}"
            )
        from mnemolis.evaluation.discovered import home_registry
        from mnemolis.understand import Understander

        if understander is None:
            registry, loaded = home_registry(config, getattr(args, "discovery", None))
            understander = Understander(config, registry)
        else:
            registry, loaded = understander.registry, None
        check_entities_known(rows, registry)
        keyer = make_keyer(config, understander)
        progress = Progress(err, len(rows), args.progress or err.isatty())
        ids_of = entity_ids(registry) if any(r.entity_labelled for r in rows) else None
        heard = (
            speech.hear(rows, speech.recogniser_for(config, registry))
            if any(r.audio for r in rows)
            else None
        )
        texts = [h.text if h else None for h in heard] if heard else None
        results = evaluate_rows(rows, understander, keyer, progress, ids_of, texts)
        timing = not args.no_timing
        summaries = slices(results, args.holdout, timing)
        spoken = None
        if heard:
            normalize = keyer.normalize or (lambda t: t)
            acts = speech.acts_on_device(config)
            spoken = speech.summarise_speech(results, heard, normalize, acts, timing)
        floors = check_floors(summaries[0], args)
        wrong = wrong_devices(results, ids_of, config, registry) if ids_of else None
        floors += wrong_device_floor(wrong, args)
        parts, splits = part_mistakes(results), split_mistakes(results)

        mapping = dataset.mapping.path if dataset.mapping else None
        head = f"mnemolis eval: {dataset.path} ({dataset.format}, {len(rows)} of "
        head += f"{len(dataset.rows)} rows" + (f", mapping {mapping}" if mapping else "") + ")"
        lines = [head]
        if loaded is not None:
            lines.append(
                f"home: {len(registry.devices())} devices, {loaded.devices} of them from "
                f"{loaded.messages} discovery messages in {loaded.path}"
                + (f" ({len(loaded.refused)} configs refused)" if loaded.refused else "")
            )
        undefined = dataset.undefined_intents()
        if undefined:
            lines.append(
                "intents the config does not define (scored as wrong): "
                + ", ".join(f"{name} ({n})" for name, n in undefined.items())
            )
        lines.append("")
        for s in summaries:
            lines += [*slice_lines(s), ""]
        if wrong is not None:
            every = HOLDOUT_EVERY if args.holdout else None
            lines += [*wrong_device_lines(wrong, every), ""]
        if spoken is not None:
            lines += [*speech.speech_lines(spoken, timing), ""]
        lines += mistake_lines(parts, splits, args.errors, show_file=len(args.files) > 1)
        lines += [f.line() for f in floors]
        out.write("\n".join(lines).rstrip("\n") + "\n")

        if args.json:
            report = {
                "files": list(args.files),
                "format": dataset.format,
                "mapping": mapping,
                "rows": len(rows),
                "rows_in_file": len(dataset.rows),
                "undefined_intents": dataset.undefined_intents(),
                "slices": {s.name: jsonable(s) for s in summaries},
                "floors": jsonable(floors),
                "speech": jsonable(spoken) if spoken is not None else None,
                "passed": all(f.passed for f in floors),
                "wrong_device": jsonable(wrong) if wrong is not None else None,
                "mistakes": {
                    "parts": jsonable(parts[: args.errors]),
                    "splits": jsonable(splits[: args.errors]),
                    "parts_total": len(parts),
                    "splits_total": len(splits),
                },
            }
            write_file(args.json, lambda h: h.write(json.dumps(report, indent=2) + "\n"))
        if args.dump:
            write_file(
                args.dump,
                lambda h: h.writelines(
                    json.dumps(dump_row(r, timing), ensure_ascii=False) + "\n" for r in results
                ),
            )
    except DataError as exc:
        err.write(f"mnemolis eval: {exc}\n")
        return EXIT_INPUT
    return EXIT_OK if all(f.passed for f in floors) else EXIT_FLOOR


def check_entities_known(rows: Sequence[Row], registry: DeviceRegistry) -> None:
    """An expected device id the home does not have is a mistake in the row."""
    for row in rows:
        missing = unknown_ids((i for p in row.parts for i in p.entities or []), registry)
        if missing:
            raise DataError(row.file, row.line, f"unknown device id(s): {', '.join(missing)}")


def cmd_eval(args: argparse.Namespace) -> int:
    return run(args)
