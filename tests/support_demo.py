"""Fixtures for the demo tests: the embedded broker, real paho clients, raw sockets
that misbehave, and a running demo home.

Everything listens on loopback ports the system picks and is stopped after
the test; the demo ZIM is built once per session into a scratch cache.
"""

from __future__ import annotations

import queue
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from mnemolis.config import Config
from mnemolis.demo.broker import BrokerLimits, BrokerThread
from mnemolis.demo.home import DemoHome

V311 = MQTTProtocolVersion.MQTTv311
V5 = MQTTProtocolVersion.MQTTv5
WAIT_S = 5.0


@dataclass
class Received:
    """One message as a paho client got it."""

    topic: str
    payload: bytes
    qos: int
    retain: bool
    response_topic: str | None = None
    correlation_data: bytes | None = None
    user_properties: list[tuple[str, str]] = field(default_factory=list)
    subscription_ids: list[int] = field(default_factory=list)


def _received(msg: mqtt.MQTTMessage) -> Received:
    props = getattr(msg, "properties", None)
    got = Received(msg.topic, bytes(msg.payload), msg.qos, bool(msg.retain))
    if props is not None:
        got.response_topic = getattr(props, "ResponseTopic", None)
        got.correlation_data = getattr(props, "CorrelationData", None)
        got.user_properties = list(getattr(props, "UserProperty", []) or [])
        ids = getattr(props, "SubscriptionIdentifier", None)
        got.subscription_ids = list(ids) if isinstance(ids, list) else [ids] if ids else []
    return got


class Client:
    """A real paho-mqtt 2.x client (MQTT 3.1.1 or 5) that keeps what it receives."""

    def __init__(
        self,
        broker: BrokerThread,
        version: MQTTProtocolVersion = V311,
        client_id: str | None = None,
        keepalive: int = 30,
    ) -> None:
        self.broker = broker
        self.version = version
        self.keepalive = keepalive
        self.paho = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"test-{time.monotonic_ns()}",
            protocol=version,
            reconnect_on_failure=False,
        )
        self.messages: queue.Queue[Received] = queue.Queue()
        self.connected = threading.Event()
        self.disconnected = threading.Event()
        self._acks: dict[int, threading.Event] = {}
        self._codes: dict[int, list[int]] = {}
        self._lock = threading.Lock()
        self.paho.on_connect = lambda *_a: self.connected.set()
        self.paho.on_disconnect = lambda *_a: self.disconnected.set()
        self.paho.on_message = lambda _c, _u, msg: self.messages.put(_received(msg))
        self.paho.on_subscribe = self._on_ack
        self.paho.on_unsubscribe = self._on_ack

    def _on_ack(self, _c: Any, _u: Any, mid: int, codes: Any, _p: Any) -> None:
        with self._lock:
            self._codes[mid] = [int(getattr(c, "value", c)) for c in codes or []]
            self._acks.setdefault(mid, threading.Event()).set()

    def _wait_ack(self, mid: int) -> list[int]:
        with self._lock:
            event = self._acks.setdefault(mid, threading.Event())
        assert event.wait(WAIT_S), "no SUBACK/UNSUBACK"
        return self._codes.get(mid, [])

    def will(self, topic: str, payload: bytes) -> Client:
        self.paho.will_set(topic, payload, qos=1)
        return self

    def connect(self) -> Client:
        self.paho.connect(self.broker.host, self.broker.port, keepalive=self.keepalive)
        self.paho.loop_start()
        assert self.connected.wait(WAIT_S), "paho did not connect"
        return self

    def subscribe(self, topic_filter: str, qos: int = 1, **options: Any) -> list[int]:
        """Subscribe and wait for the SUBACK; returns its codes."""
        if self.version == V5:
            _rc, mid = self.paho.subscribe(topic_filter, options=SubscribeOptions(qos, **options))
        else:
            _rc, mid = self.paho.subscribe(topic_filter, qos)
        assert mid is not None
        return self._wait_ack(mid)

    def unsubscribe(self, topic_filter: str) -> None:
        _rc, mid = self.paho.unsubscribe(topic_filter)
        assert mid is not None
        self._wait_ack(mid)

    def publish(
        self,
        topic: str,
        payload: bytes | str,
        qos: int = 1,
        retain: bool = False,
        properties: Properties | None = None,
    ) -> None:
        """Publish and, at QoS 1 or 2, wait until the broker acknowledged it."""
        info = self.paho.publish(topic, payload, qos=qos, retain=retain, properties=properties)
        if qos:
            info.wait_for_publish(WAIT_S)
            assert info.is_published(), f"{topic} was not acknowledged"

    def expect(self, count: int, timeout_s: float = WAIT_S) -> list[Received]:
        got = []
        deadline = time.monotonic() + timeout_s
        while len(got) < count:
            try:
                got.append(self.messages.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                break
        assert len(got) == count, f"expected {count} messages, got {len(got)}: {got}"
        return got

    def quiet(self, timeout_s: float = 0.2) -> bool:
        """True when nothing (more) arrives within ``timeout_s``."""
        try:
            extra = self.messages.get(timeout=timeout_s)
        except queue.Empty:
            return True
        raise AssertionError(f"unexpected message {extra}")

    def close(self) -> None:
        self.paho.disconnect()
        self.paho.loop_stop()


def v5_properties(**values: Any) -> Properties:
    """PUBLISH properties: ``v5_properties(ResponseTopic="a/b", CorrelationData=b"1")``."""
    props = Properties(PacketTypes.PUBLISH)
    for name, value in values.items():
        setattr(props, name, value)
    return props


@pytest.fixture
def demo_broker() -> Iterator[BrokerThread]:
    """The embedded broker on a free loopback port, stopped after the test."""
    with BrokerThread() as broker:
        yield broker


def broker_with(**limits: Any) -> BrokerThread:
    """A started broker with some limits changed (stop it yourself)."""
    return BrokerThread(limits=BrokerLimits(**limits)).start()


@pytest.fixture
def clients(demo_broker: BrokerThread) -> Iterator[Callable[..., Client]]:
    """``clients(version=V5, client_id=...)``: connected paho clients, closed after the test."""
    made: list[Client] = []

    def make(version: MQTTProtocolVersion = V311, **kwargs: Any) -> Client:
        client = Client(demo_broker, version, **kwargs)
        made.append(client)
        return client.connect()

    yield make
    for client in made:
        client.close()


# --------------------------------------------------------------------------- raw sockets


def encode_text(value: str) -> bytes:
    raw = value.encode()
    return struct.pack("!H", len(raw)) + raw


def remaining(length: int) -> bytes:
    out = bytearray()
    while True:
        byte, length = length & 0x7F, length >> 7
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def connect_packet(
    client_id: str,
    keepalive: int = 30,
    will: tuple[str, bytes] | None = None,
    level: int = 4,
    name: str = "MQTT",
) -> bytes:
    """An MQTT 3.1.1 CONNECT (clean session), written by hand, not by the broker's codec."""
    flags = 0x02 | (0x04 | 0x08 if will else 0)  # will at QoS 1
    body = encode_text(name) + bytes([level, flags]) + struct.pack("!H", keepalive)
    body += encode_text(client_id)
    if will:
        body += encode_text(will[0]) + struct.pack("!H", len(will[1])) + will[1]
    return bytes([0x10]) + remaining(len(body)) + body


def subscribe_packet(topic_filter: str, packet_id: int = 1) -> bytes:
    body = struct.pack("!H", packet_id) + encode_text(topic_filter) + bytes([0])
    return bytes([0x82]) + remaining(len(body)) + body


DISCONNECT = bytes([0xE0, 0x00])


class RawClient:
    """A plain TCP socket speaking (or not) MQTT, for clients that misbehave."""

    def __init__(self, broker: BrokerThread, receive_buffer: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(WAIT_S)
        self.sock.connect((broker.host, broker.port))

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def closed_by_broker(self, timeout_s: float = WAIT_S) -> bool:
        """True when the broker closes the connection (reads until EOF or reset)."""
        self.sock.settimeout(timeout_s)
        try:
            while self.sock.recv(65536):
                pass
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw(demo_broker: BrokerThread) -> Iterator[Callable[..., RawClient]]:
    made: list[RawClient] = []

    def make(**kwargs: Any) -> RawClient:
        client = RawClient(demo_broker, **kwargs)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


# --------------------------------------------------------------------------- the demo home


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scratch cache per session: the demo ZIM is built into it once."""
    return tmp_path_factory.mktemp("demo-cache")


def running_demo(
    config: Config, cache: Path, now: Callable[[], datetime] | None = None, music: bool = False
) -> DemoHome:
    """A started demo home (without its music player unless asked for: most tests need
    none, and mpd takes a moment to index)."""
    if now is not None:
        return DemoHome(config, cache, now=now, music=music).start()
    return DemoHome(config, cache, music=music).start()


@pytest.fixture
def demo_home(config: Config, demo_cache: Path) -> Iterator[DemoHome]:
    home = running_demo(config, demo_cache)
    try:
        yield home
    finally:
        home.stop()


def port_refuses(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return False
    except ConnectionRefusedError:
        return True


__all__ = [
    "V5",
    "V311",
    "Client",
    "RawClient",
    "Received",
    "broker_with",
    "clients",
    "connect_packet",
    "demo_broker",
    "demo_cache",
    "demo_home",
    "port_refuses",
    "raw",
    "running_demo",
    "subscribe_packet",
    "v5_properties",
]
