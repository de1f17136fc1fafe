"""The corpus: real discovery configs announced on a real Mosquitto and driven.

Each file in tests/data/discovery/ holds configs one firmware or bridge
publishes (zigbee2mqtt, Home Assistant's docs, Tasmota, ESPHome, Shelly,
OpenMQTTGateway, Valetudo, Z-Wave JS, EMS-ESP), each with the ``source`` it
was copied from. Every config of a file is retained on one broker, so a
request must reach its own device and no other. For each request the test
asserts the exact publishes (topic, payload bytes, QoS, retain flag) Home
Assistant would make, then plays the device's echo; for each state message,
the reading it must give. A second test routes the ``say`` sentences of the
shipped actions through understanding, to the same action and device.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request
from mnemolis.sources.mqtt.settings import SharedTopic
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander
from tests.conftest import ROOT
from tests.support_mqtt import (
    Capture,
    broker,
    part_acting,
    publisher,
    settings_for,
    with_actions,
    without_yaml_devices,
)

__all__ = ["broker"]

CORPUS = ROOT / "tests" / "data" / "discovery"
FILES = sorted(CORPUS.glob("*.json"))
PREFIX = "homeassistant/"
#: The link's own round-trip markers (``MqttLink.sync``), on its private topic.
SYNC = "mnemolis/sync/"


def entries(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["devices"]
    return data


def test_the_corpus_has_sixty_real_payloads_each_with_its_source() -> None:
    every = [e for path in FILES for e in entries(path)]
    assert len(every) >= 60, len(every)
    assert len({e["id"] for e in every}) == len(every)
    for entry in every:
        assert entry["source"].startswith("https://"), entry["id"]
        assert entry["topic"].startswith(PREFIX) and entry["topic"].endswith("/config")
        assert entry["devices"] or entry.get("skipped") or entry.get("refused"), entry["id"]
    driven = [e for e in every if e["requests"] or e["states"]]
    assert len(driven) >= 60, len(driven)


def _device(source: MqttSource, name: str, kind: str) -> Device | None:
    return next((d for d in source.registry.devices() if d.name == name and d.type == kind), None)


async def _until(check: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def _subset_problems(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    problems = []
    for key, want in expected.items():
        got = actual.get(key, "<absent>")
        if isinstance(want, float) and isinstance(got, int | float):
            same = abs(got - want) < 1e-6
        else:
            same = got == want
        if not same:
            problems.append(f"{key}={got!r}, expected {want!r}")
    return problems


async def _drive_file(config: Config, broker: Mosquitto, path: Path) -> list[str]:
    corpus = entries(path)
    problems: list[str] = []
    home_config = with_actions(without_yaml_devices(config))
    async with publisher(broker) as raw_publish:
        ours: set[tuple[str, str]] = set()  # what the test itself published (echoes, states)

        async def publish(topic: str, payload: str, retain: bool = False) -> None:
            ours.add((topic, payload))
            await raw_publish(topic, payload, retain)

        for entry in corpus:
            await publish(entry["topic"], json.dumps(entry["config"]), retain=True)
        settings = settings_for(home_config, broker, confirm_s=1.0)
        shared = json.loads(path.read_text(encoding="utf-8")).get("shared_topics", [])
        if shared:  # a gateway's API topic every node commands: shared by the owner's choice
            topics = tuple(SharedTopic(t) for t in shared)
            discovery = dataclasses.replace(settings.discovery, shared_topics=topics)
            settings = dataclasses.replace(settings, discovery=discovery)
        source = MqttSource(home_config, _registry(home_config), settings)
        capture = Capture(broker)
        await source.start()
        try:
            await source.wait_for_devices()
            problems += _check_devices(source, corpus)
            for entry in corpus:
                for request in entry["requests"]:
                    problems += await _request(
                        source, capture, publish, ours, home_config, entry, request
                    )
            for entry in corpus:
                for state in entry["states"]:
                    problems += await _state(source, publish, entry, state)
        finally:
            capture.close()
            await source.close()
    return problems


def _registry(config: Config) -> Any:
    from mnemolis.understand import registry_from_config

    return registry_from_config(config)


def _check_devices(source: MqttSource, corpus: list[dict[str, Any]]) -> list[str]:
    problems = []
    expected = {(d["name"], d["type"]) for e in corpus for d in e["devices"]}
    live = [d for d in source.registry.devices() if d.refused is None]
    got = {(d.name, d.type) for d in live}
    for missing in sorted(expected - got):
        problems.append(f"device {missing} missing; refusals: {source.refusals()}")
    for extra in sorted(got - expected):
        problems.append(f"device {extra} not expected")
    refusals = {r.key: r.reason for r in source.refusals()}
    for entry in corpus:
        wanted = entry.get("refused")
        if wanted and not any(wanted in reason for reason in refusals.values()):
            problems.append(f"{entry['id']}: not refused with {wanted!r}")
    return problems


async def _request(
    source: MqttSource,
    capture: Capture,
    publish: Any,
    ours: set[tuple[str, str]],
    config: Config,
    entry: dict[str, Any],
    request: dict[str, Any],
) -> list[str]:
    where = f"{entry['id']} {request['action']} {request['slots']}"
    name = request.get("device") or entry["devices"][0]["name"]
    part = part_acting(config, request["action"], device=name, **request["slots"])
    expected = [tuple(p) for p in request["publish"]]
    mark = capture.mark()
    task = asyncio.create_task(source.answer(part, Request(confirmed=True)))

    def commands() -> list[tuple[str, str, int, bool]]:
        seen = [
            (m.topic, m.payload.decode("utf-8", "replace"), m.qos, m.retain)
            for m in capture.since(mark)
            if not (m.topic.startswith(PREFIX) and m.topic.endswith("/config"))
            and not m.topic.startswith(SYNC)
        ]
        return [m for m in seen if not (m[2] == 1 and not m[3] and (m[0], m[1]) in ours)]

    await _until(lambda: len(commands()) >= len(expected) or task.done())
    for topic, payload in request.get("echo", []):
        await publish(topic, payload)
    answer = await task
    await _until(lambda: len(commands()) >= len(expected), timeout_s=1.0)
    await asyncio.sleep(0.05)  # anything published late would show here
    sent = commands()
    problems = []
    if sent != expected:
        problems.append(f"{where}: published {sent}, expected {expected} ({answer.text})")
    status = request.get("status", "done")
    if str(answer.status) != status:
        problems.append(f"{where}: status {answer.status}, expected {status}: {answer.text}")
    return problems


async def _state(
    source: MqttSource, publish: Any, entry: dict[str, Any], state: dict[str, Any]
) -> list[str]:
    name = state.get("device") or entry["devices"][0]["name"]
    kind = next(d["type"] for d in entry["devices"] if d["name"] == name)
    where = f"{entry['id']} <- {state['payload'][:60]}"
    device = _device(source, name, kind)
    if device is None:
        return [f"{where}: no device {name!r}"]
    before = source.state_of(device.id)
    seq = before.seq if before is not None else 0
    await publish(state["topic"], state["payload"])
    if state.get("unchanged"):
        await asyncio.sleep(0.15)
        after = source.state_of(device.id)
        if after is not None and after.seq != seq:
            return [f"{where}: changed the reading to {after.values}"]
        return []
    arrived = await _until(
        lambda: (s := source.state_of(device.id)) is not None and s.seq > seq, timeout_s=2.0
    )
    if not arrived:
        return [f"{where}: no reading"]
    now = source.state_of(device.id)
    assert now is not None
    return [f"{where}: {p}" for p in _subset_problems(state["reading"], now.values)]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_devices_are_driven_as_home_assistant_drives_them(
    config: Config, broker: Mosquitto, path: Path
) -> None:
    problems = asyncio.run(_drive_file(config, broker, path))
    assert problems == [], "\n".join(problems)


def test_corpus_sentences_route_to_the_action_and_the_device(config: Config) -> None:
    """The shipped intents understand the corpus's requests for the actions they phrase."""
    from mnemolis.core.devices import DeviceRegistry

    # the (action, device type) pairs the shipped intents phrase; the rest are driven directly
    routed = {
        (spec.action, kind)
        for spec in config.intents.values()
        if spec.source == "mqtt" and spec.action not in (None, "state")
        for kind in spec.device_types
    }
    every = [(path, e) for path in FILES for e in entries(path)]
    named = {(d["name"], d["type"]) for _p, e in every for d in e["devices"]}
    registry = DeviceRegistry(
        [
            Device(name=name, type=kind, id=f"c{n}", origin="homeassistant")
            for n, (name, kind) in enumerate(sorted(named))
        ]
    )
    understander = Understander(without_yaml_devices(config), registry)
    problems = []
    for path, entry in every:
        for request in entry["requests"]:
            name = request.get("device") or entry["devices"][0]["name"]
            kind = next(d["type"] for d in entry["devices"] if d["name"] == name)
            if (request["action"], kind) not in routed:
                continue
            plan = understander.understand(request["say"])
            parts = [s for s in plan.steps if isinstance(s, Part)]
            got = [(p.intent, p.slots.get("device")) for p in parts]
            first = parts[0].intent if len(parts) == 1 else None
            spec = config.intents.get(first) if first else None
            action = spec.action if spec is not None else None
            value = got[0][1] if got else None
            # a name two devices share (a select and a sensor) is carried as the id
            meant = (
                registry.get(value) or registry.by_name(value) if isinstance(value, str) else None
            )
            right = meant is not None and (meant.name, meant.type) == (name, kind)
            if len(parts) != 1 or action != request["action"] or not right:
                problems.append(f"{path.stem}: {request['say']!r} -> {got} ({action})")
    assert problems == [], "\n".join(problems)
