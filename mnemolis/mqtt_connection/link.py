"""One connection to the broker, kept alive, with publishes that expire.

paho-mqtt (2.x, callback API version 2) runs the network loop on its own
thread. This module owns that thread and bridges it to asyncio:

* every connection attempt uses a fresh paho client, so a command that missed
  its deadline is never resent by paho's own queue after a reconnect;
* a supervisor task reconnects with exponential back-off when the broker
  goes away, and re-subscribes everything;
* `publish` keeps a message only until its deadline: queued while the broker
  is unreachable, republished after a drop, dropped for good when late;
* `sync` round-trips a private message, which tells the caller that every
  retained message of the earlier subscriptions has been delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import ssl
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode

from mnemolis.core.devices import slugify
from mnemolis.mqtt_connection.settings import BrokerSettings

log = logging.getLogger(__name__)

MessageHandler = Callable[[str, bytes, bool], None]
SUBSCRIBE_BATCH = 64
T = TypeVar("T")


@dataclass
class PublishOutcome:
    """How one publish ended."""

    sent: bool  # handed to a live connection at least once
    acknowledged: bool  # the broker confirmed it (QoS 1 PUBACK)
    reason: str = ""  # broker_down | expired | closed | too_large


@dataclass
class _Outgoing:
    topic: str
    payload: bytes
    qos: int
    retain: bool
    deadline: float  # loop time
    future: asyncio.Future[PublishOutcome]
    sent: bool = False


@dataclass
class _Session:
    """One paho client and the futures that follow its life."""

    client: mqtt.Client
    generation: int
    connack: asyncio.Future[str | None]  # None on success, else the refusal
    dropped: asyncio.Future[None]
    subscribed: set[str] = field(default_factory=set)


def no_delay(sock: object) -> None:
    """Send small packets at once: with Nagle on, a command followed by its echo
    waits for a delayed TCP ACK and every round trip costs ~40 ms more."""
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def configure_client(client: mqtt.Client, settings: BrokerSettings) -> None:
    """What every client of ours sets from the broker settings: timeouts, credentials, TLS."""
    client.connect_timeout = settings.connect_timeout_s
    client.max_inflight_messages_set(100)
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    tls = settings.tls
    if tls is not None:
        client.tls_set(ca_certs=tls.ca_certs, certfile=tls.certfile, keyfile=tls.keyfile)
        if tls.insecure:
            client.tls_insecure_set(True)


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "timed out"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed: {exc.reason or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


class MqttLink:
    """A broker connection that survives the broker going away."""

    def __init__(self, settings: BrokerSettings, on_message: MessageHandler) -> None:
        self.settings = settings
        self.on_message = on_message
        self.on_connected: Callable[[], None] | None = None
        self.client_id = (
            settings.client_id
            if settings.exact_client_id
            else f"{settings.client_id}-{os.getpid()}-{secrets.token_hex(3)}"
        )
        self.sync_base = f"{settings.sync_topic}/{slugify(self.client_id)}"
        self.max_payload = 1 << 20
        self.last_error: str | None = None
        self.ever_connected = False
        self.connections = 0
        self.next_attempt_at: float | None = None  # loop time of the next reconnect, when waiting
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: _Session | None = None
        self._generation = 0
        self._topics: set[str] = set()
        self._outbox: list[_Outgoing] = []
        self._inflight: dict[tuple[int, int], _Outgoing] = {}
        self._syncs: dict[str, asyncio.Future[None]] = {}
        self._connected = asyncio.Event()
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ life

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def start(self) -> None:
        """Start connecting in the background; never raises for a dead broker."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._supervise(), name="mnemolis-mqtt-link")

    async def close(self) -> None:
        self._closing.set()
        session = self._session
        if session is not None:
            session.client.disconnect()
            self._resolve(session.dropped, None)
        if self._task is not None:
            await self._task
            self._task = None
        for entry in [*self._outbox, *self._inflight.values()]:
            self._resolve(entry.future, PublishOutcome(entry.sent, False, "closed"))
        self._outbox.clear()
        self._inflight.clear()

    def down_until_after(self, deadline: float) -> bool:
        """True when the broker is away and the next try comes after ``deadline``:
        a command need not wait for a connection that cannot come in time."""
        return (
            not self.connected
            and self.next_attempt_at is not None
            and self.next_attempt_at > deadline
        )

    async def wait_connected(self, timeout_s: float) -> bool:
        if self.connected:
            return True
        try:
            await asyncio.wait_for(self._connected.wait(), max(0.0, timeout_s))
        except TimeoutError:
            return False
        return True

    async def _supervise(self) -> None:
        delay = self.settings.reconnect_min_s
        while not self._closing.is_set():
            was_up = await self._run_session()
            if self._closing.is_set():
                break
            if was_up:
                delay = self.settings.reconnect_min_s
            assert self._loop is not None
            self.next_attempt_at = self._loop.time() + delay
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), delay)
            self.next_attempt_at = None
            if not was_up:
                delay = min(delay * 2, self.settings.reconnect_max_s)

    def _new_client(self, generation: int) -> mqtt.Client:
        s = self.settings
        client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=True,
            protocol=MQTTProtocolVersion.MQTTv311,
            reconnect_on_failure=False,
        )
        configure_client(client, s)
        client.on_connect = lambda _c, _u, _f, rc, _p: self._from_thread(
            self._on_connack, generation, rc
        )
        client.on_disconnect = lambda _c, _u, _f, rc, _p: self._from_thread(
            self._on_drop, generation, rc
        )
        client.on_publish = lambda _c, _u, mid, _rc, _p: self._from_thread(
            self._on_ack, generation, mid
        )
        client.on_message = lambda _c, _u, msg: self._message(msg)
        client.on_socket_open = lambda _c, _u, sock: no_delay(sock)
        return client

    async def _run_session(self) -> bool:
        """Connect once and stay until the connection ends; True if it was up."""
        assert self._loop is not None
        self._generation += 1
        generation = self._generation
        try:
            client = self._new_client(generation)
        except (ValueError, OSError, ssl.SSLError) as exc:
            self._failed(describe_error(exc))
            return False
        session = _Session(
            client, generation, self._loop.create_future(), self._loop.create_future()
        )
        self._session = session
        try:
            await asyncio.to_thread(
                client.connect, self.settings.host, self.settings.port, self.settings.keepalive
            )
        except (OSError, ssl.SSLError, ValueError) as exc:
            self._session = None
            self._failed(describe_error(exc))
            return False
        client.loop_start()
        try:
            refusal = await asyncio.wait_for(
                asyncio.shield(session.connack), self.settings.connect_timeout_s
            )
        except TimeoutError:
            refusal = "no answer to CONNECT"
        if refusal is not None or self._closing.is_set():
            self._session = None
            if refusal is not None:
                self._failed(f"the broker refused the connection: {refusal}")
            await self._stop(client)
            return False
        self._up(session)
        await session.dropped
        self._down(session)
        await self._stop(client)
        return True

    async def _stop(self, client: mqtt.Client) -> None:
        client.disconnect()
        await asyncio.to_thread(client.loop_stop)

    def _failed(self, reason: str) -> None:
        if reason != self.last_error:
            log.warning("MQTT broker %s: %s", self.settings.address, reason)
        else:
            log.debug("MQTT broker %s: %s (again)", self.settings.address, reason)
        self.last_error = reason

    def _up(self, session: _Session) -> None:
        self.ever_connected = True
        self.connections += 1
        self.last_error = None
        log.info("connected to the MQTT broker %s as %s", self.settings.address, self.client_id)
        self._connected.set()
        self._subscribe(session, [f"{self.sync_base}/+", *sorted(self._topics)])
        self._pump()
        if self.on_connected is not None:
            self.on_connected()

    def _down(self, session: _Session) -> None:
        self._session = None
        self._connected.clear()
        if not self._closing.is_set():
            self.last_error = "the connection was lost"
            log.warning("lost the MQTT broker %s; reconnecting", self.settings.address)
        for key in [k for k in self._inflight if k[0] == session.generation]:
            entry = self._inflight.pop(key)
            if not entry.future.done():
                self._outbox.append(entry)  # republished on the next connection, if still in time

    # ------------------------------------------------------------------ thread bridge

    def _from_thread(self, callback: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed since the check
            loop.call_soon_threadsafe(callback, *args)

    @staticmethod
    def _resolve(future: asyncio.Future[T], value: T) -> None:
        if not future.done():
            future.set_result(value)

    def _on_connack(self, generation: int, reason: ReasonCode) -> None:
        session = self._session
        if session is None or session.generation != generation:
            return
        self._resolve(session.connack, str(reason) if reason.is_failure else None)

    def _on_drop(self, generation: int, _reason: ReasonCode) -> None:
        session = self._session
        if session is not None and session.generation == generation:
            self._resolve(session.connack, "the connection closed")
            self._resolve(session.dropped, None)

    def _on_ack(self, generation: int, mid: int) -> None:
        entry = self._inflight.pop((generation, mid), None)
        if entry is not None:
            self._resolve(entry.future, PublishOutcome(True, True))

    def _message(self, msg: mqtt.MQTTMessage) -> None:
        """On paho's thread: sync round trips here, everything else to the handler."""
        topic = msg.topic
        if topic.startswith(self.sync_base + "/"):
            nonce = topic.rsplit("/", 1)[1]
            self._from_thread(self._synced, nonce)
            return
        try:
            self.on_message(topic, bytes(msg.payload), bool(msg.retain))
        except Exception:  # a handler bug must not kill paho's network thread
            log.exception("MQTT message on %s could not be handled", topic[:120])

    def _synced(self, nonce: str) -> None:
        future = self._syncs.pop(nonce, None)
        if future is not None:
            self._resolve(future, None)

    # ------------------------------------------------------------------ subscriptions

    def set_subscriptions(self, topics: Iterable[str]) -> None:
        """The exact topics to follow; call on the event loop."""
        self._topics = set(topics)
        session = self._session
        if session is None or not self.connected:
            return
        gone = session.subscribed - self._topics - {f"{self.sync_base}/+"}
        if gone:
            session.client.unsubscribe(sorted(gone))
            session.subscribed -= gone
        self._subscribe(session, sorted(self._topics - session.subscribed))

    def _subscribe(self, session: _Session, topics: list[str]) -> None:
        for i in range(0, len(topics), SUBSCRIBE_BATCH):
            batch = topics[i : i + SUBSCRIBE_BATCH]
            rc, _mid = session.client.subscribe([(t, 1) for t in batch])
            if rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
                session.subscribed.update(batch)

    # ------------------------------------------------------------------ publishing

    async def publish(
        self, topic: str, payload: bytes, deadline: float, qos: int = 1, retain: bool = False
    ) -> PublishOutcome:
        """Publish before ``deadline`` (loop time) or not at all."""
        assert self._loop is not None, "start() the link first"
        if len(payload) > self.max_payload:
            return PublishOutcome(False, False, "too_large")
        if self._closing.is_set():
            return PublishOutcome(False, False, "closed")
        entry = _Outgoing(topic, payload, qos, retain, deadline, self._loop.create_future())
        self._outbox.append(entry)
        self._pump()
        try:
            return await asyncio.wait_for(
                asyncio.shield(entry.future), max(0.0, deadline - self._loop.time())
            )
        except TimeoutError:
            self._forget(entry)
            return PublishOutcome(entry.sent, False, "expired" if entry.sent else "broker_down")

    def _forget(self, entry: _Outgoing) -> None:
        """A late message is never sent afterwards."""
        if entry in self._outbox:
            self._outbox.remove(entry)
        for key, other in list(self._inflight.items()):
            if other is entry:
                del self._inflight[key]

    def _pump(self) -> None:
        session = self._session
        if session is None or not self.connected or self._loop is None:
            return
        now = self._loop.time()
        waiting, self._outbox = self._outbox, []
        for entry in waiting:
            if entry.future.done():
                continue
            if entry.deadline <= now:
                self._resolve(entry.future, PublishOutcome(entry.sent, False, "expired"))
                continue
            info = session.client.publish(entry.topic, entry.payload, entry.qos, entry.retain)
            if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
                self._outbox.append(entry)
                continue
            entry.sent = True
            if entry.qos == 0:
                self._resolve(entry.future, PublishOutcome(True, True))
            else:
                self._inflight[(session.generation, info.mid)] = entry

    async def sync(self, timeout_s: float) -> bool:
        """True once every retained message of the current subscriptions has arrived.

        The broker queues retained messages when it handles SUBSCRIBE; a
        message we publish afterwards on our own topic comes back behind them.
        """
        assert self._loop is not None, "start() the link first"
        deadline = self._loop.time() + timeout_s
        if not await self.wait_connected(timeout_s):
            return False
        nonce = uuid.uuid4().hex
        future: asyncio.Future[None] = self._loop.create_future()
        self._syncs[nonce] = future
        try:
            sent = await self.publish(f"{self.sync_base}/{nonce}", b"", deadline)
            if not sent.sent:
                return False
            await asyncio.wait_for(future, max(0.0, deadline - self._loop.time()))
        except TimeoutError:
            return False
        finally:
            self._syncs.pop(nonce, None)
        return True
