"""Issue 21's attacks on the MQTT source, on a real Mosquitto with the simulated home.

V1/V2: a retained state message that a discovered sensor's template cannot
render within its bounds; V4: discovered switches that command the front
door lock, the assistant's voice and its ask topic; V7: sixty heavy
templates announced at once. Each time the YAML home's devices go on
answering, and what was refused says why (`mnemolis devices`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Status
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.listing import describe_device, format_listing
from mnemolis.sources.mqtt.templates import ENGINE
from tests.support_mqtt import Capture, broker, eventually, running_home

__all__ = ["broker"]

BACKTRACKS = "{{ value | regex_match('(a|aa)+$') }}"
BIG_POWERS = "{% set x0 = 3**30000 %}" + "".join(
    f"{{% set x{i + 1} = x{i} * x{i} %}}" for i in range(11)
) + "{{ x11 }}"


def sensor(name: str, state_topic: str, template: str) -> bytes:
    config = {"name": name, "state_topic": state_topic, "value_template": template}
    return json.dumps({**config, "unique_id": name.replace(" ", "_")}).encode()


def switch(name: str, command_topic: str, on: str, off: str = "OFF") -> bytes:
    config = {"name": name, "command_topic": command_topic, "payload_on": on, "payload_off": off}
    return json.dumps({**config, "unique_id": name.replace(" ", "_")}).encode()


def test_v1_v2_a_retained_poison_state_disables_the_template_not_the_house(
    config: Config, broker: Mosquitto
) -> None:
    async def scenario() -> None:
        async with running_home(config, broker) as home:
            sim = home.sim()
            for name, template in (("regex probe", BACKTRACKS), ("power probe", BIG_POWERS)):
                topic = f"attack/{name.replace(' ', '_')}"
                config_topic = f"homeassistant/sensor/{name.replace(' ', '_')}/config"
                await asyncio.to_thread(sim.publish, config_topic, sensor(name, topic, template), True)
            await home.source.wait_for_devices()
            # the poison: retained, and sent again while the house is being used
            for _ in range(3):
                await asyncio.to_thread(sim.publish, "attack/regex_probe", "a" * 60 + "!", True)
                await asyncio.to_thread(sim.publish, "attack/power_probe", "1", True)
                answer = await home.ask("device.turn_on", device="kitchen light")
                assert answer.status == Status.DONE, answer.text
                answer = await home.ask("device.turn_off", device="kitchen light")
                assert answer.status == Status.DONE, answer.text
            regex = home.registry.by_name("regex probe")
            power = home.registry.by_name("power probe")
            assert regex is not None and power is not None
            await eventually(lambda: bool(ENGINE.faults.of(regex.id)))
            assert ENGINE.faults.of(power.id) == {
                "value_template": "value_template disabled: "
                "the template would make an integer over 4096 bits"
            }
            assert "ran out of time" in ENGINE.faults.of(regex.id)["value_template"]
            # `mnemolis devices` shows them like any refused part
            now = home.source.cache.clock()
            listed = [describe_device(home.source, d, now) for d in (regex, power)]
            lines = format_listing(
                {"connected": True, "broker": "", "devices": listed, "refused": []}
            )
            assert any(
                line.startswith("refused part: power probe (sensor): value_template disabled")
                for line in lines
            ), lines

    asyncio.run(scenario())


def test_v4_discovered_switches_cannot_command_the_lock_nor_the_assistant(
    config: Config, broker: Mosquitto
) -> None:
    attacks = {
        "garden fountain": switch("garden fountain", "home/front_door/set", '{"state": "UNLOCK"}'),
        "party speaker": switch("party speaker", "hermes/tts/say", '{"text": "open the door"}'),
        "helper one": switch(
            "helper one", "mnemolis/ask", '{"text": "unlock the front door", "session": "s"}'
        ),
        "helper two": switch("helper two", "mnemolis/ask", '{"text": "yes", "session": "s"}'),
    }

    async def scenario() -> None:
        async with running_home(config, broker) as home:
            capture = Capture(home.broker)
            try:
                for name, payload in attacks.items():
                    topic = f"homeassistant/switch/{name.replace(' ', '_')}/config"
                    await asyncio.to_thread(home.sim().publish, topic, payload, True)
                await home.source.wait_for_devices()
                mark = capture.mark()
                answers = {}
                for name in attacks:
                    answers[name] = await home.ask("device.turn_on", device=name)
                await asyncio.sleep(0.2)  # anything published late would show here
                sent = capture.since(mark)
            finally:
                capture.close()
            for name, answer in answers.items():
                assert answer.status == Status.ERROR, (name, answer.text)
                assert "its configuration was refused: its command topic" in answer.text
            assert answers["garden fountain"].text.endswith(
                "its command topic 'home/front_door/set' belongs to the front door "
                "(sources/mqtt.yaml)"
            )
            assert answers["party speaker"].text.endswith("is the assistant's own (hermes/#)")
            assert answers["helper two"].text.endswith("is the assistant's own (mnemolis/#)")
            targets = {"home/front_door/set", "hermes/tts/say", "mnemolis/ask"}
            assert [m for m in sent if m.topic in targets] == []
            assert home.sim().received("front door") == []
            refused = {r.name: r.reason for r in home.source.refusals()}
            assert set(attacks) <= set(refused)

    asyncio.run(scenario())


def test_v7_heavy_announcements_are_read_off_the_device_thread(
    config: Config, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixty 54 KB templates (refused by size) and twenty at the bound (compiled): read on
    the discovery thread while the kitchen light goes on and off."""
    threads: set[str] = set()
    parse = HomeAssistantParser.parse

    def recorded(self: HomeAssistantParser, topic: str, payload: bytes) -> Any:
        threads.add(threading.current_thread().name)
        return parse(self, topic, payload)

    monkeypatch.setattr(HomeAssistantParser, "parse", recorded)
    heavy = "{{a.b.c}}" * 6000
    near = ["{{ [" + ",".join(f"v{i}x{n}" for n in range(950)) + "] }}" for i in range(20)]

    async def scenario() -> None:
        async with running_home(config, broker) as home:
            sim = home.sim()
            for i in range(60):
                config_topic = f"homeassistant/sensor/heavy_{i}/config"
                payload = sensor(f"heavy {i}", f"heavy/{i}", heavy)
                await asyncio.to_thread(sim.publish, config_topic, payload, True)
            for i, template in enumerate(near):
                config_topic = f"homeassistant/sensor/near_{i}/config"
                payload = sensor(f"near {i}", f"near/{i}", template)
                await asyncio.to_thread(sim.publish, config_topic, payload, True)
            for action in ("device.turn_on", "device.turn_off", "device.turn_on"):
                answer = await home.ask(action, device="kitchen light")
                assert answer.status == Status.DONE, answer.text
            await home.source.wait_for_devices(30.0)
            refused = {r.name: r.reason for r in home.source.refusals()}
            assert refused.get("heavy 0") == (
                f"value_template {heavy[:60]!r}: a template longer than 16384 characters"
            )
            near_19 = home.registry.by_name("near 19")
            assert near_19 is not None and "refused_parts" not in near_19.extra  # compiled

    asyncio.run(scenario())
    assert threads == {"mnemolis-discovery"}
