"""What the embedded broker keeps per connection, and the limits on all of it.

`Connection` is one client: its CONNECT, its subscriptions, the QoS 1
messages in flight towards it and those queued behind them (bounded by
`BrokerLimits`). `topic_matches` is MQTT's filter rule. `broker.py` owns the
connections and routes messages between them.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field

from mnemolis.demo.mqtt_encode import publish
from mnemolis.demo.mqtt_packets import MQTT_311, Connect, MalformedPacket, Publish
from mnemolis.mqtt_connection.topics import levels_match

log = logging.getLogger("mnemolis.demo.broker")  # one logger for the whole broker


@dataclass(frozen=True)
class BrokerLimits:
    """How much one client, and all of them together, may make the broker hold."""

    max_packet_bytes: int = 9 * 2**20  # zigbee2mqtt/bridge/devices may be 8 MiB (mqtt.yaml limits)
    max_clients: int = 200
    max_subscriptions: int = 2_000  # per client
    max_retained: int = 20_000
    max_retained_bytes: int = 64 * 2**20
    max_inflight: int = 1_000  # QoS 1 messages sent to one client and not yet acknowledged
    max_queued: int = 10_000  # messages waiting behind those, per client
    max_buffered_bytes: int = 32 * 2**20  # written to a client that has not read them yet
    connect_timeout_s: float = 10.0  # from accepting a socket to its CONNECT


@dataclass
class BrokerStats:
    """Counters for tests and `doctor`-style reports."""

    accepted: int = 0
    refused: int = 0  # over max_clients, wrong protocol level, bad client id
    malformed: int = 0  # connections closed for a bad packet or a protocol error
    slow: int = 0  # connections closed because the client did not read
    expired: int = 0  # keepalive ran out
    dropped: int = 0  # messages not delivered or not retained because of a limit
    published: int = 0


@dataclass
class Subscription:
    filter: str
    levels: tuple[str, ...]
    qos: int
    no_local: bool = False
    retain_as_published: bool = False
    identifier: int | None = None


@dataclass
class Pending:
    """A message for one client, waiting for room in its QoS 1 window."""

    message: Publish
    qos: int
    retain: bool
    identifiers: list[int] = field(default_factory=list)


def topic_matches(levels: tuple[str, ...], topic: list[str]) -> bool:
    """Does a filter (split at '/') match a topic (split at '/')?"""
    if topic[0].startswith("$") and levels[0] in ("+", "#"):
        return False  # $SYS and friends are not caught by a leading wildcard
    return levels_match(levels, topic)


class PacketTooLarge(MalformedPacket):
    pass


class Connection:
    """One connection: what it subscribed to, and what is in flight towards it."""

    def __init__(
        self,
        limits: BrokerLimits,
        stats: BrokerStats,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        self.limits = limits
        self.stats = stats
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.name = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "a client"
        self.connect: Connect | None = None
        self.client_id = ""
        self.subscriptions: dict[str, Subscription] = {}
        self.inflight: set[int] = set()
        self.queue: deque[Pending] = deque()
        self.awaiting_release: set[int] = set()  # incoming QoS 2, PUBREC sent
        self.receive_maximum = limits.max_inflight
        self.max_packet: int | None = None  # what the client said it accepts (MQTT 5)
        self.graceful = False  # DISCONNECT received: no will
        self.closing = False
        self._next_id = 0

    @property
    def version(self) -> int:
        return self.connect.version if self.connect is not None else MQTT_311

    def write(self, data: bytes) -> None:
        transport = self.writer.transport
        if self.closing or transport.is_closing():
            return
        self.writer.write(data)
        if transport.get_write_buffer_size() > self.limits.max_buffered_bytes:
            log.warning("MQTT broker: %s does not read what it is sent; closing it", self.name)
            self.stats.slow += 1
            self.abort()

    def abort(self) -> None:
        """Close now; the reading task notices and cleans up (will included)."""
        self.closing = True
        self.writer.transport.abort()

    # ------------------------------------------------------------------ delivery

    def deliver(self, message: Publish, qos: int, retain: bool, identifiers: list[int]) -> None:
        if self.queue or (qos and len(self.inflight) >= self.receive_maximum):
            if len(self.queue) >= self.limits.max_queued:
                self.stats.dropped += 1
                log.warning("MQTT broker: %s is too far behind; a message was dropped", self.name)
                return
            self.queue.append(Pending(message, qos, retain, identifiers))
            return
        self._send(Pending(message, qos, retain, identifiers))

    def _send(self, pending: Pending) -> None:
        packet_id = self._new_id() if pending.qos else None
        message, qos, retain = pending.message, pending.qos, pending.retain
        data = publish(message, self.version, qos, retain, packet_id, pending.identifiers)
        if self.max_packet is not None and len(data) > self.max_packet:
            if packet_id is not None:  # MQTT 5: too large for this client, so not for it
                self.inflight.discard(packet_id)
            self.stats.dropped += 1
            return
        self.write(data)

    def acknowledged(self, packet_id: int) -> None:
        self.inflight.discard(packet_id)
        while self.queue and (self.queue[0].qos == 0 or len(self.inflight) < self.receive_maximum):
            self._send(self.queue.popleft())

    def _new_id(self) -> int:
        while True:  # inflight holds at most max_inflight < 65535 ids, so one is free
            self._next_id = self._next_id % 65535 + 1
            if self._next_id not in self.inflight:
                self.inflight.add(self._next_id)
                return self._next_id
