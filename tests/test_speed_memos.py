"""The speed-ups of understanding answer as the slow paths did.

A bucket of token patterns run as a Matcher of the patterns a query can
match finds what the whole bucket finds, in the same order; what the name
index remembers for one snapshot of the registry is forgotten when the
registry changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.understand import Understander, pattern_buckets

DATA = Path(__file__).parent / "data"


def _texts() -> list[str]:
    out = []
    for path in sorted(DATA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["text"])
    return out


def _found(u: Understander, text: str) -> list[tuple[object, ...]]:
    doc = u.text.doc(u.normalizer.normalize(text).text)
    return [(m.rule, m.start, m.end, m.literal, m.captures) for m in u.intent_map.find(doc)]


def test_bucket_subsets_find_what_the_whole_bucket_finds(
    understander: Understander, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [*_texts(), "is the battery low", "are the doors open and is it raining"]
    fast = [_found(understander, t) for t in texts]
    monkeypatch.setattr(pattern_buckets, "SMALL", 10**9)  # every bucket whole
    assert [_found(understander, t) for t in texts] == fast


def test_spec_keys() -> None:
    assert pattern_buckets.spec_keys({"LEMMA": "turn"}) == (("LEMMA", "turn"),)
    assert pattern_buckets.spec_keys({"LOWER": "is", "OP": "?"}) is None
    assert pattern_buckets.spec_keys({"OP": "{0,5}"}) is None
    assert pattern_buckets.spec_keys({"LIKE_NUM": True}) == (("NUM", ""),)
    assert pattern_buckets.spec_keys({"LEMMA": {"IN": ["a", "b"]}}) == (
        ("LEMMA", "a"),
        ("LEMMA", "b"),
    )


def test_the_name_memo_follows_the_registry(config: Config) -> None:
    registry = DeviceRegistry([Device("desk lamp", "light", "office", id="lamp1")])
    u = Understander(config, registry)
    assert u.names.device_named("desk lamp") is registry.get("lamp1")
    assert u.names.device_named("reading lamp") is None
    assert [d.id for d in u.names.of_type("light")] == ["lamp1"]
    assert [[d.id for d in t] for t in u.names.noun_tiers("light")] == [["lamp1"]]
    registry.upsert(Device("reading lamp", "light", "office", id="lamp2"))
    assert u.names.device_named("reading lamp") is registry.get("lamp2")
    assert [d.id for d in u.names.of_type("light")] == ["lamp1", "lamp2"]
    assert [[d.id for d in t] for t in u.names.noun_tiers("light")] == [["lamp1", "lamp2"]]
    registry.remove("lamp1")
    assert u.names.device_named("desk lamp") is None
    assert u.understand("turn on the reading lamp").steps[0].to_dict()["slots"] == {
        "device": "reading lamp"
    }
