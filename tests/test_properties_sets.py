"""Properties of the set a request means, and of an owner's own intents.

- "all X except Y" never acts on Y: over generated homes, whatever Y is (a device
  named, or an area), no device it names or that stands in it is acted on.
- A name the home does not have never acts on another device: words the home does
  not know, said as a device's name or after an area word, leave every part that acts
  with no device; nor does a thing of its own the home has no device of ("the tv"), when
  a device's name holds its word ("tv backlight", "tv lamp").
- An owner's request made of one intent phrase and values of its own slots is one
  part with exactly those values (several of one slot as a list, in spoken order),
  however the values are joined ("and", commas, "with").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz

from mnemolis.config import load_config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.understand import Understander
from tests.support_routines import owner_dir
from tests.support_targets import ids_of
from tests.test_properties_targets import (  # the generated homes of the targets properties
    AREAS,
    KIND,
    KINDS,
    PROPERTY,
    Spec,
    _furnished,
    _rooms,
    _said,
    furnishings,
    home,  # noqa: F401 (a fixture)
    specs,
)

EXCEPT = ["except", "but not", "other than", "apart from", "except for"]


def _acted_on(u: Understander, registry: DeviceRegistry, text: str) -> list[str]:
    """The ids every acting part of the plan names."""
    acting = u.router.questions.acts
    ids: list[str] = []
    for part in u.understand(text).parts():
        spec = u.config.intent(part.intent)
        if spec is not None and acting(spec):
            ids += ids_of(registry, part.slots.get("device"))
    return ids


@PROPERTY
@given(found=st.lists(specs(), min_size=2, max_size=12), data=st.data())
def test_all_x_except_y_never_acts_on_y(
    home: tuple[Understander, DeviceRegistry],  # noqa: F811
    found: list[Spec],
    data: st.DataObject,
) -> None:
    u, registry, devices = _furnished(home, found)
    left = data.draw(st.sampled_from(devices))
    verb, plurals, _ = KINDS[left.type]
    cue = data.draw(st.sampled_from(EXCEPT))
    everything = data.draw(st.sampled_from([f"all the {plurals[0]}", "everything"]))
    text = f"{verb} {everything} {cue} the {left.name.replace('_', ' ').lower()}"
    assert left.id not in _acted_on(u, registry, text), text


@PROPERTY
@given(
    found=furnishings(12),
    area=st.sampled_from(AREAS),
    kind=KIND,
    data=st.data(),
)
def test_all_x_except_an_area_never_acts_in_it(
    home: tuple[Understander, DeviceRegistry],  # noqa: F811
    found: list[Spec],
    area: str,
    kind: str,
    data: st.DataObject,
) -> None:
    u, registry, devices = _furnished(home, found)
    cue = data.draw(st.sampled_from(EXCEPT))
    text = _said(kind, data, f"{{verb}} all the {{noun}} {cue} the {area}")
    rooms = _rooms(devices)
    assert all(rooms.get(i) != area for i in _acted_on(u, registry, text)), text


#: Syllables of words no home and no vocabulary has.
SYLLABLES = ["zor", "vex", "quil", "mab", "trun", "dox", "pell", "ikk", "wub", "sarn"]
unknown_words = st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3).map("".join)


@PROPERTY
@given(
    found=furnishings(12),
    word=unknown_words,
    kind=KIND,
    data=st.data(),
)
def test_a_name_not_in_the_home_never_acts_on_another_device(
    home: tuple[Understander, DeviceRegistry],  # noqa: F811
    found: list[Spec],
    word: str,
    kind: str,
    data: st.DataObject,
) -> None:
    u, registry, devices = _furnished(home, found)
    words = {w for d in devices for n in d.names for w in n.lower().replace("_", " ").split()}
    if any(fuzz.ratio(word, w) >= 60 for w in words):
        return  # heard as a name the home has: not unknown
    verb, plurals, nouns = KINDS[kind]
    noun = data.draw(st.sampled_from([*plurals, *nouns]))
    template = data.draw(
        st.sampled_from(["{verb} the {word} {noun}", "{verb} the {noun} in the {word}"])
    )
    text = template.format(verb=verb, word=word, noun=noun)
    assert _acted_on(u, registry, text) == [], text


#: Things of their own the shipped vocabulary declines (no home here has one), and the
#: words after them in a device's name: a type word (a stem) or none (a brand's run).
THINGS = ["tv", "television", "radio", "speaker", "phone", "netflix", "spotify"]
TAILS = {"light": ["backlight", "light strip", "lamp", "light"], "switch": ["plug", "socket"]}


@PROPERTY
@given(found=furnishings(8), thing=st.sampled_from(THINGS), data=st.data())
def test_a_thing_not_in_the_home_never_acts_on_a_device_named_for_it(
    home: tuple[Understander, DeviceRegistry],  # noqa: F811
    found: list[Spec],
    thing: str,
    data: st.DataObject,
) -> None:
    kind = data.draw(st.sampled_from(sorted(TAILS)))
    tail = data.draw(st.sampled_from(TAILS[kind]))
    room = data.draw(st.one_of(st.none(), st.sampled_from(AREAS)))
    named = Device(f"{thing} {tail}", kind, room, id="named_for_it")
    u, registry, _ = _furnished(home, found, [named])
    verb = data.draw(st.sampled_from(["turn on", "turn off", "switch off"]))
    text = f"{verb} the {thing}"
    assert "named_for_it" not in _acted_on(u, registry, text), text


def test_the_things_are_declined_words(home: tuple[Understander, DeviceRegistry]) -> None:  # noqa: F811
    """Each of `THINGS` is a one-word phrase of a declined domain (what makes it a thing)."""
    u, _ = home
    declined = {p.text for i in u.config.intents.values() if i.source is None for p in i.phrases}
    assert set(THINGS) <= declined


OWNER = """
slots:
  alpha:
    type: list
    values: [zorbix, quillet marnox, tevvel, ossin dap]
  beta:
    type: list
    several: false
    values: [braskol, ulmin dorrow, pevvit]
  gamma:
    type: list
    values: [wexley, pirrin, sollum fenn]
intents:
  own.conjure:
    source: external
    phrases: [conjure, summon me, whip up]
    slots: [alpha, beta, gamma]
    say: Done.
"""
SLOTS = {
    "alpha": ["zorbix", "quillet marnox", "tevvel", "ossin dap"],
    "beta": ["braskol", "ulmin dorrow", "pevvit"],
    "gamma": ["wexley", "pirrin", "sollum fenn"],
}


@pytest.fixture(scope="module")
def owner(tmp_path_factory: pytest.TempPathFactory) -> Understander:
    folder = owner_dir(tmp_path_factory.mktemp("owner"), {"intents/en/own.yaml": OWNER})
    return Understander(load_config(folder))


def _listed(values: list[str], comma: bool) -> str:
    if len(values) == 1:
        return values[0]
    head = (", " if comma else " and ").join(values[:-1])
    return f"{head} and {values[-1]}"


@PROPERTY
@given(data=st.data())
def test_one_phrase_and_its_own_values_is_one_part_with_exactly_them(
    owner: Understander, data: st.DataObject
) -> None:
    phrase = data.draw(st.sampled_from(["conjure", "summon me", "whip up"]))
    said: dict[str, Any] = {}
    groups: list[str] = []
    for slot in data.draw(st.permutations(sorted(SLOTS))):
        most = 1 if slot == "beta" else 3
        values = data.draw(st.lists(st.sampled_from(SLOTS[slot]), max_size=most, unique=True))
        if not values:
            continue
        said[slot] = values if len(values) > 1 else values[0]
        groups.append(_listed(values, data.draw(st.booleans())))
    if not groups:
        return
    joins = [data.draw(st.sampled_from([" ", " with ", " and "])) for _ in groups[1:]]
    text = phrase + " " + groups[0] + "".join(j + g for j, g in zip(joins, groups[1:], strict=True))
    parts = [s for s in owner.understand(text).steps if isinstance(s, Part)]
    assert [(p.intent, p.slots) for p in parts] == [("own.conjure", said)], text


def test_the_owner_config_is_what_the_property_says(owner: Understander) -> None:
    assert [(n, s.several) for n, s in owner.config.slots.items() if n in SLOTS] == [
        ("alpha", True),
        ("beta", False),
        ("gamma", True),
    ]
    assert Path(owner.config.intents["own.conjure"].path).name == "own.yaml"
