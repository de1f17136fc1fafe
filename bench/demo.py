"""Benchmark the demo home: its broker next to amqtt and Mosquitto, and whole answers.

Rows: the demo home's start-up (broker, 15 simulated devices, the demo ZIM
already built, the forecast seeded); for each broker (the embedded one,
amqtt when installed, Mosquitto when installed), each in a process of its
own (`bench/brokers.py`): spawn to listening, memory idle and at its peak, a
message's round trip at QoS 0 and 1 from one paho client to another, and
fan-out to 20 subscribers; then whole answers through the Assistant, as
`mnemolis demo --ask` gives them.

    .venv/bin/python bench/demo.py [--messages 2000] [--asks 200] [--starts 10]
    .venv/bin/pip install amqtt==0.12.1   # first, for the amqtt rows
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import brokers
from bench.mqtt import Row, percentiles  # the same table as the MQTT source's benchmark
from mnemolis.config import Config, load_config
from mnemolis.demo.home import DemoHome
from mnemolis.mqtt_connection.link import no_delay
from mnemolis.runtime.assistant import Assistant
from mnemolis.understand import registry_from_config


def row(what: str, samples: list[float], note: str = "") -> Row:
    p50, p99 = percentiles(samples)
    return Row(what, len(samples), p50, p99, note)


Handler = Callable[[mqtt.MQTTMessage], None]


def paho_client(host: str, port: int, on_message: Handler, inflight: int = 20) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{time.monotonic_ns()}")
    client.max_inflight_messages_set(inflight)
    client.on_message = lambda _c, _u, msg: on_message(msg)
    client.on_socket_open = lambda _c, _u, sock: no_delay(sock)
    connected = threading.Event()
    client.on_connect = lambda *_a: connected.set()
    client.connect(host, port)
    client.loop_start()
    if not connected.wait(5):
        raise TimeoutError("no connection")
    return client


def subscribe(client: mqtt.Client, topic: str) -> None:
    done = threading.Event()
    client.on_subscribe = lambda *_a: done.set()
    client.subscribe(topic, qos=1)
    done.wait(5)


def round_trips(host: str, port: int, count: int, qos: int) -> list[float]:
    """Publish, wait for the subscriber to get it, repeat: one message in flight."""
    arrived = threading.Event()
    sub = paho_client(host, port, lambda _m: arrived.set())
    subscribe(sub, "bench/echo")
    pub = paho_client(host, port, lambda _m: None)
    samples = []
    for i in range(count):
        arrived.clear()
        t0 = time.perf_counter()
        pub.publish("bench/echo", str(i).encode(), qos=qos)
        if not arrived.wait(5):
            raise TimeoutError("a message was lost")
        samples.append((time.perf_counter() - t0) * 1000)
    for client in (sub, pub):
        client.disconnect()
        client.loop_stop()
    return samples


def fan_out(host: str, port: int, count: int, subscribers: int) -> tuple[float, int]:
    """Messages delivered per second to ``subscribers`` clients, and how many were lost."""
    lock = threading.Lock()
    got = [0]
    everything = threading.Event()

    def on_message(_m: mqtt.MQTTMessage) -> None:
        with lock:
            got[0] += 1
            if got[0] == count * subscribers:
                everything.set()

    subs = [paho_client(host, port, on_message) for _ in range(subscribers)]
    for sub in subs:
        subscribe(sub, "bench/fan/#")
    pub = paho_client(host, port, lambda _m: None, inflight=1000)
    t0 = time.perf_counter()
    infos = [pub.publish("bench/fan/x", b"x" * 64, qos=1) for _ in range(count)]
    for info in infos:
        info.wait_for_publish(10)
    everything.wait(30)
    elapsed = time.perf_counter() - t0
    for client in [*subs, pub]:
        client.disconnect()
        client.loop_stop()
    return got[0] / elapsed, count * subscribers - got[0]


def broker_rows(kind: str, messages: int, starts: int, baseline_kib: int) -> list[Row]:
    """Start-up (``starts`` fresh processes), memory, round trips and fan-out of one broker."""
    name = brokers.label(kind)
    spawned, imports = [], []
    for _ in range(starts):
        started = brokers.start(kind)
        spawned.append(started.spawned_ms)
        imports.append(getattr(started, "import_ms", 0.0))
        started.stop()
    note = f"import {percentiles(imports)[0]:.0f} ms" if kind in brokers.PYTHON_BROKERS else ""
    rows = [row(f"{name}: spawn to listening", spawned, note)]
    broker = brokers.start(kind)
    try:
        idle, _peak = broker.memory_kib()
        host, port = broker.host, broker.port
        rows += [
            row(f"{name}: round trip QoS 0", round_trips(host, port, messages, 0)),
            row(f"{name}: round trip QoS 1", round_trips(host, port, messages, 1)),
        ]
        rate, lost = fan_out(host, port, messages // 2, 20)
        note = f"{rate:,.0f} deliveries/s, {lost} lost"
        rows.append(Row(f"{name}: fan-out to 20, QoS 1", messages // 2 * 20, 0, 0, note))
        _now, peak = broker.memory_kib()
    finally:
        broker.stop()
    over = f" ({(idle - baseline_kib) / 1024:+.1f} over a bare Python)" if baseline_kib else ""
    memory = f"RSS idle {idle / 1024:.1f} MiB{over}, peak {peak / 1024:.1f} MiB"
    rows.append(Row(f"{name}: memory", 0, 0, 0, memory))
    return rows


def bare_python_kib() -> int:
    """The RSS of an idle interpreter, the floor under every Python broker's figure."""
    bare = brokers.PythonBroker("none")
    try:
        return bare.memory_kib()[0]
    finally:
        bare.stop()


def home_starts(config: Config, cache: Path, count: int) -> list[float]:
    DemoHome(config, cache).start().stop()  # builds the ZIM once
    samples = []
    for _ in range(count):
        t0 = time.perf_counter()
        home = DemoHome(config, cache).start()
        samples.append((time.perf_counter() - t0) * 1000)
        home.stop()
    return samples


ANSWERED = [
    ("answer: a device command", ["turn on the kitchen light", "turn off the kitchen light"]),
    ("answer: weather from the demo cache", ["what's the weather tomorrow"]),
    ("answer: the demo ZIM", ["who was ada lovelace"]),
    (
        "answer: command + weather + encyclopedia",
        ["turn on the porch light and what's the weather tomorrow and who was marie curie"],
    ),
]


async def answers(config: Config, home: DemoHome, asks: int) -> list[Row]:
    registry = registry_from_config(config)
    rows = []
    async with Assistant.running(
        config, environ=home.environment.variables(), registry=registry, one_shot=True
    ) as assistant:
        for what, texts in ANSWERED:
            samples = []
            for i in range(asks):
                t0 = time.perf_counter()
                await assistant.ask(texts[i % len(texts)], session="bench")
                samples.append((time.perf_counter() - t0) * 1000)
            rows.append(row(what, samples))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    # the demo's weather service fails by design on every weather question; answers say so
    logging.getLogger("mnemolis.sources.weather.source").setLevel(logging.ERROR)
    config = load_config()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="mnemolis-bench-demo-") as scratch:
        cache = Path(scratch)
        rows.append(row("demo home start (ZIM built)", home_starts(config, cache, 10)))
        baseline = bare_python_kib()
        rows.append(Row("bare Python interpreter", 0, 0, 0, f"RSS {baseline / 1024:.1f} MiB"))
        found = brokers.available()
        for kind in found:
            floor = baseline if kind in brokers.PYTHON_BROKERS else 0
            rows += broker_rows(kind, args.messages, args.starts, floor)
        for kind in ("amqtt", "mosquitto"):
            if kind not in found:
                rows.append(Row(kind, 0, 0, 0, "not installed: no comparison"))
        with DemoHome(config, cache) as home:
            rows += asyncio.run(answers(config, home, args.asks))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'what':<44} {'n':>7} {'p50 ms':>8} {'p99 ms':>8}  note")
    for r in rows:
        timing = f"{r.p50_ms:8.2f} {r.p99_ms:8.2f}" if r.p50_ms else f"{'':8} {'':8}"
        print(f"{r.what:<44} {r.n:>7} {timing}  {r.note}")
    print(f"peak RSS of this process: {rss_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
