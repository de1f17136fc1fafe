"""Entity-level scoring in `mnemolis eval`: the exact devices and the values, per part.

The scorer tests use hand-made plans over a small registry, so they hold
whatever the router gets right; the command tests run the real router on the
big home and assert only what does not depend on its accuracy.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mnemolis.cli.main import build_parser
from mnemolis.config import Config, load_config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.core.plan import Plan
from mnemolis.evaluation.command import evaluate_rows, run, slices
from mnemolis.evaluation.compare import RowScorer
from mnemolis.evaluation.datasets import DataError, ExpectedPart, Row, read_dataset
from mnemolis.evaluation.discovered import home_registry, load_discovery, read_messages
from mnemolis.evaluation.entities import entity_ids, summarise_entities
from mnemolis.evaluation.metrics import PartKeyer
from mnemolis.understand import registry_from_config
from tests.conftest import ROOT
from tests.support_evaluate import part, plan, write_jsonl

BIG_HOME = ROOT / "tests" / "data" / "big_home"


def _registry() -> DeviceRegistry:
    return DeviceRegistry(
        [
            Device("ceiling light", "light", room="kitchen", id="ceiling_kitchen"),
            Device("ceiling light", "light", room="bedroom", id="ceiling_bedroom"),
            Device("kitchen fan", "fan", room="kitchen", id="kitchen_fan"),
            Device("porch light", "light", room="porch", aliases=["outside light"]),
        ]
    )


def _scorer() -> RowScorer:
    return RowScorer(PartKeyer(edge_words=["and"]), entity_ids(_registry()))


def _row(entities: list[str] | None, values: dict[str, Any] | None, fold: int = 1) -> Row:
    expected = ExpectedPart(
        intent="device.turn_on", source="mqtt", intent_known=True, source_known=True
    )
    expected.entities, expected.values = entities, values
    return Row(1, "x", [expected], fold=fold)


# --------------------------------------------------------------------------- the scorer


def test_slot_values_map_to_ids_by_id_first_then_by_name() -> None:
    ids_of = entity_ids(_registry())
    assert ids_of("ceiling_bedroom") == ["ceiling_bedroom"]
    assert ids_of("outside light") == ["porch_light"]
    assert ids_of(["kitchen fan", "porch light"]) == ["kitchen_fan", "porch_light"]
    assert ids_of("garden gnome") == ["?garden gnome"]
    assert ids_of(None) == [] and ids_of("") == []


def test_a_right_row_is_fully_right() -> None:
    row = _row(["porch_light", "kitchen_fan"], {"brightness": 50})
    got = part(
        "x",
        "mqtt",
        "device.turn_on",
        {"device": ["kitchen fan", "porch light"], "brightness": "50"},
    )
    check = _scorer().score(row, plan("x", got), 0.1).checks[0]
    assert check.entities_ok is True and check.entities_got == ["kitchen_fan", "porch_light"]
    assert (check.values_expected, check.values_correct) == (1, 1)
    assert check.fully_right


@pytest.mark.parametrize(
    ("device", "why"),
    [
        ("porch light", "one device too few"),
        (["porch light", "kitchen fan", "ceiling light"], "one device too many"),
        ("ceiling_bedroom", "the other device of the same name"),
        (None, "no device at all"),
    ],
)
def test_a_wrong_entity_set_is_wrong(device: Any, why: str) -> None:
    row = _row(["porch_light", "kitchen_fan"], None)
    got = part("x", "mqtt", "device.turn_on", {} if device is None else {"device": device})
    check = _scorer().score(row, plan("x", got), 0.1).checks[0]
    assert check.entities_ok is False, why
    assert not check.fully_right


def test_no_entities_expected_means_none_may_be_named() -> None:
    """A "which one" question: the right intent and no device chosen."""
    asked = _scorer().score(_row([], None), plan("x", part("x", "mqtt", "device.turn_on")), 0.1)
    assert asked.checks[0].entities_ok is True
    guessed = part("x", "mqtt", "device.turn_on", {"device": "ceiling_kitchen"})
    acted = _scorer().score(_row([], None), plan("x", guessed), 0.1)
    assert acted.checks[0].entities_ok is False


def test_a_missing_or_wrong_value_is_counted_per_value() -> None:
    row = _row(["kitchen_fan"], {"percentage": 50, "preset": None, "step": -10})
    got = part("x", "mqtt", "device.turn_on", {"device": "kitchen fan", "percentage": 50})
    check = _scorer().score(row, plan("x", got), 0.1).checks[0]
    assert (check.values_expected, check.values_correct) == (3, 2)
    assert check.value_misses == ["step=None, expected -10"]
    assert check.entities_ok is True and not check.fully_right


def test_a_right_entity_under_a_wrong_intent_is_not_fully_right() -> None:
    row = _row(["kitchen_fan"], None)
    got = part("x", "mqtt", "device.turn_off", {"device": "kitchen fan"})
    check = _scorer().score(row, plan("x", got), 0.1).checks[0]
    assert check.entities_ok is True and check.intent_ok is False and not check.fully_right


def test_a_dropped_part_counts_as_wrong() -> None:
    first = ExpectedPart(text="lock up", intent="device.lock", intent_known=True, entities=["a"])
    second = ExpectedPart(text="turn off the porch light", entities=["porch_light"])
    row = Row(1, "lock up and turn off the porch light", [first, second], split_known=True)
    only = part("turn off the porch light", "mqtt", "device.turn_off", {"device": "porch light"})
    result = _scorer().score(row, plan(row.text, only), 0.1)
    summary = summarise_entities([result])
    assert summary is not None
    assert (summary.parts, summary.entities_correct, summary.dropped) == (2, 0, 2)
    assert summary.rows_fully_right == 0


def test_held_out_rows_are_summarised_apart() -> None:
    scorer = _scorer()
    right = part("x", "mqtt", "device.turn_on", {"device": "kitchen fan"})
    wrong = part("x", "mqtt", "device.turn_on", {"device": "porch light"})
    results = [
        scorer.score(_row(["kitchen_fan"], None, fold), plan("x", got), 0.1)
        for fold, got in ((1, right), (2, right), (5, wrong))
    ]
    summaries = {s.name: s for s in slices(results, holdout=True, timing=False)}
    assert {n: s.entities.entity_accuracy for n, s in summaries.items() if s.entities} == {
        "all": pytest.approx(2 / 3),
        "tuning": 1.0,
        "holdout": 0.0,
    }


# --------------------------------------------------------------------------- the rows


@pytest.fixture(scope="module")
def big_config() -> Config:
    return load_config(BIG_HOME)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {"text": "x", "intent": "device.turn_on", "entities": "lamp"},
            "'entities' must be a list",
        ),
        ({"text": "x", "intent": "device.turn_on", "entities": [1]}, "must hold device ids"),
        (
            {
                "text": "x and y",
                "parts": ["x", "y"],
                "intents": ["device.turn_on"] * 2,
                "entities": [["a"]],
            },
            "'entities' has 1 entries but the parts 2",
        ),
        (
            {"text": "x", "intent": "device.turn_on", "values": [1]},
            "'values' entries must be mappings",
        ),
        ({"text": "x", "intent": "device.turn_on", "values": 3}, "'values' must be a mapping"),
        ({"text": "x", "intent": "device.turn_on", "room": "ballroom"}, "is not an area"),
    ],
)
def test_bad_entity_labels_name_the_line(
    tmp_path: Path, big_config: Config, row: dict[str, Any], message: str
) -> None:
    path = write_jsonl(tmp_path / "rows.jsonl", [{"text": "ok", "intent": None}, row])
    with pytest.raises(DataError, match=message) as caught:
        read_dataset(path, big_config)
    assert ":2:" in str(caught.value) or "line 2" in str(caught.value)


def test_entity_labels_read_per_part(tmp_path: Path, big_config: Config) -> None:
    rows = [
        {
            "text": "a",
            "intent": "device.turn_on",
            "entities": ["x"],
            "values": {"brightness": 5},
            "room": "Kitchen",
        },
        {
            "text": "a and b",
            "parts": ["a", "b"],
            "intents": ["device.turn_on", "device.lock"],
            "entities": [["x"], []],
            "values": [None, {"state": "on"}],
        },
    ]
    one, two = read_dataset(write_jsonl(tmp_path / "r.jsonl", rows), big_config).rows
    assert one.parts[0].entities == ["x"] and one.parts[0].values == {"brightness": 5}
    assert one.room == "kitchen"
    assert [p.entities for p in two.parts] == [["x"], []]
    assert [p.values for p in two.parts] == [None, {"state": "on"}]


# --------------------------------------------------------------------------- the home


def test_the_big_home_loads_its_discovery_through_the_real_parsers(big_config: Config) -> None:
    registry, loaded = home_registry(big_config, None)
    assert loaded is not None and loaded.refused == [] and loaded.ignored == []
    devices = {d.id: d for d in registry.devices()}
    assert len(devices) >= 100
    assert len({d.room for d in devices.values() if d.room}) >= 10
    assert len(big_config.floors) >= 3
    enddevice = devices["ha_0x0017880104e45553_light_zigbee2mqtt"]
    assert (enddevice.name, enddevice.room, enddevice.origin) == (
        "bulb enddevice",
        None,
        "homeassistant",
    )
    ceilings = sorted((d.room, d.id) for d in devices.values() if d.name == "ceiling light")
    assert [room for room, _ in ceilings] == ["bedroom", "kitchen"]
    assert devices["ha_espbinary_sensorlight"].name == "light"
    assert devices["ha_espbinary_sensorlight"].type == "binary_sensor"


def test_a_discovery_file_with_a_bad_line_names_it(tmp_path: Path, config: Config) -> None:
    path = tmp_path / "discovery.jsonl"
    path.write_text('{"topic": "homeassistant/light/a/config", "payload": {}}\nnot json\n')
    with pytest.raises(DataError, match=r"discovery.jsonl:2: not JSON"):
        read_messages(path)


def test_a_removed_config_removes_its_device(tmp_path: Path, config: Config) -> None:
    topic = "homeassistant/switch/pump/config"
    payload = {"name": "Pond Pump", "command_topic": "pond/pump/set", "unique_id": "pump1"}
    path = write_jsonl(tmp_path / "d.jsonl", [{"topic": topic, "payload": payload}])
    registry = registry_from_config(config)
    assert load_discovery(config, registry, path).devices == 1
    assert registry.by_name("pond pump") is not None
    write_jsonl(path, [{"topic": topic, "payload": payload}, {"topic": topic, "payload": None}])
    registry = registry_from_config(config)
    load_discovery(config, registry, path)
    assert registry.by_name("pond pump") is None


# --------------------------------------------------------------------------- the command


class _Listening:
    """An understander that records the room each request was spoken in."""

    def __init__(self) -> None:
        self.rooms: list[str | None] = []

    def understand(self, text: str, room: str | None = None) -> Plan:
        self.rooms.append(room)
        return plan(text)


def test_a_rows_room_is_passed_to_understanding() -> None:
    listening = _Listening()
    rows = [
        Row(1, "lights on", [ExpectedPart()], room="kitchen"),
        Row(2, "lights off", [ExpectedPart()]),
    ]
    evaluate_rows(rows, listening, PartKeyer(edge_words=[]))  # type: ignore[arg-type]
    assert listening.rooms[1:] == ["kitchen", None]  # the first is the warm-up


def _eval(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(build_parser().parse_args(argv), None, out, err)
    return code, out.getvalue(), err.getvalue()


def test_eval_on_the_big_home_reports_entities_and_gates_on_them(tmp_path: Path) -> None:
    rows = [
        {
            "text": "turn on the floor lamp",
            "intent": "device.turn_on",
            "entities": ["living_room_lamp"],
            "fold": 1,
        },
        {
            "text": "is the bulb enddevice on",
            "intent": "device.state",
            "entities": ["ha_0x0017880104e45553_light_zigbee2mqtt"],
            "values": {"state": "on"},
            "fold": 5,
        },
        {"text": "what time is it", "intent": "clock.time", "fold": 2},
        # the same sentence with another device: no router gets both right
        {
            "text": "turn on the floor lamp",
            "intent": "device.turn_on",
            "entities": ["tv_backlight"],
            "fold": 3,
        },
    ]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    report = tmp_path / "report.json"
    argv = [
        "--config",
        str(BIG_HOME),
        "eval",
        str(data),
        "--holdout",
        "--allow-undefined-intents",
        "--no-timing",
        "--json",
        str(report),
    ]
    code, out, err = _eval(*argv, "--min-entity-accuracy", "0", "--min-value-accuracy", "0")
    assert code == 0, err
    assert "home: " in out and "from 53 discovery messages" in out
    assert sum(line.startswith("entities: ") for line in out.splitlines()) == 3  # 3 slices
    figures = json.loads(report.read_text())
    held = figures["slices"]["holdout"]["entities"]
    assert (held["parts"], held["entities_scored"], held["values_scored"]) == (1, 1, 1)
    assert 0.0 <= figures["slices"]["all"]["entities"]["entity_accuracy"] <= 1.0
    code, out, _ = _eval(*argv, "--min-fully-right", "1")
    assert code == 1 and "floor fully right parts" in out and "MISSED" in out


def test_an_unknown_device_id_in_a_row_exits_2(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl",
        [{"text": "turn on the lamp", "intent": "device.turn_on", "entities": ["no_such_lamp"]}],
    )
    code, _, err = _eval("--config", str(BIG_HOME), "eval", str(data), "--no-timing")
    assert code == 2 and "unknown device id(s): no_such_lamp" in err


def test_an_explicit_discovery_file_is_loaded(tmp_path: Path) -> None:
    topic = "homeassistant/switch/pump/config"
    payload = {"name": "Pond Pump", "command_topic": "pond/pump/set", "unique_id": "pump1"}
    disc = write_jsonl(
        tmp_path / "disc.jsonl", [{"topic": topic, "payload": payload, "source": "test"}]
    )
    data = write_jsonl(
        tmp_path / "rows.jsonl",
        [{"text": "turn on the pond pump", "intent": "device.turn_on", "entities": ["ha_pump1"]}],
    )
    code, out, err = _eval("eval", str(data), "--discovery", str(disc), "--no-timing")
    assert code == 0, err
    assert "1 of them from 1 discovery messages" in out


def test_an_intent_the_config_does_not_define_is_listed_and_scored_wrong(tmp_path: Path) -> None:
    rows = [
        {"text": "set the kitchen blind to 40 percent", "intent": "device.set_positoin"},
        {"text": "what time is it", "intent": "clock.time"},
    ]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    code, _, err = _eval("eval", str(data), "--no-timing")
    assert code == 2 and "intent 'device.set_positoin' is not defined in the config" in err
    code, out, err = _eval("eval", str(data), "--no-timing", "--allow-undefined-intents")
    assert code == 0, err
    assert "intents the config does not define (scored as wrong): device.set_positoin (1)" in out
    assert "intents: 0.500 (1/2)" in out
