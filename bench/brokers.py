"""Brokers side by side, each in a process of its own: the demo's embedded broker,
amqtt (when installed) and Mosquitto (when installed).

`bench/demo.py` uses this to compare them on what the demo needs: how long a
broker takes from spawning to listening, how much memory it holds idle and
at its peak under the round-trip and fan-out runs, and the message timings.
A Python broker runs as ``python bench/brokers.py KIND``, which prints
``ready PORT IMPORT_MS LISTEN_MS`` and serves until its standard input
closes; ``KIND`` ``none`` is the bare interpreter, the baseline for memory.
"""

from __future__ import annotations

import importlib
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Protocol

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent.parent))

PYTHON_BROKERS = ("embedded", "amqtt")


class Running(Protocol):
    host: str
    port: int

    def memory_kib(self) -> tuple[int, int]: ...

    def stop(self) -> None: ...


def memory_of(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB, from /proc: now and at its peak."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


class PythonBroker:
    """``python bench/brokers.py KIND`` as a child; `spawned_ms` to listening."""

    host = "127.0.0.1"

    def __init__(self, kind: str) -> None:
        t0 = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        self.spawned_ms = (time.perf_counter() - t0) * 1000
        if not line or line[0] != "ready":
            self.stop()
            raise RuntimeError(f"the {kind} broker did not start")
        self.port = int(line[1])
        self.import_ms, self.listen_ms = float(line[2]), float(line[3])

    def memory_kib(self) -> tuple[int, int]:
        return memory_of(self.process.pid)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class MosquittoBroker:
    """Mosquitto as the tests run it (`mnemolis.demo.mosquitto`), timed the same way."""

    def __init__(self) -> None:
        from mnemolis.demo.mosquitto import Mosquitto

        t0 = time.perf_counter()
        self.mosquitto = Mosquitto().start()
        self.spawned_ms = (time.perf_counter() - t0) * 1000
        self.host, self.port = self.mosquitto.host, self.mosquitto.port

    def memory_kib(self) -> tuple[int, int]:
        assert self.mosquitto.process is not None
        return memory_of(self.mosquitto.process.pid)

    def stop(self) -> None:
        self.mosquitto.cleanup()


def available() -> list[str]:
    """The brokers this machine can run: always the embedded one."""
    from bench.amqtt_broker import amqtt_version
    from mnemolis.demo.mosquitto import find_mosquitto

    found = ["embedded"]
    if amqtt_version() is not None:
        found.append("amqtt")
    if find_mosquitto() is not None:
        found.append("mosquitto")
    return found


def start(kind: str) -> PythonBroker | MosquittoBroker:
    return MosquittoBroker() if kind == "mosquitto" else PythonBroker(kind)


def label(kind: str) -> str:
    if kind == "amqtt":
        from bench.amqtt_broker import amqtt_version

        return f"amqtt {amqtt_version()}"
    return {"embedded": "embedded broker"}.get(kind, kind)


def serve(kind: str) -> int:
    """The child: import and start one broker, say where, serve until stdin closes."""
    t0 = time.perf_counter()
    if kind == "none":
        print("ready 0 0 0", flush=True)
        sys.stdin.read()
        return 0
    if kind == "amqtt":
        importlib.import_module("amqtt.broker")  # timed alone: the adapter adds BrokerThread
        imported = time.perf_counter()
        from bench.amqtt_broker import AmqttBrokerThread as Thread

        logging.getLogger("amqtt").setLevel(logging.CRITICAL)  # a line per disconnect
    else:
        from mnemolis.demo.broker import BrokerThread as Thread  # type: ignore[assignment]

        imported = time.perf_counter()
    ready = time.perf_counter()
    broker = Thread().start()
    listening = time.perf_counter()
    import_ms, listen_ms = (imported - t0) * 1000, (listening - ready) * 1000
    print(f"ready {broker.port} {import_ms:.1f} {listen_ms:.1f}", flush=True)
    sys.stdin.read()
    broker.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1]))
