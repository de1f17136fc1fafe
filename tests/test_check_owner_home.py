"""`mnemolis check` over an owner's own home: the shipped examples, written for the demo
home, are checked as far as they do not depend on the home (`example_scope`); the
owner's own examples in full, a failure named at its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mnemolis.cli.example_scope import HomeScope, Scope
from mnemolis.cli.main import main
from mnemolis.config import load_config
from mnemolis.config.intents import Example
from mnemolis.evaluation.discovered import home_registry
from tests.support_routines import owner_dir

BIG_HOME = Path(__file__).parent / "data" / "big_home"

#: The owner's examples, one wrong on its device, and a shipped intent overridden with
#: phrases that take "what time is it" (a shipped example of clock.time) from the clock.
OWNER_EXAMPLES = """
intents:
  device.turn_on:
    examples:
      - text: switch on the desk lamp
        slots: {device: desk lamp}
      - text: turn on the floodlight
        slots: {device: porch light}
"""
STOLEN_TIME = """
intents:
  reply.hello:
    override: true
    priority: 95
    phrases: [hello, what time is it]
    say: Hi.
"""


def _big_home_with(tmp_path: Path, intents: str) -> Path:
    folder = tmp_path / "home"
    shutil.copytree(BIG_HOME, folder)
    return owner_dir(folder, {"intents/en/mine.yaml": intents})


def test_check_over_the_big_home_passes_and_says_how_far_the_shipped_examples_ran(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--config", str(BIG_HOME), "check"]) == 0
    captured = capsys.readouterr()
    counts, _, examples = captured.out.splitlines()[-1].partition("; ")
    assert counts.endswith(" phrases, 140 devices")  # the phrases grow with the vocabulary
    assert examples == (
        "shipped examples over this home: 196 in full, "
        "11 on intent only, 22 written for the demo home; 0 the owner's; "
        "207/207 examples pass"
    )
    assert captured.err == ""


@pytest.mark.parametrize(
    ("intents", "failures"),
    [
        (
            OWNER_EXAMPLES,
            [
                "{mine}:7: 'turn on the floodlight' slot device = 'floodlight', "
                "expected 'porch light'"
            ],
        ),
        (
            STOLEN_TIME,
            [
                "{shipped}/intents/en/clock.yaml:{line}: 'what time is it' -> reply.hello, "
                "expected clock.time"
            ],
        ),
    ],
    ids=["owner-example-wrong-device", "shipped-intent-taken-by-an-override"],
)
def test_check_over_an_owners_home_fails_on_what_the_owner_broke(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], intents: str, failures: list[str]
) -> None:
    folder = _big_home_with(tmp_path, intents)
    assert main(["--config", str(folder), "check"]) == 1
    out = capsys.readouterr().out.splitlines()
    mine = str(folder / "intents" / "en" / "mine.yaml")
    shipped = str(load_config(str(folder)).layers[0].root)
    said = [line for line in out if line.startswith((mine, shipped))]
    # the clock's example is found where it is written, not at a line the YAML moves from
    clock = (Path(shipped) / "intents" / "en" / "clock.yaml").read_text(encoding="utf-8")
    line = 1 + clock.splitlines().index("      - what time is it")
    assert said == [f.format(mine=mine, shipped=shipped, line=line) for f in failures]


def _scope(text: str, slots: dict[str, object]) -> Scope:
    config = load_config(str(BIG_HOME))
    registry, _loaded = home_registry(config, None)
    home = HomeScope.of(config, registry)
    shipped = str(config.layers[0].root / "intents" / "en" / "devices.yaml")
    return home.scope(Example(text, "device.turn_on", dict(slots), 1, shipped), shipped, text)


@pytest.mark.parametrize(
    ("text", "slots", "scope"),
    [
        ("turn on the desk lamp", {"device": "desk lamp"}, Scope.FULL),  # named, in the home
        ("turn on the bulb enddevice", {"device": "bulb enddevice"}, Scope.FULL),  # discovered
        ("turn on the lights in the office", {"room": "office"}, Scope.FULL),
        ("raise the blinds", {"device": "living room blinds"}, Scope.INTENT),  # a set of 4
        ("turn on the kitchen light", {"device": "kitchen light"}, Scope.DEMO),  # not here
        ("start the robot vacuum", {"device": "robot vacuum"}, Scope.DEMO),
        ("turn on the lights in the pantry", {"room": "pantry"}, Scope.DEMO),
        ("set it to 40 percent", {"brightness": 40}, Scope.FULL),  # a value, not the home
    ],
)
def test_a_shipped_example_is_checked_as_far_as_the_owners_home_allows(
    text: str, slots: dict[str, object], scope: Scope
) -> None:
    assert _scope(text, slots) is scope


def test_over_the_demo_home_every_example_is_checked_in_full(tmp_path: Path) -> None:
    folder = owner_dir(tmp_path / "owner", {"intents/en/mine.yaml": OWNER_EXAMPLES})
    config = load_config(str(folder))
    registry, _loaded = home_registry(config, None)
    home = HomeScope.of(config, registry)
    assert home.demo
    demo = Example("start the robot vacuum", "device.start", {"device": "robot vacuum"})
    assert home.scope(demo, str(config.layers[0].root / "x.yaml"), demo.text) is Scope.FULL


def test_check_over_the_second_home_counts_apart_what_means_another_thing_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Its "front door" is a door contact (the demo's is a lock), its "bedroom" an alias of
    the master bedroom, and a device is called "TV" ("what's on tv tonight" is declined in
    the demo home): the shipped examples about those are not the owner's faults."""
    second = BIG_HOME.parent / "second_home"
    assert main(["--config", str(second), "check"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert "1 on intent only" in last and last.endswith("0 the owner's; 177/177 examples pass")
