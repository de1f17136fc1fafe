"""The owner's directory laid over the shipped configuration: intents added, extended,
overridden and switched off by name; source files overridden key by key; a file named
like a shipped one standing in for it; provenance of every intent, phrase and example;
and the understanding that results, row by row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import Config, ConfigError, bundled_config_dir, find_config_dir, load_config
from mnemolis.config.overlay import HOME_KEYS, layered
from mnemolis.core.plan import Part
from mnemolis.understand import Understander
from tests.support_routines import owner_dir

OWNER = """
intents:
  device.turn_off:            # a shipped intent: more phrases and an example
    phrases: [nix, lights out please]
    examples:
      - text: nix the porch light
        slots: {device: porch light}
  decline.music:              # switched off: music is no longer declined by name
    enabled: false
  clock.time:                 # replaced whole
    override: true
    source: clock
    priority: 70
    phrases: [what time, the time, tell the time]
  reply.hello:                # a shipped reply reworded
    override: true
    phrases: [hello, hiya]
    say: Hiya.
  lights.party:               # a new intent of the owner's
    source: mqtt
    action: turn_on
    device_types: [light]
    slots: [device, room]
    requires: [device]
    phrases: [party up]
"""


@pytest.fixture(scope="module")
def owned(tmp_path_factory: pytest.TempPathFactory) -> Config:
    folder = owner_dir(tmp_path_factory.mktemp("owner"), {"intents/en/mine.yaml": OWNER})
    return load_config(folder)


@pytest.fixture(scope="module")
def owned_understander(owned: Config) -> Understander:
    return Understander(owned)


def P(intent: str | None, **slots: Any) -> tuple[str | None, dict[str, Any]]:
    return intent, slots


ROWS = [
    # the owner's phrasing of a shipped intent, with its device
    ("nix the porch light", [P("device.turn_off", device="porch light")]),
    (
        "lights out please in the kitchen",
        [P("device.turn_off", room="kitchen", device="kitchen light")],
    ),
    # the shipped phrases still work beside the owner's
    ("turn off the kitchen light", [P("device.turn_off", device="kitchen light")]),
    # a new intent of the owner's, with the action its YAML names
    ("party up the hallway light", [P("lights.party", device="hallway light")]),
    # the override: only the owner's phrases are left ("o'clock" was a shipped one)
    ("tell the time", [P("clock.time")]),
    ("what time is it", [P("clock.time")]),
    ("hiya", [P("reply.hello")]),
    # a switched-off declined intent declines nothing by name any more
    ("play the radio", [P(None)]),
    # and the other shipped intents are untouched
    ("good night", [P("routine.good_night")]),
    ("what's the weather tomorrow", [P("weather.forecast", day="tomorrow")]),
]


@pytest.mark.parametrize(("text", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_the_owners_intents_are_understood_beside_the_shipped_ones(
    owned_understander: Understander, text: str, expected: list[tuple[str | None, dict[str, Any]]]
) -> None:
    plan = owned_understander.understand(text)
    parts = [s for s in plan.steps if isinstance(s, Part)]
    assert [(p.intent, p.slots) for p in parts] == expected


def test_a_switched_off_intent_is_gone_but_remembered(owned: Config) -> None:
    assert "decline.music" not in owned.intents
    assert [o.how for o in owned.disabled["decline.music"].origins] == ["defined", "disabled"]
    play = Understander(owned).understand("play the radio").steps[0]
    assert isinstance(play, Part) and "declined" not in play.provenance


def test_every_intent_phrase_and_example_says_where_it_was_written(owned: Config) -> None:
    mine = str(owned.root / "intents" / "en" / "mine.yaml")
    shipped = str(bundled_config_dir() / "intents" / "en" / "devices.yaml")
    turn_off = owned.intents["device.turn_off"]
    assert [(o.how, o.path, o.shipped) for o in turn_off.origins] == [
        ("defined", shipped, True),
        ("extended", mine, False),
    ]
    by_text = {p.text: p for p in turn_off.phrases}
    assert by_text["nix"].at is not None and str(by_text["nix"].at.path) == mine
    assert by_text["nix"].at.line() == 4
    assert by_text["turn off"].at is not None and str(by_text["turn off"].at.path) == shipped
    example = next(e for e in turn_off.examples if e.text == "nix the porch light")
    assert (example.path, example.line) == (mine, 6)
    clock = owned.intents["clock.time"]
    assert [o.how for o in clock.origins] == ["defined", "overridden"]
    assert [p.text for p in clock.phrases] == ["what time", "the time", "tell the time"]
    assert [o.how for o in owned.intents["lights.party"].origins] == ["defined"]


def test_an_empty_owner_directory_is_the_shipped_configuration(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    shipped = load_config(bundled_config_dir())
    owned = load_config(tmp_path)
    assert owned.root == tmp_path
    assert list(owned.intents) == list(shipped.intents)
    assert owned.sources == shipped.sources
    assert [d.name for d in owned.devices] == [d.name for d in shipped.devices]


def test_a_file_named_like_a_shipped_one_stands_in_for_it(tmp_path: Path) -> None:
    clock = "intents:\n  clock.time:\n    source: clock\n    phrases: [what hour]\n"
    owned = load_config(owner_dir(tmp_path, {"intents/en/clock.yaml": clock}))
    assert "clock.date" not in owned.intents  # the shipped clock.yaml is not read
    assert [p.text for p in owned.intents["clock.time"].phrases] == ["what hour"]
    shipped = list(load_config(bundled_config_dir()).intents)
    assert list(owned.intents).index("clock.time") == shipped.index("clock.time")  # its place


def test_a_full_copy_of_the_shipped_files_changes_nothing(tmp_path: Path) -> None:
    import shutil

    for folder in ("intents", "sources"):
        shutil.copytree(bundled_config_dir() / folder, tmp_path / folder)
    owned, shipped = load_config(tmp_path), load_config(bundled_config_dir())
    assert list(owned.intents) == list(shipped.intents)
    assert owned.sources == shipped.sources


def test_source_files_override_key_by_key_and_the_home_is_the_owners(tmp_path: Path) -> None:
    mqtt = "broker:\n  port: 1884\nrooms:\n  - {name: attic, floor: top}\n"
    owned = load_config(owner_dir(tmp_path, {"sources/mqtt.yaml": mqtt}))
    broker = owned.sources["mqtt"]["broker"]
    assert (broker["host"], broker["port"]) == ("127.0.0.1", 1884)  # host from the shipped file
    assert owned.sources["mqtt"]["discovery"]["homeassistant"] is True
    assert owned.devices == []  # the demo home is not laid under an owner's home
    assert owned.rooms == {"attic": []}
    assert owned.floors == {"top": ["attic"]}
    assert owned.source_path("mqtt") == tmp_path / "sources" / "mqtt.yaml"
    assert owned.source_path("clock") == bundled_config_dir() / "sources" / "clock.yaml"


def test_the_language_file_overrides_key_by_key(tmp_path: Path) -> None:
    language = "wake_words: [computer]\n"
    owned = load_config(owner_dir(tmp_path, {"intents/en/language.yaml": language}))
    shipped = load_config(bundled_config_dir())
    assert owned.language.wake_words == ["computer"]
    assert owned.language.stop_words == shipped.language.stop_words
    plan = Understander(owned).understand("computer what time is it")
    assert [(s.intent if isinstance(s, Part) else None) for s in plan.steps] == ["clock.time"]


@pytest.mark.parametrize(
    ("files", "holds"),
    [
        ({"intents/en/x.yaml": "intents: {}\n"}, True),
        ({"sources/mqtt.yaml": "{}\n"}, True),
        ({}, False),
    ],
)
def test_etc_counts_when_it_holds_intents_or_sources(
    tmp_path: Path, files: dict[str, str], holds: bool
) -> None:
    etc = owner_dir(tmp_path / "etc", files)
    assert (find_config_dir(None, {}, etc) == etc) is holds


@pytest.mark.parametrize(
    ("folder", "reason"),
    [
        ("missing", "no such configuration directory"),
        ("empty", "no intents directory and no sources"),
    ],
)
def test_an_owner_directory_that_cannot_be_one_says_why(
    tmp_path: Path, folder: str, reason: str
) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=reason):
        load_config(tmp_path / folder)


def test_every_error_of_every_file_is_raised_together(tmp_path: Path) -> None:
    one = "intents:\n  a.one:\n    source: clok\n    phrases: [x]\n  a.two:\n    source: clock\n"
    two = "intents:\n  b.one:\n    source: clock\n    phrases: [y]\n    priority: high\n"
    with pytest.raises(ConfigError) as caught:
        load_config(owner_dir(tmp_path, {"intents/en/one.yaml": one, "intents/en/two.yaml": two}))
    said = [(Path(e.path).name, e.line, e.reason.split(":")[0]) for e in caught.value.errors]
    assert said == [
        ("one.yaml", 3, "intent 'a.one'"),
        ("one.yaml", 5, "intent 'a.two' has no phrases"),
        ("two.yaml", 5, "intent 'b.one'"),
    ]
    assert str(caught.value).count("\n") == 2  # one line each


# --------------------------------------------------------------------------- the merge, as a property

keys = st.sampled_from(["a", "b", "c", "devices", "rooms"])
leaves = st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2))
trees = st.recursive(leaves, lambda inner: st.dictionaries(keys, inner, max_size=3), max_leaves=8)
mappings = st.dictionaries(keys, trees, max_size=4)


def _leaves(tree: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(tree, dict) and tree:
        out: dict[tuple[str, ...], Any] = {}
        for key, value in tree.items():
            out.update(_leaves(value, (*path, key)))
        return out
    return {path: tree}


@given(shipped=mappings, owner=mappings)
def test_the_owners_values_win_and_the_rest_is_shipped(
    shipped: dict[str, Any], owner: dict[str, Any]
) -> None:
    result = layered("mqtt", shipped, owner)
    for path, value in _leaves(owner).items():
        if path and (value is not None) and value != {}:
            node: Any = result
            for key in path:
                node = node[key]
            assert node == value  # every value the owner wrote is the one used
    for key in HOME_KEYS["mqtt"]:
        assert (key in result) is (key in owner)  # the home is never inherited
        if key in owner:
            assert result[key] == owner[key]
    for key, value in shipped.items():
        if key not in owner and key not in HOME_KEYS["mqtt"]:
            assert result[key] == value  # what the owner left out is the shipped value


def test_an_undo_must_name_a_device_action_of_the_same_source(tmp_path: Path) -> None:
    """`undo` ("... for 10 minutes": what puts it back) is checked when the files are read."""
    mine = (
        "intents:\n"
        "  lights.party:\n    source: mqtt\n    action: turn_on\n    device_types: [light]\n"
        "    slots: [device]\n    phrases: [party up]\n    undo: device.turn_of\n"
        "  lights.calm:\n    source: mqtt\n    action: turn_off\n    device_types: [light]\n"
        "    slots: [device]\n    phrases: [calm down]\n    undo: clock.time\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(owner_dir(tmp_path, {"intents/en/mine.yaml": mine}))
    said = [(Path(e.path).name, e.line, e.reason) for e in caught.value.errors]
    assert said == [
        (
            "mine.yaml",
            8,
            "intent 'lights.party': undo names 'device.turn_of', which is no intent"
            " (device.turn_of -> device.turn_off?)",
        ),
        (
            "mine.yaml",
            15,
            "intent 'lights.calm': undo 'clock.time' must be a device action of the same"
            " source, as this intent must be",
        ),
    ]
