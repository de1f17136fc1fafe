"""An MQTT broker inside the process, for the demo home: MQTT 3.1.1 and MQTT 5.

Why not Mosquitto: `make demo` must work with no root and no system packages,
and port 1883 may already be taken, so the demo brings its own broker and
lets the system pick a free loopback port. Why not a library: amqtt speaks
MQTT 3.1.1 only (the daemon's MQTT API answers on an MQTT 5 response topic)
and brings six dependencies; mqttools speaks MQTT 5 only, at QoS 0 only.

What it does: clean sessions; QoS 0 and 1 both ways (a QoS 2 publish is
taken once and delivered at QoS 1 at most); retained messages (an empty one
clears); wills; ``+`` and ``#`` (which ``$`` topics escape); keepalive;
MQTT 5 publish properties (response topic, correlation data, user
properties, content type) carried to MQTT 5 subscribers untouched, and
no-local, retain-as-published, retain handling and subscription
identifiers. What it does not: persistent sessions, shared subscriptions,
topic aliases, message expiry, authentication (it listens on loopback only).

Everything is bounded (`BrokerLimits`). A malformed packet, a client that
stops reading, or one that goes silent past its keepalive closes that one
connection; nothing a client sends can stop the broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections import deque
from dataclasses import dataclass, field

from mnemolis.demo.mqtt_packets import (
    ASSIGNED_CLIENT_ID,
    FORWARDED,
    MAXIMUM_PACKET_SIZE,
    MQTT_5,
    MQTT_311,
    PINGRESP,
    RECEIVE_MAXIMUM,
    SHARED_SUBSCRIPTIONS,
    Acknowledgement,
    Connect,
    Disconnect,
    MalformedPacket,
    PacketType,
    Ping,
    Property,
    Publish,
    Subscribe,
    Unsubscribe,
    UnsupportedVersion,
    acknowledgement,
    connack,
    disconnect,
    filter_problem,
    make_property,
    parse_connect,
    parse_packet,
    property_int,
    publish,
    suback,
    unsuback,
)
from mnemolis.mqtt_connection.link import no_delay

log = logging.getLogger(__name__)

# Reason codes (MQTT 5; the 3.1.1 CONNACK codes are 1, 2 and 3).
REFUSED_VERSION_311 = 0x01
REFUSED_IDENTIFIER_311 = 0x02
SUBSCRIBE_FAILED_311 = 0x80
MALFORMED = 0x81
PROTOCOL_ERROR = 0x82
TAKEN_OVER = 0x8E
KEEPALIVE_TIMEOUT = 0x8D
BAD_FILTER = 0x8F
QUOTA_EXCEEDED = 0x97
TOO_LARGE = 0x95
NO_SHARED = 0x9E
NO_SUBSCRIPTION = 0x11
WITH_WILL = 0x04


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
class _Pending:
    """A message for one client, waiting for room in its QoS 1 window."""

    message: Publish
    qos: int
    retain: bool
    identifiers: list[int] = field(default_factory=list)


def topic_matches(levels: tuple[str, ...], topic: list[str]) -> bool:
    """Does a filter (split at '/') match a topic (split at '/')?"""
    if topic[0].startswith("$") and levels[0] in ("+", "#"):
        return False  # $SYS and friends are not caught by a leading wildcard
    for i, level in enumerate(levels):
        if level == "#":
            return True
        if i >= len(topic) or (level != "+" and level != topic[i]):
            return False
    return len(levels) == len(topic)


class PacketTooLarge(MalformedPacket):
    pass


class _Client:
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
        self.queue: deque[_Pending] = deque()
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
            self.queue.append(_Pending(message, qos, retain, identifiers))
            return
        self._send(_Pending(message, qos, retain, identifiers))

    def _send(self, pending: _Pending) -> None:
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


class MqttBroker:
    """The broker on the running event loop: ``await start()``, ``await close()``."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, limits: BrokerLimits | None = None
    ) -> None:
        self.host = host
        self.port = port  # 0: the system picks a free one, read back after start
        self.limits = limits or BrokerLimits()
        self.stats = BrokerStats()
        self._server: asyncio.Server | None = None
        self._clients: dict[str, _Client] = {}  # connected, by client id
        self._connections: set[_Client] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._retained: dict[str, Publish] = {}
        self._retained_bytes = 0

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def client_ids(self) -> list[str]:
        return sorted(self._clients)

    @property
    def retained_topics(self) -> list[str]:
        return sorted(self._retained)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("MQTT broker listening on %s", self.url)

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for client in list(self._connections):
            client.abort()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        await server.wait_closed()

    # ------------------------------------------------------------------ connections

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        no_delay(writer.get_extra_info("socket"))
        client = _Client(self.limits, self.stats, reader, writer)
        if len(self._connections) >= self.limits.max_clients:
            count = len(self._connections)
            log.warning("MQTT broker: %d clients already; refusing %s", count, client.name)
            self.stats.refused += 1
            writer.transport.abort()
            self._tasks.discard(task)
            return
        self.stats.accepted += 1
        self._connections.add(client)
        try:
            await self._serve(client)
        except PacketTooLarge as exc:
            self._protocol_failure(client, TOO_LARGE, str(exc))
        except MalformedPacket as exc:
            self._protocol_failure(client, MALFORMED, str(exc))
        except TimeoutError:
            self.stats.expired += 1
            log.info("MQTT broker: %s went silent; closing it", client.name)
            if client.connect is not None and client.version == MQTT_5:
                client.write(disconnect(KEEPALIVE_TIMEOUT))
        except (asyncio.IncompleteReadError, ConnectionError):
            log.debug("MQTT broker: %s went away", client.name)
        except Exception:  # a bug here must cost one connection, never the broker
            log.exception("MQTT broker: the connection of %s failed", client.name)
        finally:
            self._connections.discard(client)
            self._gone(client)
            if not writer.transport.is_closing():
                writer.close()
            self._tasks.discard(task)

    def _protocol_failure(self, client: _Client, reason: int, problem: str) -> None:
        self.stats.malformed += 1
        log.warning("MQTT broker: closing %s: %s", client.client_id or client.name, problem)
        if client.connect is not None and client.version == MQTT_5:
            client.write(disconnect(reason))

    async def _read(
        self, client: _Client, timeout_s: float | None, connect: bool = False
    ) -> tuple[int, bytes]:
        """One packet; ``connect``: it must be a CONNECT, known from its first byte."""
        async with asyncio.timeout(timeout_s):
            reader = client.reader
            first = (await reader.readexactly(1))[0]
            if connect and first != PacketType.CONNECT << 4:
                raise MalformedPacket("the first packet is not CONNECT")
            length, shift = 0, 0
            for _ in range(4):
                byte = (await reader.readexactly(1))[0]
                length |= (byte & 0x7F) << shift
                if not byte & 0x80:
                    break
                shift += 7
            else:
                raise MalformedPacket("the remaining length is longer than four bytes")
            if length > self.limits.max_packet_bytes:
                raise PacketTooLarge(f"a packet of {length} bytes is over the limit")
            return first, await reader.readexactly(length)

    async def _serve(self, client: _Client) -> None:
        _first, body = await self._read(client, self.limits.connect_timeout_s, connect=True)
        try:
            connect = parse_connect(body)
        except UnsupportedVersion as exc:
            self.stats.refused += 1
            log.warning("MQTT broker: refusing %s: %s", client.name, exc)
            client.write(connack(MQTT_311, REFUSED_VERSION_311))
            return
        if not self._admit(client, connect):
            return
        keepalive = connect.keepalive * 1.5 if connect.keepalive else None
        while True:
            first, body = await self._read(client, keepalive)
            packet = parse_packet(first, body, client.version)
            if isinstance(packet, Disconnect):
                client.graceful = packet.reason != WITH_WILL
                return
            self._handle(client, packet)

    def _admit(self, client: _Client, connect: Connect) -> bool:
        properties: list[Property] = []
        client_id = connect.client_id
        if not client_id:
            if connect.version != MQTT_5 and not connect.clean:
                self.stats.refused += 1
                client.write(connack(connect.version, REFUSED_IDENTIFIER_311))
                return False
            client_id = f"mnemolis-auto-{secrets.token_hex(6)}"
            if connect.version == MQTT_5:
                properties.append(make_property(ASSIGNED_CLIENT_ID, client_id))
        client.connect, client.client_id = connect, client_id
        receive_maximum = property_int(connect.properties, RECEIVE_MAXIMUM)
        if receive_maximum:
            client.receive_maximum = min(receive_maximum, self.limits.max_inflight)
        client.max_packet = property_int(connect.properties, MAXIMUM_PACKET_SIZE)
        earlier = self._clients.get(client_id)
        if earlier is not None:  # the same id again: the newer connection wins
            log.info("MQTT broker: %s connected again; closing its older connection", client_id)
            if earlier.version == MQTT_5:
                earlier.write(disconnect(TAKEN_OVER))
            earlier.abort()
        self._clients[client_id] = client
        if connect.version == MQTT_5:
            properties += [
                make_property(MAXIMUM_PACKET_SIZE, self.limits.max_packet_bytes),
                make_property(SHARED_SUBSCRIPTIONS, 0),
            ]
        client.write(connack(connect.version, 0, properties))
        return True

    def _gone(self, client: _Client) -> None:
        if client.client_id and self._clients.get(client.client_id) is client:
            del self._clients[client.client_id]
        will = client.connect.will if client.connect is not None else None
        if will is not None and not client.graceful:
            forwarded = [p for p in will.properties if p.id in FORWARDED]
            message = Publish(will.topic, will.payload, will.qos, will.retain)
            message.properties = forwarded
            self._publish(message, None)

    # ------------------------------------------------------------------ packets

    def _handle(
        self, client: _Client, packet: Publish | Subscribe | Unsubscribe | Acknowledgement | Ping
    ) -> None:
        if isinstance(packet, Publish):
            self._on_publish(client, packet)
        elif isinstance(packet, Subscribe):
            self._on_subscribe(client, packet)
        elif isinstance(packet, Unsubscribe):
            gone = [client.subscriptions.pop(f, None) for f in packet.filters]
            codes = [NO_SUBSCRIPTION if sub is None else 0 for sub in gone]
            client.write(unsuback(client.version, packet.packet_id, codes))
        elif isinstance(packet, Ping):
            client.write(PINGRESP)
        elif packet.type is PacketType.PUBACK:
            client.acknowledged(packet.packet_id)
        elif packet.type is PacketType.PUBREL:
            client.awaiting_release.discard(packet.packet_id)
            client.write(acknowledgement(PacketType.PUBCOMP, packet.packet_id))
        # PUBREC and PUBCOMP answer QoS 2 sends, which this broker never makes: ignored

    def _on_publish(self, client: _Client, message: Publish) -> None:
        assert message.packet_id is not None or message.qos == 0
        if message.qos == 2 and message.packet_id is not None:
            if message.packet_id not in client.awaiting_release:  # else a resend, routed already
                if len(client.awaiting_release) >= self.limits.max_inflight:
                    raise MalformedPacket("too many QoS 2 messages awaiting release")
                client.awaiting_release.add(message.packet_id)
                self._publish(message, client)
            client.write(acknowledgement(PacketType.PUBREC, message.packet_id))
            return
        self._publish(message, client)
        if message.qos == 1 and message.packet_id is not None:
            client.write(acknowledgement(PacketType.PUBACK, message.packet_id))

    def _publish(self, message: Publish, sender: _Client | None) -> None:
        """Keep it if retained, and hand it to every client with a matching subscription."""
        self.stats.published += 1
        if message.retain:
            self._retain(message)
        topic = message.topic.split("/")
        for client in list(self._clients.values()):
            qos, retain, identifiers = -1, False, []
            for sub in client.subscriptions.values():
                if (sub.no_local and client is sender) or not topic_matches(sub.levels, topic):
                    continue
                qos = max(qos, sub.qos)
                retain = retain or sub.retain_as_published
                if sub.identifier is not None:
                    identifiers.append(sub.identifier)
            if qos >= 0:
                retain = message.retain and retain
                client.deliver(message, min(qos, message.qos), retain, identifiers)

    def _retain(self, message: Publish) -> None:
        old = self._retained.pop(message.topic, None)
        if old is not None:
            self._retained_bytes -= len(old.topic) + len(old.payload)
        if not message.payload:
            return  # an empty retained message clears the topic
        size = len(message.topic) + len(message.payload)
        limits = self.limits
        if (
            len(self._retained) >= limits.max_retained
            or self._retained_bytes + size > limits.max_retained_bytes
        ):
            self.stats.dropped += 1
            log.warning("MQTT broker: retained store full; %s is not kept", message.topic[:120])
            return
        self._retained[message.topic] = Publish(
            message.topic, message.payload, min(message.qos, 1), True, properties=message.properties
        )
        self._retained_bytes += size

    def _on_subscribe(self, client: _Client, packet: Subscribe) -> None:
        v5 = client.version == MQTT_5
        codes: list[int] = []
        fresh: list[Subscription] = []
        for wanted in packet.filters:
            shared = wanted.filter.startswith("$share/")
            if shared or filter_problem(wanted.filter) is not None:
                codes.append((NO_SHARED if shared else BAD_FILTER) if v5 else SUBSCRIBE_FAILED_311)
                continue
            existed = wanted.filter in client.subscriptions
            if not existed and len(client.subscriptions) >= self.limits.max_subscriptions:
                codes.append(QUOTA_EXCEEDED if v5 else SUBSCRIBE_FAILED_311)
                continue
            sub = Subscription(
                wanted.filter,
                tuple(wanted.filter.split("/")),
                min(wanted.qos, 1),
                wanted.no_local,
                wanted.retain_as_published,
                packet.identifier,
            )
            client.subscriptions[wanted.filter] = sub
            codes.append(sub.qos)
            if wanted.retain_handling == 0 or (wanted.retain_handling == 1 and not existed):
                fresh.append(sub)
        client.write(suback(client.version, packet.packet_id, codes))
        for sub in fresh:  # after the SUBACK, in order: what MqttLink.sync relies on
            ids = [sub.identifier] if sub.identifier is not None else []
            for topic, message in list(self._retained.items()):
                if topic_matches(sub.levels, topic.split("/")):
                    client.deliver(message, min(sub.qos, message.qos), True, ids)


class BrokerThread:
    """An `MqttBroker` on its own thread and event loop, for code that is not async
    (the demo home, tests with paho clients); ``start()`` returns once it listens."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, limits: BrokerLimits | None = None
    ) -> None:
        self.broker = MqttBroker(host, port, limits)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def host(self) -> str:
        return self.broker.host

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def url(self) -> str:
        return self.broker.url

    @property
    def stats(self) -> BrokerStats:
        return self.broker.stats

    def start(self, timeout_s: float = 5.0) -> BrokerThread:
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="mnemolis-mqtt-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise TimeoutError(f"the MQTT broker did not start within {timeout_s} s")
        if self._error is not None:
            self._thread.join()
            self._thread = None
            raise self._error
        return self

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            await self.broker.start()
        except OSError as exc:
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.broker.close()

    def stop(self, timeout_s: float = 5.0) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)
        thread.join(timeout_s)
        if thread.is_alive():
            log.warning("MQTT broker thread did not stop within %s s", timeout_s)

    def __enter__(self) -> BrokerThread:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
