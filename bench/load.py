"""Load test of `mnemolis serve`: many clients at once, over MQTT and over HTTP.

Starts everything itself on free loopback ports: a Mosquitto, the simulated
default home, the replayed Open-Meteo server, a test ZIM and the daemon (a
real subprocess, as in production). Then, for each front-end, ``--clients``
clients (20) send ``--requests`` requests (1,000) between them, each client
one request after the other on its own connection and session, and every
answer is matched to its request by id (MQTT 5 correlation data and the
echoed ``id``): an answer that never came is lost, a second one for the same
id is duplicated, one with another id is wrong. Prints throughput, latency
percentiles, outcomes, and the daemon's resident memory before and after.

    .venv/bin/python bench/load.py [--requests 1000] [--clients 20]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support_kiwix import build_test_zims
from tests.support_serve import MqttProbe, ServeProcess, running_daemon, running_home

QUERIES = [
    "what time is it",
    "turn on the kitchen light",
    "is the front door locked",
    "who was ada lovelace",
    "turn off the kitchen light and what time is it",
    "what is the temperature in the living room",
    "turn on the porch light",
    "turn it off",
    "what day is it",
    "play some jazz",
]
FLAGS = ["--http", "127.0.0.1:0", "--no-wyoming", "--mqtt-api", "--no-hermes"]


@dataclass
class Tally:
    """What one front-end's run came to."""

    name: str
    latencies_ms: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    duplicated: int = 0
    wrong: int = 0
    seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, ms: float, outcome: str) -> None:
        with self.lock:
            self.latencies_ms.append(ms)
            self.outcomes[outcome] += 1


def rss_mib(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of ``pid``, in MiB (Linux /proc)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def mqtt_client(host: str, port: int, n: int, count: int, tally: Tally) -> None:
    reply_to = f"mnemolis/bench/{n}"
    with MqttProbe(host, port, [reply_to], client_id=f"bench-{n}") as client:
        for i in range(count):
            ident = f"m{n}-{i}"
            request = {"text": QUERIES[(n + i) % len(QUERIES)], "session": f"mqtt-{n}", "id": ident}
            started = time.perf_counter()
            client.publish("mnemolis/ask", json.dumps(request), reply_to, ident.encode())
            try:
                got = client.next(timeout_s=15)
            except AssertionError:
                with tally.lock:
                    tally.lost += 1
                continue
            ms = (time.perf_counter() - started) * 1000
            answer = got.json()
            if got.correlation_data != ident.encode() or answer.get("id") != ident:
                with tally.lock:
                    tally.wrong += 1
                continue
            tally.add(ms, answer.get("outcome") or answer.get("code", "?"))
        time.sleep(0.5)  # anything still arriving now is a second answer
        while not client.nothing(0.05):
            with tally.lock:
                tally.duplicated += 1


def http_client(port: int, n: int, count: int, tally: Tally) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        for i in range(count):
            ident = f"h{n}-{i}"
            request = {"text": QUERIES[(n + i) % len(QUERIES)], "session": f"http-{n}", "id": ident}
            started = time.perf_counter()
            try:
                connection.request("POST", "/ask", body=json.dumps(request))
                response = connection.getresponse()
                answer = json.loads(response.read())
            except (OSError, http.client.HTTPException):
                with tally.lock:
                    tally.lost += 1
                connection.close()
                continue
            ms = (time.perf_counter() - started) * 1000
            if answer.get("id") != ident:
                with tally.lock:
                    tally.wrong += 1
                continue
            tally.add(ms, answer.get("outcome") or answer.get("code", "?"))
    finally:
        connection.close()


def run(name: str, clients: int, requests: int, one: Callable[[int, int, Tally], None]) -> Tally:
    tally = Tally(name)
    shares = [requests // clients + (1 if n < requests % clients else 0) for n in range(clients)]
    threads = [threading.Thread(target=one, args=(n, shares[n], tally)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tally.seconds = time.perf_counter() - started
    return tally


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def report(tallies: list[Tally], memory: list[tuple[str, float, float]], clients: int) -> None:
    print(
        f"{'front-end':<10} {'requests':>8} {'clients':>7} {'seconds':>8} {'req/s':>7} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'lost':>5} {'dup':>4} {'wrong':>5}"
    )
    for t in tallies:
        answered = len(t.latencies_ms)
        total = answered + t.lost + t.wrong
        print(
            f"{t.name:<10} {total:>8} {clients:>7} {t.seconds:>8.2f} "
            f"{answered / t.seconds:>7.1f} {statistics.median(t.latencies_ms):>7.1f} "
            f"{percentile(t.latencies_ms, 99):>7.1f} {max(t.latencies_ms):>7.1f} "
            f"{t.lost:>5} {t.duplicated:>4} {t.wrong:>5}"
        )
    for t in tallies:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(t.outcomes.items()))
        print(f"{t.name} outcomes: {outcomes}")
    print(f"\n{'daemon memory':<22} {'RSS MiB':>8} {'peak MiB':>9}")
    for label, rss, peak in memory:
        print(f"{label:<22} {rss:>8.1f} {peak:>9.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="per front-end")
    parser.add_argument("--clients", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemolis-load-") as scratch:
        folder = Path(scratch)
        zims = build_test_zims(folder)
        with (
            running_home(folder, zims.main) as home,
            running_daemon(home, FLAGS, ["http", "mqtt-api"]) as daemon,
        ):
            tallies, memory = load(daemon, home.broker.host, home.broker.port, args)
        failures = sum(t.lost + t.duplicated + t.wrong for t in tallies)
    report(tallies, memory, args.clients)
    print("\nno lost, duplicated or wrong answers" if not failures else f"\n{failures} FAILURES")
    return 1 if failures else 0


def load(
    daemon: ServeProcess, host: str, port: int, args: argparse.Namespace
) -> tuple[list[Tally], list[tuple[str, float, float]]]:
    pid = daemon.process.pid
    memory = [("before (idle, ready)", *rss_mib(pid))]
    mqtt = run(
        "mqtt",
        args.clients,
        args.requests,
        lambda n, count, tally: mqtt_client(host, port, n, count, tally),
    )
    memory.append(("after MQTT", *rss_mib(pid)))
    web = run(
        "http",
        args.clients,
        args.requests,
        lambda n, count, tally: http_client(daemon.http_port, n, count, tally),
    )
    memory.append(("after HTTP", *rss_mib(pid)))
    return [mqtt, web], memory


if __name__ == "__main__":
    raise SystemExit(main())
