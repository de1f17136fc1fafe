"""A house for the confirmation tests (issue 21): the default home on a real Mosquitto,
with what a prober would try to open besides the garage door and the locks.

Besides `sources/mqtt.yaml`'s devices it has, announced by Home Assistant discovery
(retained before the assistant starts, `tests/support_platforms.py`): a garden tap
(a valve), a radiator valve (a valve with a position) and a house alarm (an alarm
panel); in YAML, a gate opener (a switch that drives the gate, ``confirm:
[turn_on]``); and routines that open the garage door by a device step, by an intent
step and by a raw ``publish:``. The assistant runs with the timers source, so delayed
commands and watches are real. `Opened` watches every command topic of those devices
with an MQTT client of its own, so a test sees exactly what reached the broker.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mnemolis.config import Config
from mnemolis.core.announce import Announcer
from mnemolis.core.devices import Device
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.runtime.answer import Answer
from mnemolis.sources.base import Source, SourceContext
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.sources.routines import create as create_routines
from mnemolis.sources.timers import create as create_timers
from tests.support_assistant import House, running_assistant
from tests.support_kiwix import KiwixZims
from tests.support_mqtt import Capture, Published
from tests.support_open_meteo import OpenMeteoReplay
from tests.support_platforms import CONFIGS
from tests.support_routines import owner_config
from tests.support_timers import Heard

#: Discovered devices, by their `support_platforms` key.
DISCOVERED = ("valve", "position valve", "alarm")

GATE_OPENER = Device(
    name="gate opener",
    type="switch",
    room="garage",
    aliases=["gate relay"],
    schema="json",
    topics={
        "state": "home/gate_opener",
        "command": "home/gate_opener/set",
        "availability": "home/gate_opener/availability",
    },
    confirm=["turn_on"],
)

ROUTINES = """
intents:
  alarm.disarm:
    description: an owner's intent (none is shipped) that disarms an alarm panel
    source: mqtt
    action: disarm
    priority: 60
    slots: [device, room]
    requires: [device]
    device_types: [alarm_control_panel]
    phrases: [disarm, switch off ... alarm]
    examples:
      - text: disarm the house alarm
        slots: {device: house alarm}
  routine.disarm_on_arrival:
    description: the alarm disarmed by a routine's device step
    priority: 70
    phrases: [i am home now]
    do:
      - action: disarm
        device: [house alarm]
  routine.open_up:
    description: the garage door all the way up, by a device step
    priority: 70
    phrases: [open up the house, open up for the van]
    do:
      - action: set_position
        device: [garage door]
        position: 100
  routine.garage_by_intent:
    description: the garage door halfway, by another intent
    priority: 70
    phrases: [garage airing]
    do:
      - intent: device.set_position
        slots: {device: garage door, position: 50}
  routine.prop_position:
    description: a routine step whose device and position come from what was said
    priority: 70
    slots: [device, position]
    phrases: [property position routine]
    do:
      - action: set_position
        device: ["{{ device }}"]
        position: "{{ position if position is not none else 100 }}"
  routine.garage_message:
    description: the garage door opened by a raw message on its command topic
    priority: 70
    phrases: [send the garage message]
    do:
      - publish: {topic: home/garage_door/set, payload: '{"position": 100}'}
"""

#: Every command topic of a device whose opening waits for a yes.
GUARDED_TOPICS = {
    "home/garage_door/set": "garage door",
    "home/front_door/set": "front door",
    "home/back_door/set": "back door",
    "home/gate_opener/set": "gate opener",
    "tap/set": "garden tap",
    "rv/set": "radiator valve",
    "alarm/set": "house alarm",
    "shed/set": "shed",  # the property's house: a discovered lock
}

#: The property's house has a device of every type (`tests/test_confirm_property.py`).
EVERY_TYPE = (
    *DISCOVERED,
    "bedroom fan",
    "smart vent",
    "shutter 255",
    "position only",
    "lock",
    "trv",
    "humidifier",
    "boiler",
    "vacuum",
    "mower",
    "siren",
    "scene",
    "button",
    "log level",
    "demand",
    "switch",
    "temperature",
    "occupancy",
    "tracker",
)


def confirm_config(config: Config, folder: Path) -> Config:
    """The shipped configuration with the routines above and the gate opener."""
    owned = owner_config(folder, ROUTINES)
    return dataclasses.replace(owned, devices=[*owned.devices, GATE_OPENER])


@dataclass(frozen=True)
class Makings:
    """What a confirmation house is made of: its configuration (`confirm_config`), the
    broker, the recorded forecast, the books, and a folder of its own."""

    config: Config
    broker: Mosquitto
    open_meteo: OpenMeteoReplay
    zims: KiwixZims
    folder: Path


@pytest.fixture(name="makings")
def fixture_makings(
    config: Config,
    broker: Mosquitto,
    open_meteo: OpenMeteoReplay,
    test_zims: KiwixZims,
    tmp_path: Path,
) -> Makings:
    """The makings of a confirmation house (a test module imports `broker`,
    `open_meteo` and `fixture_test_zims` beside it)."""
    house_config = confirm_config(config, tmp_path / "owner")
    return Makings(house_config, broker, open_meteo, test_zims, tmp_path)


def announce(broker: Mosquitto, keys: tuple[str, ...] = DISCOVERED) -> None:
    """Retain the discovery configs of ``keys`` on the broker (before the house starts)."""
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id="announcer")
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        for key in keys:
            component, body = CONFIGS[key]
            object_id = key.replace(" ", "_")
            info = client.publish(
                f"homeassistant/{component}/{object_id}/config", json.dumps(body), 1, True
            )
            info.wait_for_publish(5.0)
    finally:
        client.disconnect()
        client.loop_stop()


class Opened:
    """What reached the command topics of the guarded devices, as a second client saw it."""

    def __init__(self, broker: Mosquitto) -> None:
        self.capture = Capture(broker)

    def messages(self, since: int = 0) -> list[Published]:
        return [m for m in self.capture.since(since) if m.topic in GUARDED_TOPICS]

    def sent(self, since: int = 0) -> list[tuple[str, str]]:
        """(device, payload) of every command to a guarded device since ``since``."""
        return [(GUARDED_TOPICS[m.topic], m.payload.decode()) for m in self.messages(since)]

    def mark(self) -> int:
        return self.capture.mark()

    def close(self) -> None:
        self.capture.close()


@dataclass
class ConfirmHouse:
    """The running house, an ear on what the timers say, and the command topics watched."""

    house: House
    heard: Heard
    opened: Opened

    async def ask(self, text: str, session: str = "default") -> Answer:
        return await self.house.ask(text, session)

    async def report(self, device: str, **values: Any) -> None:
        await self.house.report(device, **values)

    async def publish_state(self, topic: str, payload: str) -> None:
        """A discovered device reports (its simulator is this test)."""
        client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        await asyncio.to_thread(client.connect, self.house.broker.host, self.house.broker.port)
        client.loop_start()
        try:
            info = client.publish(topic, payload, 1, True)
            await asyncio.to_thread(info.wait_for_publish, 5.0)
        finally:
            client.disconnect()
            client.loop_stop()

    async def quiet(self, seconds: float = 0.3) -> list[tuple[str, str]]:
        """Wait ``seconds``; every command a guarded device got so far."""
        await asyncio.sleep(seconds)
        return self.opened.sent()


def with_routines_and_timers(
    config: Config, folder: Path
) -> Callable[[MqttSource, Announcer], list[Source]]:
    """For `running_assistant(more=...)`: the timers and routines sources, built by their
    own factories over the house's MQTT source, each seeing the others."""

    def build(mqtt: MqttSource, announcer: Announcer) -> list[Source]:
        context = SourceContext(
            config=config,
            registry=mqtt.registry,
            environ={},
            state_dir=folder,
            peers={"mqtt": mqtt},
            announcer=announcer,
        )
        timers = create_timers(context)
        context.peers["timers"] = timers
        routines = create_routines(context)
        context.peers["routines"] = routines
        return [timers, routines]

    return build


@asynccontextmanager
async def running_confirm_house(
    makings: Makings, discovered: tuple[str, ...] = DISCOVERED
) -> AsyncIterator[ConfirmHouse]:
    config, broker, folder = makings.config, makings.broker, makings.folder
    await asyncio.to_thread(announce, broker, discovered)
    opened = Opened(broker)
    try:
        async with running_assistant(
            config,
            broker,
            makings.open_meteo.url,
            makings.zims.main,
            folder / "weather",
            own_understander=True,
            more=with_routines_and_timers(config, folder / "state"),
            confirm_s=0.3,
        ) as house:
            heard = Heard()
            house.assistant.announcer.subscribe(heard)
            yield ConfirmHouse(house, heard, opened)
    finally:
        opened.close()


def play_confirm(makings: Makings, scenario: Callable[[ConfirmHouse], Awaitable[None]]) -> None:
    async def main() -> None:
        async with running_confirm_house(makings) as home:
            await scenario(home)

    asyncio.run(main())


@contextmanager
def house_in_a_thread(
    makings: Makings, discovered: tuple[str, ...] = DISCOVERED
) -> Iterator[tuple[ConfirmHouse, Callable[[Awaitable[Any]], Any]]]:
    """The house running on an event loop of its own thread, for a test (a hypothesis
    property) that runs many examples against one house: ``run(coroutine)`` plays one."""
    ready = threading.Event()
    stop: list[asyncio.Event] = []
    found: list[ConfirmHouse] = []
    loops: list[asyncio.AbstractEventLoop] = []
    failed: list[BaseException] = []

    async def main() -> None:
        async with running_confirm_house(makings, discovered) as home:
            stop.append(asyncio.Event())
            found.append(home)
            loops.append(asyncio.get_running_loop())
            ready.set()
            await stop[0].wait()

    def thread() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # the test says why the house did not start
            failed.append(exc)
            ready.set()

    runner = threading.Thread(target=thread, name="confirm-house", daemon=True)
    runner.start()
    assert ready.wait(60), "the house did not start"
    if failed:
        raise failed[0]
    loop = loops[0]

    def run(coroutine: Awaitable[Any]) -> Any:
        async def wrapped() -> Any:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), loop).result(60)

    try:
        yield found[0], run
    finally:
        loop.call_soon_threadsafe(stop[0].set)
        runner.join(30)


def until(check: Callable[[], bool], timeout_s: float = 5.0) -> Awaitable[None]:
    async def wait() -> None:
        deadline = time.monotonic() + timeout_s
        while not check():
            assert time.monotonic() < deadline, "the condition did not become true in time"
            await asyncio.sleep(0.01)

    return wait()
