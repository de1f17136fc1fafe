"""A real `mnemolis serve` for the front-end tests, and clients to talk to it.

`running_home` starts what the daemon talks to, all on free loopback
ports: a real Mosquitto, the simulated default home on it, the replayed
Open-Meteo server, and a copy of the configuration directory (so reload
tests can edit intents). `running_daemon` starts ``python -m mnemolis
serve`` as a subprocess pointed at them through the environment, reads its
merged output on a thread and waits for the ready lines; it stops the
daemon with SIGTERM and checks it exits 0. The module fixtures `serve_home`
and `daemon` share one house and one daemon between the tests of a module;
tests that reload or stop a daemon start their own.

`MqttProbe` is an MQTT 5 client for the tests (and `bench/load.py`),
`http_call` an HTTP client that returns the status and the JSON body. The
daemon guards its HTTP API with a token, its own (made in its state directory
on the first start) unless the flags or the environment set one; `http_call`
sends the token of the daemon on that port unless told otherwise, as a
token holder would (`bearer` for requests written by hand).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mnemolis.config import load_config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Simulator
from mnemolis.mqtt_connection.link import no_delay
from tests.support_kiwix import KiwixZims
from tests.support_mqtt import require_mosquitto
from tests.support_open_meteo import OpenMeteoReplay

ROOT = Path(__file__).resolve().parent.parent
READY = re.compile(r"^mnemolis: (\S+) listening on (.+)$")
ALL_FRONT_ENDS = ("http", "wyoming", "mqtt-api", "hermes")
ALL_FLAGS = ("--http", "127.0.0.1:0", "--wyoming", "tcp://127.0.0.1:0", "--mqtt-api", "--hermes")
START_TIMEOUT_S = 30.0


@dataclass
class ServeHome:
    """Everything a daemon under test talks to."""

    broker: Mosquitto
    simulator: Simulator
    open_meteo: OpenMeteoReplay
    zim: Path
    folder: Path
    config_dir: Path

    def environ(self, cache: Path) -> dict[str, str]:
        """The daemon's environment: every source pointed at the test servers."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
        env.update(
            MNEMOLIS_MQTT_URL=self.broker.url,
            MNEMOLIS_KIWIX=str(self.zim),
            MNEMOLIS_WEATHER_URL=self.open_meteo.url,
            MNEMOLIS_GEOCODING_URL=self.open_meteo.url,
            MNEMOLIS_WEATHER_CACHE=str(cache / "weather"),
            MNEMOLIS_CACHE=str(cache),
            MNEMOLIS_STATE=str(cache / "state"),
            PYTHONUNBUFFERED="1",
        )
        return env


def copy_config(target: Path) -> Path:
    """A private copy of the repository's intents/ and sources/."""
    for folder in ("intents", "sources"):
        shutil.copytree(ROOT / folder, target / folder)
    return target


def config_variant(home: ServeHome, name: str, serve_yaml: str) -> Path:
    """Another copy of the configuration, with its own `sources/serve.yaml`."""
    target = copy_config(home.folder / name)
    (target / "sources" / "serve.yaml").write_text(serve_yaml, encoding="utf-8")
    return target


@contextmanager
def running_home(folder: Path, zim: Path) -> Iterator[ServeHome]:
    """Mosquitto, the simulated default home, the weather replay and a config copy."""
    broker = Mosquitto(require_mosquitto())
    broker.start()
    replay = OpenMeteoReplay()
    replay.start()
    config_dir = copy_config(folder / "config")
    simulator = Simulator(broker.host, broker.port, load_config(config_dir).devices)
    try:
        simulator.start()
        yield ServeHome(broker, simulator, replay, zim, folder, config_dir)
    finally:
        simulator.stop()
        replay.stop()
        broker.cleanup()


class Addresses:
    """Where a daemon's front-ends listen, from their ready lines."""

    where: dict[str, str]

    @property
    def http_port(self) -> int:
        return int(self.where["http"].rsplit(":", 1)[1])

    @property
    def wyoming_address(self) -> tuple[str, int]:
        host, port = self.where["wyoming"].removeprefix("tcp://").rsplit(":", 1)
        return host, int(port)


#: The token of each running daemon, by its HTTP port (see `http_call`).
TOKENS: dict[int, str] = {}
#: `http_call`'s default: the token of the daemon on that port.
THE_DAEMONS = "the daemon's token"


def token_of(argv: Sequence[str], environ: dict[str, str]) -> str | None:
    """The token a daemon started so uses: ``--token``, ``$MNEMOLIS_TOKEN``, else the
    one it made in its state directory."""
    if "--token" in argv:
        return argv[list(argv).index("--token") + 1]
    if environ.get("MNEMOLIS_TOKEN"):
        return environ["MNEMOLIS_TOKEN"]
    made = Path(environ.get("MNEMOLIS_STATE", "/nonexistent")) / "token"
    return made.read_text("utf-8").strip() if made.exists() else None


def bearer(port: int) -> bytes:
    """The ``Authorization`` header line of the daemon on ``port`` (empty without a token)."""
    token = TOKENS.get(port)
    return f"Authorization: Bearer {token}\r\n".encode() if token else b""


class ServeProcess(Addresses):
    """A running `mnemolis serve`: its output, its addresses, and signals."""

    token: str | None = None

    def __init__(
        self,
        process: subprocess.Popen[str],
        socket_path: Path | None = None,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.process = process
        self.socket_path = socket_path  # $MNEMOLIS_SOCKET: the CLI's way in
        self.environ = environ or {}  # the daemon's environment (a CLI of the same home uses it)
        self.lines: list[str] = []
        self.where: dict[str, str] = {}
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def mark(self) -> int:
        """A place in the output; `wait_for` can look only after it."""
        with self._changed:
            return len(self.lines)

    def wait_for(self, pattern: str, since: int = 0, timeout_s: float = 10.0) -> re.Match[str]:
        """The first output line after ``since`` matching ``pattern`` (a regex)."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while True:
                for line in self.lines[since:]:
                    found = regex.search(line)
                    if found:
                        return found
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(
                        f"no line matching {pattern!r}; the daemon said:\n" + self.output()
                    )
                self._changed.wait(min(left, 0.1))

    def output(self, since: int = 0) -> str:
        with self._changed:
            return "\n".join(self.lines[since:])

    def wait_ready(self, front_ends: Sequence[str], timeout_s: float = START_TIMEOUT_S) -> None:
        for name in front_ends:
            found = self.wait_for(rf"^mnemolis: {re.escape(name)} listening on ", 0, timeout_s)
            line = found.string
            ready = READY.match(line)
            assert ready is not None
            self.where[name] = ready.group(2)

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def stop(self, timeout_s: float = 20.0) -> int:
        """SIGTERM, then the exit status (killed, and a failure, if it hangs)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the daemon did not stop on SIGTERM:\n" + self.output()) from None
        finally:
            self._reader.join(timeout=5)


@contextmanager
def running_daemon(
    home: ServeHome,
    flags: Sequence[str] = ALL_FLAGS,
    front_ends: Sequence[str] = ALL_FRONT_ENDS,
    env: dict[str, str] | None = None,
    config_dir: Path | None = None,
    preexec: Callable[[], None] | None = None,
    command: Sequence[str] | None = None,
) -> Iterator[ServeProcess]:
    """``mnemolis serve`` with ``flags``, ready on ``front_ends``; stopped (exit 0) after.

    ``config_dir`` replaces the house's configuration (see `config_variant`);
    ``preexec`` runs in the child before it starts (`open_files` limits its files);
    ``command`` is the program (another install's ``mnemolis``; default this one's)."""
    cache = home.folder / f"cache-{uuid.uuid4().hex[:6]}"
    config = str(config_dir or home.config_dir)
    program = list(command or [sys.executable, "-m", "mnemolis"])
    # a listener the test does not wait for is off, never on its configured port: another
    # daemon on this machine (a developer's, another test's) may hold 10800
    quiet = [
        f"--no-{name}"
        for name in ("http", "wyoming")
        if name not in front_ends and not any(f in (f"--{name}", f"--no-{name}") for f in flags)
    ]
    argv = [*program, "--config", config, "serve", *flags, *quiet]
    socket_path = home.folder / f"d-{uuid.uuid4().hex[:6]}.sock"  # the CLI's socket, its own
    environ = {**home.environ(cache), "MNEMOLIS_SOCKET": str(socket_path), **(env or {})}
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environ,
        cwd=home.folder,
        preexec_fn=preexec,
    )
    daemon = ServeProcess(process, socket_path, environ)
    try:
        daemon.wait_ready(front_ends)
        daemon.token = token_of(argv, environ)
        if "http" in daemon.where and daemon.token is not None:
            TOKENS[daemon.http_port] = daemon.token
        yield daemon
    finally:
        if "http" in daemon.where:
            TOKENS.pop(daemon.http_port, None)
        status = daemon.stop()
    assert status == 0, f"the daemon exited with {status}:\n{daemon.output()}"


def open_files(limit: int) -> Callable[[], None]:
    """A ``preexec``: the daemon starts under ``ulimit -n limit`` (soft and hard)."""

    def set_limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return set_limit


# --------------------------------------------------------------------------- clients


def http_call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = THE_DAEMONS,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout_s: float = 10.0,
    source: str | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """One request; the status, the JSON body and the headers (lower-case names).

    ``token``: the daemon's own by default, None for none; ``headers`` are added to
    (or replace) ``Content-Type: application/json``; ``source`` is the loopback
    address to send from (127.0.0.2: another client)."""
    if token == THE_DAEMONS:
        token = TOKENS.get(port)
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout_s, source_address=(source, 0) if source else None
    )
    sent = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, body=sent, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        return (
            response.status,
            json.loads(data),
            {k.lower(): v for k, v in response.getheaders()},
        )
    finally:
        connection.close()


def raw_http(port: int, data: bytes, timeout_s: float = 5.0) -> bytes:
    """Send bytes as they are; everything the server answers until it closes."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def send_slowly(port: int, pieces: Sequence[bytes], gap_s: float = 0.1) -> bytes:
    """Send ``pieces`` one every ``gap_s`` (or until the server answers); everything the
    server says until it closes."""
    import socket

    reply = b""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        for piece in pieces:
            try:
                sock.sendall(piece)
            except OSError:
                break
            sock.settimeout(gap_s)
            try:
                reply += sock.recv(65536)
            except TimeoutError:
                continue
            if reply:
                break
        sock.settimeout(15)
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


@dataclass
class Received:
    topic: str
    payload: bytes
    correlation_data: bytes | None
    content_type: str | None

    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass
class MqttProbe:
    """An MQTT 5 client: subscribes to topics, publishes requests, collects what arrives."""

    host: str
    port: int
    topics: Sequence[str]
    client_id: str = field(default_factory=lambda: f"probe-{uuid.uuid4().hex[:8]}")
    inbox: queue.Queue[Received] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        self._subscribed = threading.Event()
        self.client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=MQTTProtocolVersion.MQTTv5,
        )
        self.client.max_inflight_messages_set(100)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *_a: self._subscribed.set()
        self.client.on_message = self._on_message
        self.client.on_socket_open = lambda _c, _u, sock: no_delay(sock)

    def _on_connect(self, client: mqtt.Client, *_a: Any) -> None:
        client.subscribe([(t, 1) for t in self.topics])

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        props = getattr(msg, "properties", None)
        correlation = getattr(props, "CorrelationData", None)
        content = getattr(props, "ContentType", None)
        self.inbox.put(Received(msg.topic, bytes(msg.payload), correlation, content))

    def start(self) -> MqttProbe:
        self.client.connect(self.host, self.port, 30)
        self.client.loop_start()
        assert self._subscribed.wait(5), "the probe could not subscribe"
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> MqttProbe:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        response_topic: str | None = None,
        correlation_data: bytes | None = None,
        retain: bool = False,
    ) -> None:
        properties = None
        if response_topic is not None or correlation_data is not None:
            properties = Properties(PacketTypes.PUBLISH)
            if response_topic is not None:
                properties.ResponseTopic = response_topic
            if correlation_data is not None:
                properties.CorrelationData = correlation_data
        info = self.client.publish(topic, payload, qos=1, retain=retain, properties=properties)
        info.wait_for_publish(5)

    def next(self, timeout_s: float = 10.0) -> Received:
        try:
            return self.inbox.get(timeout=timeout_s)
        except queue.Empty:
            raise AssertionError(
                f"nothing arrived on {list(self.topics)} in {timeout_s} s"
            ) from None

    def nothing(self, within_s: float = 0.5) -> bool:
        try:
            self.inbox.get(timeout=within_s)
        except queue.Empty:
            return True
        return False


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", name="serve_home")
def fixture_serve_home(
    tmp_path_factory: pytest.TempPathFactory, test_zims: KiwixZims
) -> Iterator[ServeHome]:
    """One house per test module (import `fixture_test_zims` next to it)."""
    with running_home(tmp_path_factory.mktemp("serve"), test_zims.main) as home:
        yield home


@pytest.fixture(scope="module", name="daemon")
def fixture_daemon(serve_home: ServeHome) -> Iterator[ServeProcess]:
    """One daemon with every front-end, shared by the tests of a module."""
    with running_daemon(serve_home) as daemon:
        yield daemon


def probe(home: ServeHome, *topics: str) -> MqttProbe:
    return MqttProbe(home.broker.host, home.broker.port, topics)


__all__ = [
    "ALL_FLAGS",
    "ALL_FRONT_ENDS",
    "TOKENS",
    "MqttProbe",
    "ServeHome",
    "ServeProcess",
    "bearer",
    "config_variant",
    "fixture_daemon",
    "fixture_serve_home",
    "http_call",
    "open_files",
    "probe",
    "raw_http",
    "running_daemon",
    "running_home",
    "send_slowly",
]
