"""`mnemolis eval`: the arithmetic on hand-made tables, the formats, and the command.

The metric tests use hand-built plans, so they hold whatever the router
currently gets right; the command tests use the real router but assert only
what does not depend on its accuracy (shapes, exit codes, determinism).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mnemolis.cli.main import build_parser
from mnemolis.config import Config
from mnemolis.core.plan import Conditional
from mnemolis.evaluation.command import make_keyer, run, select_rows
from mnemolis.evaluation.compare import RowScorer, predicted_parts, readings
from mnemolis.evaluation.datasets import (
    DataError,
    ExpectedPart,
    Row,
    detect_format,
    load_mapping,
    read_dataset,
)
from mnemolis.evaluation.metrics import (
    CLASSES,
    Confusion,
    PartKeyer,
    compare_split,
    percentile,
    slot_equal,
)
from mnemolis.evaluation.report import split_mistakes, summarise
from mnemolis.understand import Understander
from tests.conftest import ROOT
from tests.support_evaluate import HWU_ROWS, SAMPLE, hwu_file, part, plan, write_jsonl

__all__ = ["hwu_file"]  # the fixture, imported for pytest

# --------------------------------------------------------------------------- metrics

# expected, predicted -> per-class (precision, recall, f1) and macro-F1
KNOWN_CONFUSION = (
    ["mqtt", "mqtt", "null", "null", "weather", "clock", "kiwix", "kiwix"],
    ["mqtt", "null", "null", "mqtt", "weather", "kiwix", "kiwix", "null"],
)


@pytest.mark.parametrize(
    ("name", "precision", "recall", "f1"),
    [
        ("mqtt", 1 / 2, 1 / 2, 1 / 2),
        ("null", 1 / 3, 1 / 2, 0.4),
        ("weather", 1.0, 1.0, 1.0),
        ("kiwix", 1 / 2, 1 / 2, 1 / 2),
        ("clock", 0.0, 0.0, 0.0),
    ],
)
def test_class_scores_from_a_known_confusion(
    name: str, precision: float, recall: float, f1: float
) -> None:
    confusion = Confusion()
    for e, p in zip(*KNOWN_CONFUSION, strict=True):
        confusion.add(e, p)
    score = confusion.score(name)
    assert (score.precision, score.recall, score.f1) == pytest.approx((precision, recall, f1))


def test_macro_f1_and_accuracy_from_a_known_confusion() -> None:
    confusion = Confusion()
    for e, p in zip(*KNOWN_CONFUSION, strict=True):
        confusion.add(e, p)
    assert confusion.macro_f1() == pytest.approx((0.5 + 0.4 + 1.0 + 0.5 + 0.0) / 5)
    assert confusion.accuracy == pytest.approx(4 / 8)
    assert confusion.counts["kiwix"]["null"] == 1
    assert confusion.scores()[0].support == 2


def test_macro_f1_leaves_out_classes_never_expected_nor_predicted() -> None:
    confusion = Confusion()
    for e, p in [("mqtt", "mqtt"), ("null", "null"), ("null", "mqtt")]:
        confusion.add(e, p)
    assert confusion.present() == ["mqtt", "null"]
    # mqtt: P 1/2 R 1 F1 2/3; null: P 1 R 1/2 F1 2/3
    assert confusion.macro_f1() == pytest.approx(2 / 3)


def test_confusion_refuses_an_unknown_class() -> None:
    with pytest.raises(ValueError, match="unknown class"):
        Confusion().add("mqtt", "radio")


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([1.0, 2.0, 3.0, 4.0], 50, 2.0),
        ([4.0, 3.0, 2.0, 1.0], 99, 4.0),
        ([5.0], 50, 5.0),
        ([float(i) for i in range(1, 101)], 99, 99.0),
        ([float(i) for i in range(1, 201)], 99, 198.0),
        ([], 50, 0.0),
    ],
)
def test_percentile_is_nearest_rank(values: list[float], p: float, expected: float) -> None:
    assert percentile(values, p) == expected


EDGES = ["and", "and then", "also", "then", "if", "otherwise", "can you"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Turn off the kitchen light,", ("turn", "off", "the", "kitchen", "light")),
        ("and then turn off the light", ("turn", "off", "the", "light")),
        (", and then can you play jazz", ("play", "jazz")),
        ("play rock and roll and", ("play", "rock", "and", "roll")),
        ("what time is it then?", ("what", "time", "is", "it")),
        ("if the door is open", ("the", "door", "is", "open")),
        ("  And ALSO: lock it.  ", ("lock", "it")),
        ("and", ()),
        ("candy and android", ("candy", "and", "android")),
    ],
)
def test_part_key_ignores_case_punctuation_and_edge_connectors(
    text: str, key: tuple[str, ...]
) -> None:
    assert PartKeyer(edge_words=EDGES).key(text) == key


@pytest.mark.parametrize(
    ("expected", "predicted"),
    [
        ("what's the weather like", "what is the weather like"),
        ("dim it to twenty percent please", "dim it to 20 percent"),
        ("can you play some jazz", "play some jazz"),
        ("and then could you lock the door", "lock the door"),
    ],
)
def test_part_key_forgives_the_rewrites_the_router_declares(
    understander: Understander, config: Config, expected: str, predicted: str
) -> None:
    keyer = make_keyer(config, understander)
    assert keyer.key(expected) == keyer.key(predicted)


def _keys(*texts: str) -> list[tuple[str, ...]]:
    keyer = PartKeyer(edge_words=EDGES)
    return [keyer.key(t) for t in texts]


@pytest.mark.parametrize(
    ("expected", "predicted", "kind"),
    [
        (
            ["turn off the light", "what time is it"],
            ["turn off the light,", "and what time is it"],
            "exact",
        ),
        (["play rock and roll"], ["play rock", "roll"], "over"),
        (["book a table", "play jazz", "rate it"], ["book a table, play jazz", "rate it"], "under"),
        (["book a table for me", "my brother"], ["book a table", "for me my brother"], "boundary"),
    ],
)
def test_split_outcome(expected: list[str], predicted: list[str], kind: str) -> None:
    outcome = compare_split(_keys(*expected), [{k} for k in _keys(*predicted)])
    assert outcome.kind == kind
    assert outcome.exact is (kind == "exact")
    assert (outcome.expected, outcome.predicted) == (len(expected), len(predicted))


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        ("Kitchen Light", "kitchen  light", True),
        (50, "50", True),
        ("21", 21.0, True),
        (["kitchen light", "porch light"], ["Kitchen light", "porch light"], True),
        (["kitchen light"], "kitchen light", False),
        ("kitchen light", None, False),
        (True, 1, False),
        ("blue", "red", False),
    ],
)
def test_slot_equal(expected: Any, actual: Any, equal: bool) -> None:
    assert slot_equal(expected, actual) is equal


# --------------------------------------------------------------------------- reading plans


def test_an_inherited_part_may_be_read_with_or_without_what_it_inherited() -> None:
    p = part("the weather in berlin", "weather", inherited=["the", "weather", "in"])
    assert readings(p) == ["the weather in berlin", "weather in berlin", "in berlin", "berlin"]
    inherited = ["open", "in", "the", "kitchen"]
    tail = part("open the blinds in the kitchen", "mqtt", inherited=inherited)
    assert readings(tail)[0] == "open the blinds in the kitchen"
    assert readings(tail)[-1] == "the blinds"


def test_a_trailing_conditional_is_read_in_spoken_order() -> None:
    block = Conditional(
        condition=part("it is unlocked", "mqtt", "device.state"),
        then=[part("lock the back door", "mqtt", "device.lock")],
    )
    texts = [p.text for p in predicted_parts(plan("lock the back door if it is unlocked", block))]
    assert texts == ["lock the back door", "it is unlocked"]
    leading = plan("if it is unlocked, lock the back door", block)
    assert [p.role for p in predicted_parts(leading)] == ["if", "then"]


def _scorer() -> RowScorer:
    return RowScorer(PartKeyer(edge_words=EDGES))


def test_a_one_part_row_is_routed_by_its_first_part_in_scope() -> None:
    row = Row(
        1,
        "set an alarm and turn on the light",
        [ExpectedPart(label="x", source="mqtt", source_known=True)],
    )
    result = _scorer().score(
        row,
        plan(
            row.text,
            part("set an alarm", None, confidence=0.7, declined="decline.alarm"),
            part("turn on the light", "mqtt", "device.turn_on"),
        ),
        0.1,
    )
    assert [c.source_ok for c in result.checks] == [True]
    assert result.split is None


def test_parts_are_scored_one_by_one_only_when_the_split_is_exact() -> None:
    row = Row(
        1,
        "lock it and what time is it",
        [
            ExpectedPart(text="lock it", source="mqtt", source_known=True),
            ExpectedPart(text="what time is it", source="clock", source_known=True),
        ],
        split_known=True,
    )
    good = _scorer().score(
        row, plan(row.text, part("lock it", "mqtt"), part("what time is it", "weather")), 0.1
    )
    assert [c.source_ok for c in good.checks] == [True, False]
    bad = _scorer().score(row, plan(row.text, part("lock it and what time is it", "mqtt")), 0.1)
    assert bad.checks == [] and bad.unaligned == 2 and bad.split is not None
    assert bad.split.kind == "under"


@pytest.mark.parametrize(
    ("expected", "predicted", "ok"),
    [
        (ExpectedPart(intent=None, intent_known=True), part("x", declined="decline.music"), True),
        (
            ExpectedPart(intent="decline.music", intent_known=True),
            part("x", declined="decline.music"),
            True,
        ),
        (
            ExpectedPart(intent="decline.music", intent_known=True),
            part("x", declined="decline.chat"),
            False,
        ),
        (
            ExpectedPart(intent="clock.time", source="clock", intent_known=True),
            part("x", "clock", "clock.time"),
            True,
        ),
        (
            ExpectedPart(intent="clock.time", source="clock", intent_known=True),
            part("x", "clock", "clock.date"),
            False,
        ),
        (ExpectedPart(intent=None, intent_known=True), part("x", "clock", "clock.date"), False),
    ],
)
def test_intent_check(expected: ExpectedPart, predicted: Any, ok: bool) -> None:
    result = _scorer().score(Row(1, "x", [expected]), plan("x", predicted), 0.1)
    assert result.checks[0].intent_ok is ok


def test_slot_check_counts_each_expected_slot_and_null_means_absent() -> None:
    expected = ExpectedPart(slots={"device": "kitchen light", "brightness": 40, "room": None})
    predicted = part("x", "mqtt", slots={"device": "Kitchen Light", "brightness": 30})
    check = _scorer().score(Row(1, "x", [expected]), plan("x", predicted), 0.1).checks[0]
    assert (check.slots_expected, check.slots_correct) == (3, 2)
    assert check.slot_misses == ["brightness=30, expected 40"]


def test_summary_counts_splits_rates_and_latency() -> None:
    scorer = _scorer()
    rows = [
        (
            Row(1, "a and b", [ExpectedPart(text="a"), ExpectedPart(text="b")], split_known=True),
            plan("a and b", part("a"), part("b")),
        ),
        (
            Row(2, "c and d", [ExpectedPart(text="c and d")], split_known=True),
            plan("c and d", part("c"), part("d")),
        ),
        (
            Row(3, "e f g", [ExpectedPart(text="e"), ExpectedPart(text="f g")], split_known=True),
            plan("e f g", part("e f g")),
        ),
        (
            Row(4, "h i", [ExpectedPart(text="h"), ExpectedPart(text="i")], split_known=True),
            plan("h i", part("h i"), part("i")),
        ),
    ]
    results = [
        scorer.score(r, p, ms) for (r, p), ms in zip(rows, [1.0, 2.0, 3.0, 4.0], strict=True)
    ]
    summary = summarise("all", results)
    assert summary.split is not None
    assert (
        summary.split.exact,
        summary.split.over,
        summary.split.under,
        summary.split.boundary,
    ) == (1, 1, 1, 1)
    assert summary.split.exact_rate == 0.25
    assert summary.latency is not None
    assert (summary.latency.p50_ms, summary.latency.p99_ms) == (2.0, 4.0)
    assert summary.routing is None
    assert [m.line for m in split_mistakes(results)] == [2, 3, 4]


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("row", "fmt"),
    [
        ({"text": "hi", "intent": "greet", "scenario": "general", "fold": 1}, "hwu64"),
        ({"text": "hi", "intent": "greet", "fold": 3}, "hwu64"),
        # HWU64 as shipped carries "slots" and "entities" too; its scenario says what it is
        (
            {
                "text": "wake me",
                "intent": "alarm_set",
                "scenario": "alarm",
                "slots": {},
                "entities": [],
            },
            "hwu64",
        ),
        # a project row with a fold and an intent only: the dot says it is one of ours
        ({"text": "set a timer for 5 minutes", "intent": "timer.start", "fold": 2}, "mnemolis"),
        (
            {"text": "a and b", "parts": [{"text": "a", "intent": "X"}], "connectors": []},
            "mixsnips",
        ),
        ({"text": "a and b", "parts": ["a", "b"], "intents": [None, None]}, "mnemolis"),
        ({"text": "what time is it", "intent": "clock.time"}, "mnemolis"),
        ({"text": "just text"}, "mnemolis"),
    ],
)
def test_format_detection(row: dict[str, Any], fmt: str) -> None:
    assert detect_format(row) == fmt


def test_the_three_formats_read_into_rows(tmp_path: Path, config: Config, hwu_file: Path) -> None:
    hwu = read_dataset(hwu_file, config)
    assert hwu.format == "hwu64" and len(hwu.rows) == len(HWU_ROWS)
    assert [(p.label, p.source) for p in hwu.rows[0].parts] == [("iot_hue_lightoff", "mqtt")]
    assert hwu.rows[1].parts[0].source == "timers" and hwu.rows[1].fold == 1
    mix = write_jsonl(
        tmp_path / "mix.jsonl",
        [
            {
                "text": "will it snow in oslo and play some jazz",
                "parts": [
                    {"text": "will it snow in oslo", "intent": "GetWeather"},
                    {"text": "play some jazz", "intent": "PlayMusic"},
                ],
                "connectors": ["and"],
            }
        ],
    )
    row = read_dataset(mix, config).rows[0]
    assert row.split_known and [p.source for p in row.parts] == ["weather", None]
    own = read_dataset(SAMPLE, config)
    assert own.format == "mnemolis" and own.mapping is None
    by_text = {r.text: r for r in own.rows}
    lock = by_text["lock the front door if it is unlocked"]
    assert lock.conditional is True
    assert [(p.text, p.source, p.intent) for p in lock.parts] == [
        ("lock the front door", "mqtt", "device.lock"),
        ("it is unlocked", "mqtt", "device.state"),
    ]
    reminder = by_text["remind me to water the plants at six"].parts[0]
    assert (reminder.source, reminder.source_known, reminder.intent) == (
        "timers",
        True,
        "reminder.set",
    )


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"text": "a"}', "not json"], ":2: not JSON"),
        (["[1, 2]"], ":1: each line must be a JSON object"),
        (['{"text": ""}'], "'text' must be a non-empty string"),
        (['{"text": "a", "intent": "nope.nope"}'], "intent 'nope.nope' is not defined"),
        (['{"text": "a", "source": "radio"}'], "'radio' is not a source"),
        (['{"text": "a", "intent": "clock.time", "source": "mqtt"}'], "routes to clock"),
        (['{"text": "a and b", "intents": ["clock.time", null]}'], "must list its 'parts'"),
        (['{"text": "a and b", "parts": ["a", "b"], "sources": ["clock"]}'], "has 1 entries"),
        (['{"text": "a", "colour": "red"}'], "unknown field(s) 'colour'"),
        (['{"text": "a", "conditional": "yes"}'], "'conditional' must be true or false"),
        ([], "no rows"),
    ],
)
def test_bad_data_names_the_file_and_line(
    tmp_path: Path, config: Config, lines: list[str], message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(DataError) as info:
        read_dataset(path, config)
    assert message in str(info.value)
    assert str(info.value).startswith(str(path))


def test_mappings(tmp_path: Path, config: Config, hwu_file: Path) -> None:
    shipped = load_mapping(ROOT / "mnemolis" / "evaluation" / "hwu64_sources.yaml")
    assert shipped.sources["qa_factoid"] == "kiwix" and shipped.has_default
    assert shipped.source_of("play_radio", "x", 1) is None  # not listed: out of scope
    assert shipped.source_of("music_query", "x", 1) == "music"
    strict = tmp_path / "strict.yaml"
    strict.write_text("sources:\n  mqtt: [iot_hue_lightoff]\n", encoding="utf-8")
    with pytest.raises(DataError, match="label 'alarm_set' is not in the mapping"):
        read_dataset(hwu_file, config, mapping_path=strict)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("sources:\n  radio: [x]\n", encoding="utf-8")
    with pytest.raises(DataError, match="'radio' is not a source"):
        load_mapping(wrong)


def test_limit_takes_rows_spread_over_the_file(config: Config, hwu_file: Path) -> None:
    args = build_parser().parse_args(["eval", str(hwu_file), "--limit", "4"])
    rows = select_rows(read_dataset(hwu_file, config), args)
    assert [r.fold for r in rows] == [1, 3, 6, 8]
    args = build_parser().parse_args(
        ["eval", str(hwu_file), "--folds", "2,3", "--exclude-folds", "3"]
    )
    assert {r.fold for r in select_rows(read_dataset(hwu_file, config), args)} == {2}


# --------------------------------------------------------------------------- the command


def _run(understander: Understander, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(build_parser().parse_args(["eval", *argv]), understander, out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_shape(understander: Understander, hwu_file: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    dump = tmp_path / "dump.jsonl"
    code, out, _ = _run(
        understander,
        str(hwu_file),
        "--holdout",
        "--json",
        str(report),
        "--dump",
        str(dump),
        "--min-macro-f1",
        "0",
    )
    assert code == 0
    data = json.loads(report.read_text())
    assert set(data) >= {
        "files",
        "format",
        "mapping",
        "rows",
        "slices",
        "floors",
        "passed",
        "mistakes",
    }
    assert data["format"] == "hwu64" and data["rows"] == 20 and data["passed"] is True
    assert list(data["slices"]) == ["all", "tuning", "holdout"]
    assert [data["slices"][k]["rows"] for k in ("all", "tuning", "holdout")] == [20, 16, 4]
    assert data["slices"]["holdout"]["folds"] == [5, 10]
    routing = data["slices"]["all"]["routing"]
    assert [c["name"] for c in routing["classes"]] == list(CLASSES)
    assert set(routing["classes"][0]) == {
        "name",
        "precision",
        "recall",
        "f1",
        "support",
        "predicted",
    }
    assert routing["classes"][0]["support"] == 10
    assert set(routing["confusion"]) == set(CLASSES)
    assert set(data["slices"]["all"]["latency"]) == {
        "queries",
        "p50_ms",
        "p99_ms",
        "mean_ms",
        "max_ms",
    }
    assert data["floors"][0]["name"] == "source macro-F1" and data["floors"][0]["passed"]
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(rows) == 20 and rows[0]["expected"]["sources"] == ["mqtt"]
    assert {"predicted", "checks", "split", "ms"} <= set(rows[0])
    assert "== holdout, folds 5,10: 4 rows ==" in out


def test_sample_scores_every_measure(understander: Understander, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, out, _ = _run(understander, str(SAMPLE), "--json", str(report))
    assert code == 0
    whole = json.loads(report.read_text())["slices"]["all"]
    for key in ("routing", "split", "intents", "slots", "conditionals", "latency"):
        assert whole[key] is not None, key
    assert whole["split"]["rows"] == 8 and whole["conditionals"]["scored"] == 3
    assert whole["slots"]["scored"] == 9
    assert "macro-F1" in out and "split: exact" in out


@pytest.fixture
def contradiction(tmp_path: Path) -> Path:
    """The same sentence labelled two ways: no router can score 1.0 on it."""
    return write_jsonl(
        tmp_path / "contradiction.jsonl",
        [
            {"text": "what time is it", "intent": "clock.time"},
            {"text": "what time is it", "intent": None},
            {
                "text": "what time is it and lock the back door",
                "parts": ["what time is it and lock the back door"],
                "source": "clock",
            },
            {
                "text": "what time is it and lock the back door",
                "parts": ["what time is it", "lock the back door"],
                "sources": ["clock", "mqtt"],
            },
        ],
    )


@pytest.mark.parametrize(
    ("floors", "code"),
    [
        ([], 0),
        (["--min-macro-f1", "0"], 0),
        (["--min-macro-f1", "1"], 1),
        (["--min-intent-accuracy", "1"], 1),
        (["--min-exact", "1"], 1),
        (["--min-exact", "0", "--min-intent-accuracy", "0.5"], 0),
        (["--min-oos-precision", "1"], 1),
        (["--min-slot-accuracy", "0.5"], 2),  # no slots labelled: an input error
    ],
)
def test_floors_set_the_exit_code(
    understander: Understander, contradiction: Path, floors: list[str], code: int
) -> None:
    got, out, err = _run(understander, str(contradiction), "--no-timing", *floors)
    assert got == code
    if code == 1:
        assert "MISSED" in out
    if code == 2:
        assert "needs labelled slots" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--holdout"], "fold options need a 'fold' on every row"),
        (["--mapping", "x.yaml"], "--mapping applies to hwu64 and mixsnips"),
        (["--format", "mixsnips"], "a mixsnips row needs 'parts'"),
    ],
)
def test_bad_options_exit_2_with_a_sentence(
    understander: Understander, argv: list[str], message: str
) -> None:
    code, out, err = _run(understander, str(SAMPLE), *argv)
    assert code == 2 and out == ""
    assert message in err


def test_missing_file_exits_2(understander: Understander, tmp_path: Path) -> None:
    code, _, err = _run(understander, str(tmp_path / "absent.jsonl"))
    assert code == 2 and "cannot read" in err


def test_output_is_deterministic_without_timing(understander: Understander, hwu_file: Path) -> None:
    first = _run(understander, str(hwu_file), "--no-timing", "--holdout", "--errors", "50")
    second = _run(understander, str(hwu_file), "--no-timing", "--holdout", "--errors", "50")
    assert first == second
    assert "latency" not in first[1]


def test_progress_on_request(understander: Understander, hwu_file: Path) -> None:
    _, _, quiet = _run(understander, str(hwu_file))
    _, _, shown = _run(understander, str(hwu_file), "--progress")
    assert quiet == ""
    assert shown.splitlines()[-1] == "eval: 20/20 rows"


def test_the_cli_runs_in_a_subprocess(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mnemolis",
            "eval",
            str(SAMPLE),
            "--json",
            str(report),
            "--min-macro-f1",
            "0",
            "--min-exact",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"mnemolis eval: {SAMPLE} (mnemolis, 16 of 16 rows)")
    assert json.loads(report.read_text())["passed"] is True


def test_several_files_of_one_format_are_scored_together(
    understander: Understander, contradiction: Path, hwu_file: Path, tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, out, _ = _run(
        understander, str(SAMPLE), str(contradiction), "--json", str(report), "--errors", "100"
    )
    assert code == 0
    data = json.loads(report.read_text())
    assert data["files"] == [str(SAMPLE), str(contradiction)] and data["rows"] == 20
    assert f"{contradiction}:" in out  # mistakes name their file when there are several
    code, out, err = _run(understander, str(SAMPLE), str(hwu_file))
    assert code == 2 and "give files of one format" in err
