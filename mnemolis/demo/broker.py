"""An MQTT broker inside the process, for the demo home: MQTT 3.1.1 and MQTT 5.

Why not Mosquitto: `make demo` must work with no root and no system packages,
and port 1883 may already be taken, so the demo brings its own broker and
lets the system pick a free loopback port.

Why not amqtt (issue 11; measured with amqtt 0.12.1 bound to 127.0.0.1, by
``pytest -p bench.amqtt_trial tests/test_demo_broker.py tests/test_demo_home.py
tests/test_demo_cli.py``, the same tests with the same paho clients): the
demo's chat itself runs on it (its simulator and MQTT source speak 3.1.1),
but 42 of the 94 tests fail. It refuses MQTT 5 (CONNACK 0x01), so
`mnemolis serve`'s MQTT API, an MQTT 5 client for its response topics, never
connects to the demo (test_the_daemon_answers_on_the_demo_broker_over_mqtt5).
With every test client on 3.1.1 (MNEMOLIS_AMQTT_TRIAL=3.1.1) 27 broker tests
still fail: a QoS 0 message reaches a QoS 1 subscription at QoS 1 and
overlapping subscriptions deliver at the lower QoS (both against MQTT 3.1.1
section 3.3.5); a second connection with the same client id does not close
the first; and it closes no misbehaving client: not 9 of the 14 kinds of bad
input (HTTP bytes, PUBLISH before CONNECT, QoS 3, a wildcard or invalid UTF-8
in a topic...), not a half CONNECT, a client silent past its keepalive
(still open after 60 s), a packet of any size (it has no limit), a
client that stops reading; connections over the limit wait instead of being
refused. It would add 11 packages (6.3 MB) to the install, and here it is
slower and larger (bench/demo.py, medians: round trip 0.59 / 0.61 ms at QoS
0 / 1 against 0.30 / 0.52, fan-out 3,100 against 10,900 deliveries/s, spawn
to listening 176 against 92 ms, RSS 17.3 MiB over a bare Python against 9.6;
bench/RESULTS.md). mqttools speaks MQTT 5 only, at QoS 0 only.

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
connection; nothing a client sends can stop the broker. `broker_session.py`
holds a connection's state, `mqtt_packets.py` reads packets and
`mqtt_encode.py` writes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading

from mnemolis.demo.broker_session import (
    BrokerLimits,
    BrokerStats,
    Connection,
    PacketTooLarge,
    Subscription,
    log,
    topic_matches,
)
from mnemolis.demo.mqtt_encode import (
    PINGRESP,
    acknowledgement,
    connack,
    disconnect,
    make_property,
    suback,
    unsuback,
)
from mnemolis.demo.mqtt_packets import (
    ASSIGNED_CLIENT_ID,
    BAD_FILTER,
    FORWARDED,
    KEEPALIVE_TIMEOUT,
    MALFORMED,
    MAXIMUM_PACKET_SIZE,
    MQTT_5,
    MQTT_311,
    NO_SHARED,
    NO_SUBSCRIPTION,
    QUOTA_EXCEEDED,
    RECEIVE_MAXIMUM,
    REFUSED_IDENTIFIER_311,
    REFUSED_VERSION_311,
    SHARED_SUBSCRIPTIONS,
    SUBSCRIBE_FAILED_311,
    TAKEN_OVER,
    TOO_LARGE,
    WITH_WILL,
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
    filter_problem,
    parse_connect,
    parse_packet,
    property_int,
)

__all__ = ["BrokerLimits", "BrokerStats", "BrokerThread", "MqttBroker", "topic_matches"]


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
        self._clients: dict[str, Connection] = {}  # connected, by client id
        self._connections: set[Connection] = set()
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
        self._tasks.add(task)  # TCP_NODELAY: asyncio sets it on every TCP transport
        client = Connection(self.limits, self.stats, reader, writer)
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

    def _protocol_failure(self, client: Connection, reason: int, problem: str) -> None:
        self.stats.malformed += 1
        log.warning("MQTT broker: closing %s: %s", client.client_id or client.name, problem)
        if client.connect is not None and client.version == MQTT_5:
            client.write(disconnect(reason))

    async def _read(
        self, client: Connection, timeout_s: float | None, connect: bool = False
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

    async def _serve(self, client: Connection) -> None:
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

    def _admit(self, client: Connection, connect: Connect) -> bool:
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

    def _gone(self, client: Connection) -> None:
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
        self, client: Connection, packet: Publish | Subscribe | Unsubscribe | Acknowledgement | Ping
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

    def _on_publish(self, client: Connection, message: Publish) -> None:
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

    def _publish(self, message: Publish, sender: Connection | None) -> None:
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

    def _on_subscribe(self, client: Connection, packet: Subscribe) -> None:
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
        self.broker = self.make_broker(host, port, limits)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def make_broker(self, host: str, port: int, limits: BrokerLimits | None) -> MqttBroker:
        """The broker to run; `bench/amqtt_broker.py` runs amqtt here instead."""
        return MqttBroker(host, port, limits)

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
