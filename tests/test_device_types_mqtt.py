"""The new device types and values, from the sentence to the payload on a real Mosquitto.

Real discovery configs (tests/support_platforms.py: zigbee2mqtt's Home Assistant
extension tests, Home Assistant's MQTT docs) are retained on the broker; the
MQTT source discovers them; each sentence is understood against the discovered
registry and answered; the test asserts the exact publishes (topic and payload,
worked out by hand from Home Assistant's rules, as in test_mqtt_platforms.py),
and that a value a device cannot take publishes nothing and names the device.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.sources.base import Request, Status
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config
from tests.support_mqtt import Capture, broker, publisher, settings_for, without_yaml_devices
from tests.support_platforms import CONFIGS

__all__ = ["broker"]

USED = (
    "scene",
    "restart",
    "button",
    "valve",
    "position valve",
    "siren",
    "humidifier",
    "boiler",
    "mower",
    "log level",
    "demand",
    "bedroom fan",
    "smart vent",
    "trv",
)

# (sentence, the exact publishes)
SENT: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "activate the bulb color 2 chill scene",
        [("zigbee2mqtt/bulb_color_2/set", '{ "scene_recall": 1 }')],
    ),
    ("press the doorbell", [("bell/press", "PRESS")]),
    ("press the zigbee2mqtt bridge restart button", [("zigbee2mqtt/bridge/request/restart", "")]),
    ("open the garden tap", [("tap/set", "OPEN")]),
    ("turn off the garden tap", [("tap/set", "CLOSE")]),
    ("set the radiator valve to 40 percent", [("rv/set", '{"position": 40}')]),
    ("sound the alarm siren", [("siren/set", '{"state":"ON"}')]),
    ("set the bedroom humidifier to 45 percent", [("test-humidifier/humidity/set", "45")]),
    ("put the bedroom humidifier in eco mode", [("test-humidifier/preset/preset_mode", "eco")]),
    ("set the boiler to eco", [("basement_boiler/mode/set", "eco")]),
    ("set the boiler to 50 degrees", [("basement_boiler/temperature/set", "50.0")]),
    ("start the mower", [("mower/start", "start_mowing")]),
    ("send the mower home", [("mower/dock", '{"action": "dock"}')]),
    ("stop the mower", [("mower/pause", "pause")]),
    (
        "set the log level to debug",
        [
            (
                "zigbee2mqtt/bridge/request/options",
                '{"options": {"advanced": {"log_level": "debug" } } }',
            )
        ],
    ),
    (
        "set the bosch radiator pi heating demand to 40",
        [("zigbee2mqtt/bosch_radiator/set/pi_heating_demand", "40")],
    ),
    ("set the bedroom fan to 50 percent", [("bedroom_fan/speed/percentage", "5")]),
    ("set the bedroom fan to whoosh", [("bedroom_fan/preset/preset_mode", "whoosh")]),
    ("set the smart vent to 50 percent", [("zigbee2mqtt/smart vent/set", '{ "position": 50 }')]),
    ("open the smart vent halfway", [("zigbee2mqtt/smart vent/set", '{ "position": 50 }')]),
    (
        "set the ts0601 thermostat to twenty point five degrees",
        [("zigbee2mqtt/TS0601_thermostat/set/current_heating_setpoint", "20.5")],
    ),
    (
        "set the ts0601 thermostat to auto",
        [("zigbee2mqtt/TS0601_thermostat/set/system_mode", "auto")],
    ),
]

# (sentence, the device the refusal names, a word of what it cannot take)
REFUSED: list[tuple[str, str, str]] = [
    ("set the garden tap to 50 percent", "garden tap", "position"),
    ("set the doorbell to 50 percent", "doorbell", "50"),
    ("set the ts0601 thermostat to cool", "ts0601 thermostat", "modes"),
    ("set the log level to verbose", "log level", "options"),
]


async def _until(check: Callable[[], bool], timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


async def _run(config: Config, broker: Mosquitto) -> list[str]:
    home = without_yaml_devices(config)
    problems: list[str] = []
    async with publisher(broker) as publish:
        for key in USED:
            component, body = CONFIGS[key]
            object_id = key.replace(" ", "_")
            await publish(f"homeassistant/{component}/{object_id}/config", json.dumps(body), True)
        source = MqttSource(
            home, registry_from_config(home), settings_for(home, broker, confirm_s=0.2)
        )
        capture = Capture(broker)
        await source.start()
        try:
            await source.wait_for_devices()
            understander = Understander(home, source.registry)
            for text, expected in SENT:
                problems += await _sent(source, understander, capture, text, expected)
            for text, name, word in REFUSED:
                problems += await _refused(source, understander, capture, text, name, word)
        finally:
            capture.close()
            await source.close()
    return problems


def _commands(capture: Capture, mark: int) -> list[tuple[str, str]]:
    return [
        (m.topic, m.payload.decode("utf-8", "replace"))
        for m in capture.since(mark)
        if not m.topic.startswith(("homeassistant/", "mnemolis/"))
    ]


async def _sent(
    source: MqttSource,
    understander: Understander,
    capture: Capture,
    text: str,
    expected: list[tuple[str, str]],
) -> list[str]:
    parts = understander.understand(text).parts()
    if len(parts) != 1 or parts[0].intent is None:
        return [f"{text!r}: understood as {[p.to_dict() for p in parts]}"]
    mark = capture.mark()
    answer = await source.answer(parts[0], Request(confirmed=True))
    await _until(lambda: len(_commands(capture, mark)) >= len(expected), 2.0)
    await asyncio.sleep(0.05)
    got = _commands(capture, mark)
    problems = []
    if got != expected:
        problems.append(
            f"{text!r} ({parts[0].intent} {parts[0].slots}): published {got}, "
            f"expected {expected} ({answer.status}: {answer.text})"
        )
    if answer.status not in (Status.DONE, Status.NOT_CONFIRMED):
        problems.append(f"{text!r}: {answer.status}: {answer.text}")
    return problems


async def _refused(
    source: MqttSource,
    understander: Understander,
    capture: Capture,
    text: str,
    name: str,
    word: str,
) -> list[str]:
    parts = understander.understand(text).parts()
    mark = capture.mark()
    answers = [await source.answer(p, Request(confirmed=True)) for p in parts if p.intent]
    await asyncio.sleep(0.15)
    got = _commands(capture, mark)
    said = " ".join(a.text for a in answers)
    problems = []
    if got:
        problems.append(f"{text!r}: published {got} ({said})")
    if name not in said or word not in said or "None" in said:
        problems.append(f"{text!r}: answered {said!r}, expected it to name {name!r} and {word!r}")
    if any(a.status == Status.DONE for a in answers):
        problems.append(f"{text!r}: done? {said!r}")
    return problems


def test_new_types_and_values_reach_the_payload_home_assistant_would_send(
    config: Config, broker: Mosquitto
) -> None:
    problems = asyncio.run(_run(config, broker))
    assert problems == [], "\n".join(problems)
