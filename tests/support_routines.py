"""A house for routine tests: an owner's directory over the shipped configuration, the
simulated default home on a real Mosquitto, the real sources (MQTT, the clock on a
frozen clock, optionally the weather against the Open-Meteo replay) and the routines
and external sources built by their own factories, and a loopback webhook.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from mnemolis.config import Config, load_config
from mnemolis.core.origin import Origin
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Simulator
from mnemolis.runtime.answer import Answer
from mnemolis.runtime.assistant import Assistant
from mnemolis.sources.base import Source, SourceContext
from mnemolis.sources.clock.source import ClockSource
from mnemolis.sources.external import create as create_external
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.sources.routines import create as create_routines
from mnemolis.understand import registry_from_config
from tests.support_assistant import TurnClock
from tests.support_mqtt import settings_for
from tests.support_time import FrozenClock
from tests.support_weather import WEDNESDAY_MORNING, make_source


def owner_dir(folder: Path, files: dict[str, str]) -> Path:
    """An owner's configuration directory holding only ``files`` (path -> text)."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def owner_config(folder: Path, intents: str, **files: str) -> Config:
    """The shipped configuration with ``intents`` in the owner's `intents/en/mine.yaml`."""
    extra = {f"sources/{stem}.yaml": text for stem, text in files.items()}
    return load_config(owner_dir(folder, {"intents/en/mine.yaml": intents, **extra}))


@dataclass
class Hook:
    """One request the webhook received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Webhook:
    """A loopback HTTP server standing in for a Home Assistant webhook or a Node-RED flow:
    it answers ``status`` after ``delay_s`` and keeps every request."""

    status: int = 200
    delay_s: float = 0.0
    received: list[Hook] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/api/webhook/mnemolis") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def running_webhook(status: int = 200, delay_s: float = 0.0) -> Iterator[Webhook]:
    hook = Webhook(status, delay_s)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            hook.received.append(Hook(self.command, self.path, dict(self.headers), body))
            time.sleep(hook.delay_s)
            self.send_response(hook.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET = do_PUT = _answer

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    hook.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class RoutineHouse:
    assistant: Assistant
    simulator: Simulator
    mqtt: MqttSource
    turns: TurnClock

    async def ask(self, text: str, session: str = "test", room: str | None = None) -> Answer:
        origin = Origin(front_end="test", session=session, room=room)
        return await self.assistant.ask(text, session, origin)

    def commands(self, device: str) -> list[dict[str, Any]]:
        """What ``device`` was told to do, in order (its JSON commands)."""
        return [json.loads(c.payload) for c in self.simulator.received(device)]

    def state(self, device: str) -> dict[str, Any]:
        return self.simulator.state(device)


@asynccontextmanager
async def routine_house(
    config: Config,
    broker: Mosquitto,
    weather_url: str | None = None,
    cache_dir: Path | None = None,
    instant: datetime = WEDNESDAY_MORNING,
) -> AsyncIterator[RoutineHouse]:
    """The simulated default home and an assistant over real sources, routines included."""
    registry = registry_from_config(config)
    simulator = Simulator(broker.host, broker.port, config.devices)
    await asyncio.to_thread(simulator.start)
    clock = FrozenClock(instant)
    mqtt = MqttSource(config, registry, settings_for(config, broker))
    sources: list[Source] = [mqtt, ClockSource(config, now=clock)]
    if weather_url is not None and cache_dir is not None:
        sources.append(make_source(config, weather_url, cache_dir, clock, mqtt.read_sensor))
    context = SourceContext(config, registry, {}, cache_dir or Path("/nonexistent"))
    context.peers.update({s.name: s for s in sources})
    sources += [create_routines(context), create_external(context)]
    context.peers.update({s.name: s for s in sources})
    turns = TurnClock()
    assistant = await Assistant.start(
        config, sources=sources, registry=registry, one_shot=True, clock=turns
    )
    try:
        yield RoutineHouse(assistant, simulator, mqtt, turns)
    finally:
        await assistant.close()
        await asyncio.to_thread(simulator.stop)


def step_statuses(answer: Answer) -> list[tuple[str, str, str]]:
    """(step, kind, status) of every step of the first routine part."""
    part = next(p for p in answer.parts if p.answer.data.get("steps") is not None)
    return [(s["step"], s["kind"], s["status"]) for s in part.answer.data["steps"]]


LIGHTS = ["kitchen light", "living room lamp", "bedroom light", "porch light", "hallway light"]
LOCKS = ["front door", "back door"]


def play(
    config: Config,
    broker: Mosquitto,
    scenario: Callable[[RoutineHouse], Awaitable[None]],
    **options: Any,
) -> None:
    """Start the house (options as `routine_house`), play ``scenario``, stop it."""

    async def main() -> None:
        async with routine_house(config, broker, **options) as house:
            await scenario(house)

    asyncio.run(main())


def report_lock(house: RoutineHouse, lock: str, state: str) -> None:
    """A lock reports its state on its own (zigbee2mqtt sends `state` and `lock_state`)."""
    house.simulator.report(lock, state=state.upper(), lock_state=state)


async def wake_the_house(house: RoutineHouse) -> None:
    """Every light on and both doors unlocked, reported by the devices themselves."""
    for light in LIGHTS:
        house.simulator.report(light, state="ON")
    for lock in LOCKS:
        report_lock(house, lock, "unlocked")
    await house.ask("is the back door locked")  # the source has heard the reports by then
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        answer = await house.ask("is the front door unlocked")
        if answer.text.startswith("Yes"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the reports did not arrive")
