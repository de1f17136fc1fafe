"""The daemon's own MQTT 5 connection, shared by the MQTT API and the Hermes front-end.

Why not the MQTT source's link: that one speaks MQTT 3.1.1 and expires
device commands; request/response needs MQTT 5 (response topic and
correlation data) and nothing more. paho-mqtt (2.x, callback API version 2)
runs the network loop on its own thread and reconnects by itself; this
module subscribes again after every connection, hands each message to the
event loop, and turns a QoS 1 publish into an awaitable that ends at the
broker's acknowledgement.

Requests must not fall between two connections. The session is clean on
the process's first connection and resumed on every reconnection (MQTT 5
session expiry, `SESSION_EXPIRY_S`), so requests published while the daemon
was away from a broker that stayed up are kept for it; and the daemon tries
again at least every `RECONNECT_MAX_S` while the broker is down, so after a
broker restart the window in which a request finds no subscriber (the broker
tells its sender so: PUBACK "No matching subscribers") stays short.

Incoming packets are bounded by the MQTT 5 maximum packet size the client
announces (four times the payload limit: a payload over the limit but under
that still arrives and is refused in words; a larger one the broker drops
instead of sending it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from mnemolis.mqtt_connection.link import configure_client, no_delay
from mnemolis.mqtt_connection.settings import BrokerSettings

log = logging.getLogger(__name__)

#: Room for the fixed header, topic and properties around a payload.
PACKET_OVERHEAD = 4096
#: Payloads up to this many times ``max_payload_bytes`` still arrive, to be refused in
#: words; the broker drops larger ones before they reach the daemon.
OVERSIZE_FACTOR = 4
#: How long the broker keeps the daemon's subscriptions and requests while it is away.
SESSION_EXPIRY_S = 300
#: The longest wait between two tries to reach a broker that is down.
RECONNECT_MAX_S = 1.0


@dataclass(frozen=True)
class Message:
    """One message as a front-end sees it."""

    topic: str
    payload: bytes
    retain: bool
    response_topic: str | None = None
    correlation_data: bytes | None = None


Handler = Callable[[Message], None]


@dataclass
class _Route:
    topics: tuple[str, ...]
    handler: Handler
    on_ready: Callable[[], None] | None
    subscribed: bool = False


class ServeMqtt:
    """One MQTT 5 client for the daemon's front-ends; `route` topics, then `start`."""

    def __init__(self, broker: BrokerSettings, max_payload_bytes: int) -> None:
        self.broker = broker
        self.max_payload_bytes = max_payload_bytes
        self.client_id = f"{broker.client_id}-serve-{os.getpid()}-{secrets.token_hex(3)}"
        self.connected = False
        self._routes: list[_Route] = []
        self._by_topic: dict[str, Handler] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: mqtt.Client | None = None
        self._pending: dict[int, asyncio.Future[bool]] = {}
        self._subscribe_mids: dict[int, _Route] = {}
        self._last_error: str | None = None
        self._closing = False

    @property
    def address(self) -> str:
        """Where the broker is, without credentials (for the listening lines)."""
        scheme = "mqtts" if self.broker.tls is not None else "mqtt"
        return f"{scheme}://{self.broker.host}:{self.broker.port}"

    def route(
        self, topics: tuple[str, ...], handler: Handler, on_ready: Callable[[], None] | None = None
    ) -> None:
        """Deliver messages on ``topics`` (exact topics) to ``handler`` on the event loop;
        ``on_ready`` runs each time the broker has confirmed the subscription."""
        route = _Route(topics, handler, on_ready)
        self._routes.append(route)
        for topic in topics:
            self._by_topic[topic] = handler

    async def start(self) -> None:
        """Start connecting in the background; a dead broker is retried, never raised."""
        self._loop = asyncio.get_running_loop()
        b = self.broker
        client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=MQTTProtocolVersion.MQTTv5,
        )
        configure_client(client, b)
        # paho's hints say int; it sleeps floats as well
        client.reconnect_delay_set(
            b.reconnect_min_s,  # type: ignore[arg-type]
            min(b.reconnect_max_s, RECONNECT_MAX_S),  # type: ignore[arg-type]
        )
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = lambda _c, _u: self._failed("cannot connect; retrying")
        client.on_subscribe = self._on_subscribe
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_socket_open = lambda _c, _u, sock: no_delay(sock)
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.MaximumPacketSize = self.max_payload_bytes * OVERSIZE_FACTOR + PACKET_OVERHEAD
        properties.SessionExpiryInterval = SESSION_EXPIRY_S
        self._client = client
        client.connect_async(
            b.host,
            b.port,
            b.keepalive,
            clean_start=mqtt.MQTT_CLEAN_START_FIRST_ONLY,
            properties=properties,
        )
        client.loop_start()

    async def close(self, timeout_s: float = 2.0) -> None:
        """Wait (boundedly) for answers still on their way, then disconnect."""
        client, self._client = self._client, None
        if client is None:
            return
        self._closing = True
        waiting = list(self._pending.values())
        if waiting:
            await asyncio.wait(waiting, timeout=timeout_s)
        client.disconnect()
        await asyncio.to_thread(client.loop_stop)
        for future in waiting:
            if not future.done():
                future.set_result(False)

    # ------------------------------------------------------------------ publishing

    async def publish(
        self,
        topic: str,
        payload: bytes,
        correlation_data: bytes | None = None,
        content_type: str = "application/json",
        timeout_s: float = 5.0,
    ) -> bool:
        """Publish at QoS 1; True once the broker acknowledged it within ``timeout_s``.

        While the broker is away paho keeps the message and sends it on reconnection."""
        client, loop = self._client, self._loop
        if client is None or loop is None:
            return False
        properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        properties.ContentType = content_type
        if correlation_data is not None:
            properties.CorrelationData = correlation_data
        # No lock here: paho calls on_publish holding its own locks, and taking one of ours
        # there against publish() here deadlocks. The acknowledgement reaches `_acked`
        # through the event loop, so it always runs after this registration.
        info = client.publish(topic, payload, qos=1, properties=properties)
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            log.warning("could not publish on %s: %s", topic, mqtt.error_string(info.rc))
            return False
        future: asyncio.Future[bool] = loop.create_future()
        self._pending[info.mid] = future
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            log.warning("the broker did not acknowledge an answer on %s in %g s", topic, timeout_s)
            return False
        finally:
            if self._pending.get(info.mid) is future:
                del self._pending[info.mid]

    # ------------------------------------------------------------------ paho's thread

    def _call(self, callback: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed since the check
            loop.call_soon_threadsafe(callback, *args)

    def _on_connect(
        self, client: mqtt.Client, _u: object, _f: object, reason: ReasonCode, _p: object
    ) -> None:
        if reason.is_failure:
            self._failed(f"the broker refused the connection: {reason}")
            return
        self.connected = True
        self._last_error = None
        log.info("front-ends connected to the MQTT broker %s as %s", self.address, self.client_id)
        for route in self._routes:
            route.subscribed = False
            options = SubscribeOptions(qos=1, noLocal=True)
            rc, mid = client.subscribe([(t, options) for t in route.topics])
            if rc == MQTTErrorCode.MQTT_ERR_SUCCESS and mid is not None:
                self._subscribe_mids[mid] = route

    def _on_disconnect(
        self, _c: object, _u: object, _f: object, reason: ReasonCode, _p: object
    ) -> None:
        if self.connected and not self._closing:
            log.warning(
                "front-ends lost the MQTT broker %s (%s); reconnecting", self.address, reason
            )
        self.connected = False

    def _on_subscribe(
        self, _c: object, _u: object, mid: int, reasons: list[ReasonCode], _p: object
    ) -> None:
        route = self._subscribe_mids.pop(mid, None)
        if route is None:
            return
        refused = [str(r) for r in reasons if r.is_failure]
        if refused:
            log.error(
                "the broker refused the subscription to %s: %s", ", ".join(route.topics), refused
            )
            return
        route.subscribed = True
        if route.on_ready is not None:
            self._call(route.on_ready)

    def _on_publish(self, _c: object, _u: object, mid: int, reason: ReasonCode, _p: object) -> None:
        self._call(self._acked, mid, not reason.is_failure)

    def _acked(self, mid: int, ok: bool) -> None:
        """On the event loop: the broker acknowledged the publish ``mid``."""
        future = self._pending.get(mid)
        if future is not None and not future.done():
            future.set_result(ok)

    def _on_message(self, _c: object, _u: object, msg: mqtt.MQTTMessage) -> None:
        handler = self._by_topic.get(msg.topic)
        if handler is None:
            return
        props = getattr(msg, "properties", None)
        response = getattr(props, "ResponseTopic", None)
        correlation = getattr(props, "CorrelationData", None)
        message = Message(
            msg.topic,
            bytes(msg.payload),
            bool(msg.retain),
            response if isinstance(response, str) else None,
            bytes(correlation) if isinstance(correlation, bytes | bytearray) else None,
        )
        self._call(handler, message)

    def _failed(self, reason: str) -> None:
        if reason != self._last_error:
            log.warning("MQTT broker %s: %s", self.address, reason)
        self._last_error = reason
