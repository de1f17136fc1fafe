"""Benchmark the MQTT source against a local Mosquitto it starts itself.

Measures the command round trip (answer(part) -> QoS 1 publish -> the
simulated device's state echo -> PartAnswer), a state question answered from
the cache, and the cost of many discovered devices: how long 20 and 2,000
Home Assistant discovery configs take to become known, and how long
understanding a device query and ``registry.by_name`` take with them.

    .venv/bin/python bench/mqtt.py [--commands 400] [--lookups 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemolis.config import Config, load_config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Simulator
from mnemolis.devices import Device
from mnemolis.plan import Part
from mnemolis.sources.base import Request, Status
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import Understander, registry_from_config

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
    args = parser.parse_args()
    config = load_config(Path(__file__).resolve().parent.parent)
    rows = await round_trips(config, args.commands, nodelay=True)
    rows += await round_trips(config, min(args.commands, 60), nodelay=False)
    for count in (20, 2000):
        rows += await many_devices(config, count, args.lookups)
    print_table(rows)


if __name__ == "__main__":
    asyncio.run(main())
