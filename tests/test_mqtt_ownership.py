"""Topics belong to their owners, and a flood of announcements cannot keep a real device out.

Pure: discovery configs through the real parser into `KnownDevices` and its
registry, no broker (the attacks against a running daemon are in
`test_serve_poison.py`). Issue 21: V4 (a discovered device commanding another
device's topic or the assistant's own) and V10 (6,000 configs filling the cap).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import ConfigError
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.sources.mqtt import ownership
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.discovery.zigbee2mqtt import Zigbee2MqttParser
from mnemolis.sources.mqtt.known import KnownDevices
from mnemolis.sources.mqtt.settings import MqttSettings, SharedTopic, load_mqtt_settings
from tests.support_discovery import DISCOVERY_ROOMS

LOCK = Device(
    name="front door",
    type="lock",
    id="front_door",
    schema="json",
    topics={"state": "home/front_door", "command": "home/front_door/set"},
)
SERVE = {
    "mqtt_api": {
        "ask_topic": "ask/here",
        "answer_topic": "answers/here",
        "say_topic": "say/here",
        "response_prefixes": ["replies/"],
    },
    "hermes": {"listen_topics": ["voice/heard"], "say_topic": "voice/say"},
}
ON_OFF = {"type": "binary", "name": "state", "property": "state", "value_on": "ON", "value_off": "OFF", "access": 7}
RULES = ownership.Rules(
    ownership.assistant_topics(SERVE, "homeassistant", "zigbee2mqtt", "mnemolis/sync")
)


def switch(
    name: str,
    command: str,
    state: str | None = None,
    ids: list[str] | None = None,
    device: str | None = None,
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "name": name,
        "command_topic": command,
        "payload_on": '{"state": "UNLOCK"}',
        "unique_id": name.replace(" ", "_"),
    }
    if state is not None:
        config["state_topic"] = state
    if ids is not None:
        config["device"] = {"identifiers": ids, "name": device or name}
    return config


class Book:
    """The parser, the known devices and the registry they fill, as the source has them."""

    def __init__(
        self,
        yaml: list[Device] | None = None,
        rules: ownership.Rules = RULES,
        limit: int = 100,
    ) -> None:
        self.registry = DeviceRegistry()
        self.known = KnownDevices(self.registry, list(yaml or []), limit, rules)
        self.parser = HomeAssistantParser("homeassistant", 256, lambda: DISCOVERY_ROOMS)

    def announce(self, object_id: str, config: dict[str, Any], component: str = "switch") -> None:
        topic = f"homeassistant/{component}/{object_id}/config"
        self.known.stage(self.parser.parse(topic, json.dumps(config).encode()))

    def remove(self, object_id: str, component: str = "switch") -> None:
        self.known.stage(self.parser.parse(f"homeassistant/{component}/{object_id}/config", b""))

    def flush(self) -> None:
        self.known.flush()

    def names(self) -> set[str]:
        return {d.name for d in self.registry.devices() if d.refused is None}

    def why(self, name: str) -> str:
        refusal = self.known.refusal_for(name)
        assert refusal is not None, f"{name} was not refused; refusals: {self.known.refusals()}"
        return refusal.reason


# --------------------------------------------------------------------------- V4: whose topic


def test_a_fountain_cannot_command_the_front_door_lock() -> None:
    """V4 as probed: a switch whose command topic is the YAML lock's, payload_on its UNLOCK."""
    book = Book([LOCK])
    book.announce("fountain", switch("garden fountain", "home/front_door/set"))
    book.flush()
    assert "garden fountain" not in book.names()
    assert book.why("garden fountain") == (
        "its command topic 'home/front_door/set' belongs to the front door (sources/mqtt.yaml)"
    )
    # understood by name, and refused with the reason: the registry keeps a stand-in
    stand_in = book.registry.by_name("garden fountain")
    assert stand_in is not None and stand_in.refused == book.why("garden fountain")


def test_nor_write_to_the_lock_s_state_topic() -> None:
    book = Book([LOCK])
    book.announce("fake", switch("fake sensor", "home/front_door"))
    book.flush()
    assert "belongs to the front door" in book.why("fake sensor")


@pytest.mark.parametrize(
    ("topic", "owner"),
    [
        ("mnemolis/ask", "mnemolis/#"),
        ("mnemolis/say", "mnemolis/#"),
        ("hermes/tts/say", "hermes/#"),
        ("hermes/nlu/query", "hermes/#"),
        ("homeassistant/lock/front_door/config", "homeassistant/+/+/config"),
        ("homeassistant/status", "homeassistant/status"),
        ("zigbee2mqtt/bridge/devices", "zigbee2mqtt/bridge/devices"),
        ("ask/here", "ask/here"),
        ("answers/here", "answers/here"),
        ("say/here", "say/here"),
        ("replies/anything", "replies/#"),
        ("voice/heard", "voice/heard"),
        ("voice/say", "voice/say"),
    ],
)
def test_nor_any_topic_of_the_assistant_itself(topic: str, owner: str) -> None:
    """V4's other two: a switch on hermes/tts/say speaks, one on mnemolis/ask asks."""
    book = Book()
    book.announce("helper", switch("helper", topic))
    book.flush()
    assert book.why("helper") == f"its command topic {topic!r} is the assistant's own ({owner})"


def test_reading_a_topic_someone_uses_is_never_refused() -> None:
    book = Book([LOCK])
    book.announce("door", {"name": "door watcher", "state_topic": "home/front_door"}, "sensor")
    book.announce("asks", {"name": "ask counter", "state_topic": "mnemolis/ask"}, "sensor")
    book.flush()
    assert {"door watcher", "ask counter"} <= book.names()


def test_the_entities_of_one_device_share_its_topics() -> None:
    """zigbee2mqtt announces a lock, its sound select and auto-relock switch on one /set."""
    book = Book()
    ids = ["zigbee2mqtt_0x00158d0001"]
    state, command = "zigbee2mqtt/side door", "zigbee2mqtt/side door/set"
    book.announce("lock", switch("side door", command, state, ids, "side door"), "lock")
    book.announce("relock", switch("auto relock", command, state, ids, "side door"))
    book.announce(
        "battery",
        {"name": "battery", "state_topic": state, "device": {"identifiers": ids}},
        "sensor",
    )
    book.flush()
    assert {"side door", "side door auto relock", "side door battery"} <= book.names()
    assert book.known.refusals() == []


def test_the_bridge_list_and_its_own_discovery_are_one_device() -> None:
    """A zigbee2mqtt device from bridge/devices and an entity its Home Assistant discovery
    adds (identifier zigbee2mqtt_<ieee>) share the device's topics."""
    book = Book()
    bridge = Zigbee2MqttParser("zigbee2mqtt", 256, lambda: DISCOVERY_ROOMS, (), {})
    entry = {
        "friendly_name": "hall plug",
        "ieee_address": "0xabc",
        "type": "Router",
        "definition": {"exposes": [{"type": "switch", "features": [ON_OFF]}]},
    }
    book.known.stage(bridge.parse(json.dumps([entry]).encode()))
    extra = switch("child lock", "zigbee2mqtt/hall plug/set", None, ["zigbee2mqtt_0xabc"], "hall plug")
    book.announce("child_lock", extra)
    book.flush()
    assert {"hall plug", "hall plug child lock"} <= book.names()


def test_two_devices_announced_at_once_on_one_topic_command_it_neither() -> None:
    """Start-up: the retained burst gives no order to trust, so neither commands the topic."""
    book = Book()
    book.announce("real", switch("porch pump", "garden/pump/set", "garden/pump", ["pump-1"]))
    book.announce("fake", switch("fountain", "garden/pump/set", None, ["evil-1"]))
    book.flush()
    assert book.why("porch pump") == "its command topic 'garden/pump/set' is also used by the fountain"
    assert book.why("fountain") == "its command topic 'garden/pump/set' is also used by the porch pump"
    # the intruder's config removed: the real device commands its topic again
    book.remove("fake")
    book.flush()
    assert "porch pump" in book.names()


def test_the_device_that_held_a_topic_keeps_it_from_a_newcomer() -> None:
    book = Book()
    book.announce("real", switch("porch pump", "garden/pump/set", "garden/pump", ["pump-1"]))
    book.flush()
    book.announce("fake", switch("fountain", "garden/pump/set", None, ["evil-1"]))
    book.flush()
    assert "porch pump" in book.names()
    assert book.why("fountain") == "its command topic 'garden/pump/set' is also used by the porch pump"


def test_the_owner_shares_a_topic_on_purpose() -> None:
    gateway = "zwave/_CLIENTS/ZWAVE_GATEWAY-home/api/setValue/set"
    shared = ownership.Rules(
        RULES.reserved,
        (
            SharedTopic("zwave/_CLIENTS/+/api/#"),
            SharedTopic("cmnd/rf/Backlog", ("garden lights",)),
        ),
    )
    book = Book(rules=shared)
    book.announce("dining", switch("dining switch", gateway, "zwave/19/37", ["node19"]))
    book.announce("study", switch("study switch", gateway, "zwave/21/37", ["node21"]))
    book.announce("garden", switch("garden lights", "cmnd/rf/Backlog", None, ["rf-1"]))
    book.announce("patio", switch("patio lights", "cmnd/rf/Backlog", None, ["rf-2"]))
    book.flush()
    assert {"dining switch", "study switch", "garden lights"} <= book.names()
    assert book.why("patio lights") == (
        "its command topic 'cmnd/rf/Backlog' is also used by the garden lights"
    )


def test_shared_topics_are_read_from_mqtt_yaml(config: Any, tmp_path: Any) -> None:
    data = {"discovery": {"shared_topics": ["a/#", {"topic": "b/c", "devices": ["The Lamp"]}]}}
    settings = _settings(config, data)
    assert settings.discovery.shared_topics == (
        SharedTopic("a/#"),
        SharedTopic("b/c", ("the lamp",)),
    )
    with pytest.raises(ConfigError, match="each shared topic needs a topic"):
        _settings(config, {"discovery": {"shared_topics": [{"devices": ["x"]}]}})


def _settings(config: Any, mqtt: dict[str, Any]) -> MqttSettings:
    import dataclasses

    sources = {**config.sources, "mqtt": {**config.sources["mqtt"], **mqtt}}
    return load_mqtt_settings(dataclasses.replace(config, sources=sources), env={})


# --------------------------------------------------------------------------- V10: the cap


def test_a_flood_cannot_keep_a_real_new_device_out() -> None:
    """V10 scaled down: 3x the cap in configs, then a real device: it is discovered, the
    oldest unheard flood configs went, and the count stays at the cap."""
    book = Book(limit=50)
    for i in range(150):
        book.announce(f"flood_{i}", {"name": f"flood {i}", "state_topic": f"f/{i}"}, "sensor")
        if i % 25 == 0:
            book.flush()
    book.flush()
    book.announce("kettle", switch("kitchen kettle", "kitchen/kettle/set", "kitchen/kettle"))
    book.flush()
    names = book.names()
    assert "kitchen kettle" in names
    assert len(names) == 50
    assert "flood 0" not in names and "flood 149" in names
    assert book.known.evicted == 101


def test_a_device_heard_from_is_kept_and_each_source_has_its_own_cap() -> None:
    book = Book(limit=20)
    book.announce("thermo", {"name": "hall thermometer", "state_topic": "hall/t"}, "sensor")
    bridge = Zigbee2MqttParser("zigbee2mqtt", 256, lambda: DISCOVERY_ROOMS, (), {})
    entry = {
        "friendly_name": "desk lamp",
        "ieee_address": "0x1",
        "definition": {"exposes": [{"type": "light", "features": [ON_OFF]}]},
    }
    book.known.stage(bridge.parse(json.dumps([entry]).encode()))
    book.flush()
    thermometer = book.registry.by_name("hall thermometer")
    assert thermometer is not None
    for i in range(60):
        book.announce(f"flood_{i}", {"name": f"flood {i}", "state_topic": f"f/{i}"}, "sensor")
        book.known.heard(thermometer.id)  # it keeps reporting while the flood comes in
    book.flush()
    names = book.names()
    assert {"hall thermometer", "desk lamp"} <= names  # zigbee2mqtt is not the flood's source
    assert len([n for n in names if n.startswith("flood")]) == 19


LEVELS = st.sampled_from(["a", "b", "home", "", "set"])


@given(
    st.lists(st.one_of(LEVELS, st.just("+")), min_size=1, max_size=4).flatmap(
        lambda levels: st.sampled_from([levels, [*levels, "#"]])
    ),
    st.lists(LEVELS, min_size=1, max_size=5),
)
def test_the_filter_match_is_mqtt_s(pattern: list[str], topic: list[str]) -> None:
    """`ownership.matches` (fast) agrees with paho's own on every filter and topic."""
    import paho.mqtt.client as mqtt

    expected = mqtt.topic_matches_sub("/".join(pattern), "/".join(topic))
    assert ownership.matches("/".join(pattern), "/".join(topic)) == expected
