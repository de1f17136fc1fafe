"""Benchmark the MQTT source against a local Mosquitto it starts itself.

Measures the command round trip (answer(part) -> QoS 1 publish -> the
simulated device's state echo -> PartAnswer), a state question answered from
the cache, and the cost of many discovered devices: how long 20 and 2,000
Home Assistant discovery configs take to become known, and how long
understanding a device query and ``registry.by_name`` take with them.

Per wire schema, the devices of the discovery corpus (tests/data/discovery/)
are announced and driven with two of their own requests in turn, a responder
playing each request's recorded echo: the round trip and the commands per
second, one at a time and all schemas at once. (Start-up with thousands of
retained configs is bench/discovery.py.)

    .venv/bin/python bench/mqtt.py [--commands 400] [--lookups 20000] [--per-schema 200]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.config import Config, load_config
from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Simulator
from mnemolis.sources.base import Request, Status
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "discovery"
#: Per wire schema, a corpus device and the two of its requests driven in turn.
SCHEMAS = (
    ("light (default: Tasmota)", "tasmota-led1-ct", ("set_brightness", "turn_off")),
    ("light (json: zigbee2mqtt)", "z2m-group-light", ("turn_on", "turn_off")),
    ("light (template: Shelly)", "shelly-dimmer", ("turn_on", "turn_off")),
    ("switch", "z2m-bridge-permit-join", ("turn_on", "turn_off")),
    ("fan", "z2m-fan", ("turn_on", "turn_off")),
    ("cover", "z2m-smart-vent", ("open", "close")),
    ("valve", "ha-mqtt-valve", ("open", "close")),
    ("climate", "z2m-ts0601-thermostat", ("set_temperature", "turn_off")),
    ("water heater", "ha-boiler", ("set_mode", "turn_off")),
    ("humidifier", "ha-bedroom-humidifier", ("turn_on", "set_humidity")),
    ("siren", "ha-intrusion-siren", ("turn_on", "turn_off")),
    ("alarm panel", "ha-alarm-panel", ("arm_home", "disarm")),
    ("vacuum", "ha-mqtt-vacuum", ("start", "return_to_base")),
    ("lawn mower", "ha-lawn-mower", ("start", "return_to_base")),
)

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
KINDS = (("lamp", "light"), ("plug", "switch"), ("sensor", "sensor"))


@dataclasses.dataclass
class Row:
    what: str
    n: int
    p50_ms: float
    p99_ms: float
    note: str = ""


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


async def timed(count: int, call: Callable[[int], Awaitable[object]]) -> list[float]:
    samples = []
    for i in range(count):
        t0 = time.perf_counter()
        await call(i)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def part(config: Config, intent: str, **slots: object) -> Part:
    return Part(text=intent, intent=intent, source="mqtt", slots=dict(slots))


def source_for(config: Config, broker: Mosquitto, registry: object) -> MqttSource:
    settings = load_mqtt_settings(config, env={"MNEMOLIS_MQTT_URL": broker.url})
    return MqttSource(config, registry, settings)  # type: ignore[arg-type]


async def round_trips(config: Config, commands: int, nodelay: bool) -> list[Row]:
    label = "set_tcp_nodelay true" if nodelay else "Mosquitto default (Nagle on)"
    with Mosquitto(tcp_nodelay=nodelay) as broker:
        sim = Simulator(broker.host, broker.port, config.devices).start()
        source = source_for(config, broker, registry_from_config(config))
        await source.start()
        await source.wait_for_devices()
        statuses: list[Status] = []

        async def command(i: int) -> None:
            intent = "device.turn_on" if i % 2 else "device.turn_off"
            answer = await source.answer(part(config, intent, device="porch light"), Request())
            statuses.append(answer.status)

        async def question(_i: int) -> None:
            await source.answer(
                part(config, "device.state", device="front door", state="locked"), Request()
            )

        await timed(20, command)  # warm up
        statuses.clear()
        trips = await timed(commands, command)
        asked = await timed(commands, question)
        await source.close()
        sim.stop()
    done = statuses.count(Status.DONE)
    rows = [Row(f"command round trip ({label})", commands, *percentiles(trips), f"{done} done")]
    if nodelay:
        rows.append(Row("state question from the cache", commands, *percentiles(asked)))
    return rows


def made_up_words() -> list[str]:
    """Pronounceable, meaningless words ("bado", "kesu"): names no intent phrase uses."""
    return [
        a + b + c + d for a, b, c, d in itertools.product(CONSONANTS, VOWELS, CONSONANTS, VOWELS)
    ]


def discovered_devices(count: int) -> list[Device]:
    devices = []
    names = itertools.product(made_up_words(), KINDS)
    for i, (word, (noun, kind)) in zip(range(count), names, strict=False):
        name = f"{word} {noun}"
        device = Device(
            name=name,
            type=kind,
            schema="json",
            id=f"bench_{i}",
            features=["brightness"] if kind == "light" else [],
            device_class="temperature" if kind == "sensor" else None,
            unit="°C" if kind == "sensor" else None,
            topics={"state": f"bench/{i}"}
            | ({} if kind == "sensor" else {"command": f"bench/{i}/set"}),
        )
        devices.append(device)
    return devices


async def many_devices(config: Config, count: int, lookups: int) -> list[Row]:
    empty = dataclasses.replace(config, devices=[])
    devices = discovered_devices(count)
    lights = [d for d in devices if d.type == "light"]
    with Mosquitto() as broker:
        registry = registry_from_config(empty)
        understander = Understander(empty, registry)
        t0 = time.perf_counter()
        sim = Simulator(broker.host, broker.port, devices, announce="homeassistant").start()
        announced = (time.perf_counter() - t0) * 1000
        source = source_for(empty, broker, registry)
        await source.start()
        t1 = time.perf_counter()
        report = await source.wait_for_devices(60.0)
        known = (time.perf_counter() - t1) * 1000
        assert report.complete and len(registry.devices()) == count, report

        queries = [f"turn off the {d.name}" for d in lights]
        understood = []
        right = 0
        for i in range(max(200, len(queries))):
            query = queries[i % len(queries)]
            t = time.perf_counter()
            plan = understander.understand(query)
            understood.append((time.perf_counter() - t) * 1000)
            right += plan.parts()[0].slots.get("device") == lights[i % len(lights)].name
        names = [d.name for d in devices]
        found = []
        for i in range(lookups):
            t = time.perf_counter()
            registry.by_name(names[(i * 7919) % len(names)])
            found.append((time.perf_counter() - t) * 1000)

        async def command(i: int) -> None:
            intent = "device.turn_on" if i % 2 else "device.turn_off"
            await source.answer(part(empty, intent, device=lights[-1].name), Request())

        trips = await timed(100, command)
        await source.close()
        sim.stop()
    return [
        Row(
            f"discovery until known ({count} devices)",
            1,
            known,
            known,
            f"simulator published in {announced:.0f} ms",
        ),
        Row(
            f"understand 'turn off the <name>' ({count} devices)",
            len(understood),
            *percentiles(understood),
            f"{right} resolved to the named device",
        ),
        Row(f"registry.by_name ({count} devices)", lookups, *percentiles(found)),
        Row(f"command round trip ({count} devices)", len(trips), *percentiles(trips)),
    ]


def corpus() -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted(CORPUS.glob("*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8"))["devices"]:
            out[entry["id"]] = entry
    return out


class Responder:
    """Plays a device: each recorded command (topic, payload) answered with its echo."""

    def __init__(self, broker: Mosquitto, echoes: dict[tuple[str, str], list[list[str]]]) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.echoes = echoes
        self.client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port)
        sock = self.client.socket()
        if isinstance(sock, socket.socket):  # several echoes at once must not wait on Nagle
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for topic in sorted({t for t, _p in echoes}):
            self.client.subscribe(topic, qos=1)
        self.client.loop_start()

    def _on_message(self, _c: object, _u: object, msg: object) -> None:
        key = (msg.topic, msg.payload.decode())  # type: ignore[attr-defined]
        for topic, payload in self.echoes.get(key, []):
            self.client.publish(topic, payload, qos=0)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


async def per_schema(config: Config, commands: int) -> list[Row]:
    """Round trip and commands per second for each wire schema, then all at once."""
    from tests.support_mqtt import part_acting, with_actions

    home = with_actions(dataclasses.replace(config, devices=[]))
    entries = corpus()
    plan = []  # (label, [(part, request)])
    echoes: dict[tuple[str, str], list[list[str]]] = {}
    for label, entry_id, actions in SCHEMAS:
        entry = entries[entry_id]
        name = entry["devices"][0]["name"]
        chosen = []
        for action in actions:
            request = next(r for r in entry["requests"] if r["action"] == action)
            for topic, payload, _q, _r in request["publish"]:
                echoes.setdefault((topic, payload), []).extend(request["echo"])
            chosen.append(part_acting(home, action, device=name, **request["slots"]))
        plan.append((label, chosen))
    rows = []
    with Mosquitto() as broker:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        announcer = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        announcer.connect(broker.host, broker.port)
        announcer.loop_start()
        for _label, entry_id, _a in SCHEMAS:
            entry = entries[entry_id]
            info = announcer.publish(
                entry["topic"], json.dumps(entry["config"]), qos=1, retain=True
            )
            info.wait_for_publish(5)
        announcer.disconnect()
        announcer.loop_stop()
        responder = Responder(broker, echoes)
        source = source_for(home, broker, registry_from_config(home))
        await source.start()
        await source.wait_for_devices()
        for label, parts in plan:
            statuses: list[Status] = []

            async def drive(
                i: int, parts: list[Part] = parts, statuses: list[Status] = statuses
            ) -> None:
                answer = await source.answer(parts[i % 2], Request(confirmed=True))
                statuses.append(answer.status)

            await timed(10, drive)  # warm up
            statuses.clear()
            t0 = time.perf_counter()
            trips = await timed(commands, drive)
            rate = commands / (time.perf_counter() - t0)
            done = statuses.count(Status.DONE)
            rows.append(
                Row(
                    f"{label} round trip",
                    commands,
                    *percentiles(trips),
                    f"{rate:.0f} commands/s, {done} done",
                )
            )
        rounds = max(20, commands // 10)
        t0 = time.perf_counter()
        together: list[Status] = []
        for i in range(rounds):
            answers = await asyncio.gather(
                *(source.answer(parts[i % 2], Request(confirmed=True)) for _l, parts in plan)
            )
            together += [a.status for a in answers]
        rate = len(together) / (time.perf_counter() - t0)
        rows.append(
            Row(
                f"all {len(plan)} schemas at once",
                len(together),
                0.0,
                0.0,
                f"{rate:.0f} commands/s, {together.count(Status.DONE)} done",
            )
        )
        await source.close()
        responder.close()
    return rows


def print_table(rows: list[Row]) -> None:
    width = max(len(r.what) for r in rows)
    print(f"{'measure':<{width}}  {'n':>6}  {'p50 ms':>9}  {'p99 ms':>9}  note")
    print("-" * (width + 40))
    for r in rows:
        print(f"{r.what:<{width}}  {r.n:>6}  {r.p50_ms:>9.3f}  {r.p99_ms:>9.3f}  {r.note}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=400)
    parser.add_argument("--lookups", type=int, default=20000)
    parser.add_argument("--per-schema", type=int, default=200)
    args = parser.parse_args()
    config = load_config(Path(__file__).resolve().parent.parent)
    rows = await per_schema(config, args.per_schema)
    rows += await round_trips(config, args.commands, nodelay=True)
    rows += await round_trips(config, min(args.commands, 60), nodelay=False)
    for count in (20, 2000):
        rows += await many_devices(config, count, args.lookups)
    print_table(rows)


if __name__ == "__main__":
    asyncio.run(main())
