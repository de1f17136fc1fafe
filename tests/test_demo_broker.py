"""The embedded MQTT broker, with real paho-mqtt clients (MQTT 3.1.1 and 5) and raw
sockets that misbehave."""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from mnemolis.demo.broker import BrokerThread, topic_matches
from mnemolis.demo.mqtt_packets import (
    MalformedPacket,
    UnsupportedVersion,
    parse_connect,
    parse_packet,
)
from tests.support_demo import (
    DISCONNECT,
    V5,
    V311,
    Client,
    RawClient,
    broker_with,
    clients,
    connect_packet,
    demo_broker,
    port_refuses,
    raw,
    remaining,
    subscribe_packet,
    v5_properties,
)

__all__ = ["clients", "demo_broker", "raw"]

Clients = Callable[..., Client]
Raws = Callable[..., RawClient]
VERSIONS = [V311, V5]
VERSION_IDS = ["3.1.1", "5"]


# ----------------------------------------------------------------- publish and subscribe


@pytest.mark.parametrize("publisher", VERSIONS, ids=VERSION_IDS)
@pytest.mark.parametrize("subscriber", VERSIONS, ids=VERSION_IDS)
@pytest.mark.parametrize("qos", [0, 1])
def test_a_message_reaches_a_subscriber(
    clients: Clients, publisher: int, subscriber: int, qos: int
) -> None:
    sub = clients(subscriber)
    assert sub.subscribe("home/kitchen_light", qos=1) == [1]
    pub = clients(publisher)
    pub.publish("home/kitchen_light", b'{"state": "ON"}', qos=qos)
    [got] = sub.expect(1)
    assert (got.topic, got.payload, got.qos, got.retain) == (
        "home/kitchen_light",
        b'{"state": "ON"}',
        qos,
        False,
    )


WILDCARDS = [
    ("home/+/set", ["home/lamp/set", "home/door/set"], ["home/set", "home/a/b/set", "home/lamp"]),
    ("home/#", ["home", "home/lamp", "home/lamp/set/x"], ["homes/lamp", "other/home"]),
    ("#", ["home/lamp", "a"], ["$SYS/broker/load"]),
    ("+/lamp", ["home/lamp", "/lamp"], ["home/lamp/set", "lamp"]),
    ("+/+", ["a/b", "/b", "a/"], ["a", "a/b/c"]),
    ("$SYS/#", ["$SYS/broker/load"], ["home/lamp"]),
    ("home/lamp", ["home/lamp"], ["home/lamp/", "Home/lamp"]),
]


@pytest.mark.parametrize(("topic_filter", "arrive", "not_arrive"), WILDCARDS)
def test_wildcards_with_real_clients(
    clients: Clients, topic_filter: str, arrive: list[str], not_arrive: list[str]
) -> None:
    sub = clients(V5)
    sub.subscribe(topic_filter)
    pub = clients(V311)
    for topic in not_arrive + arrive:
        pub.publish(topic, topic.encode())
    assert sorted(m.topic for m in sub.expect(len(arrive))) == sorted(arrive)
    assert sub.quiet()


@pytest.mark.parametrize(("topic_filter", "arrive", "not_arrive"), WILDCARDS)
def test_topic_matches_is_the_same_table(
    topic_filter: str, arrive: list[str], not_arrive: list[str]
) -> None:
    levels = tuple(topic_filter.split("/"))
    assert all(topic_matches(levels, t.split("/")) for t in arrive)
    assert not any(topic_matches(levels, t.split("/")) for t in not_arrive)


@pytest.mark.parametrize(
    ("topic_filter", "code"),
    [("home/#/set", 0x80), ("home/la+", 0x80), ("home/lamp#", 0x80), ("$share/g/home", 0x80),
     ("home/+", 0x01), ("#", 0x01)],
)  # fmt: skip
def test_invalid_filters_are_refused_in_the_suback(raw: Raws, topic_filter: str, code: int) -> None:
    """paho refuses to send such filters, so a raw socket does."""
    client = raw()
    client.send(connect_packet("filters"))
    assert client.read(4) == bytes([0x20, 2, 0, 0])
    client.send(subscribe_packet(topic_filter, packet_id=7)[:-1] + bytes([1]))
    assert client.read(5) == bytes([0x90, 3, 0, 7, code])


def test_unsubscribe_stops_delivery(clients: Clients) -> None:
    sub, pub = clients(V311), clients(V5)
    sub.subscribe("home/#")
    pub.publish("home/a", b"1")
    sub.expect(1)
    sub.unsubscribe("home/#")
    pub.publish("home/a", b"2")
    assert sub.quiet()


def test_overlapping_subscriptions_deliver_one_copy(clients: Clients) -> None:
    sub, pub = clients(V311), clients(V311)
    sub.subscribe("home/#", qos=0)
    sub.subscribe("home/+", qos=1)
    pub.publish("home/a", b"x", qos=1)
    [got] = sub.expect(1)
    assert got.qos == 1
    assert sub.quiet()


# ----------------------------------------------------------------- retained messages


@pytest.mark.parametrize("version", VERSIONS, ids=VERSION_IDS)
def test_retained_message_is_sent_to_a_later_subscriber(clients: Clients, version: int) -> None:
    pub = clients(V311)
    pub.publish("home/lamp", b"old", retain=True)
    pub.publish("home/lamp", b"new", retain=True)
    pub.publish("home/door", b"LOCKED", retain=True)
    sub = clients(version)
    sub.subscribe("home/+")
    got = {m.topic: m for m in sub.expect(2)}
    assert got["home/lamp"].payload == b"new"
    assert got["home/lamp"].retain and got["home/door"].retain
    pub.publish("home/lamp", b"live", retain=True)
    [live] = sub.expect(1)
    assert (live.payload, live.retain) == (b"live", False)  # an established subscription


def test_an_empty_retained_message_clears_the_topic(
    clients: Clients, demo_broker: BrokerThread
) -> None:
    pub = clients(V311)
    pub.publish("homeassistant/light/x/config", b"{}", retain=True)
    pub.publish("homeassistant/light/x/config", b"", retain=True)
    sub = clients(V5)
    sub.subscribe("homeassistant/#")
    assert sub.quiet()
    assert demo_broker.broker.retained_topics == []


def test_retain_as_published_and_retain_handling(clients: Clients) -> None:
    pub = clients(V311)
    pub.publish("home/a", b"kept", retain=True)
    never = clients(V5)
    never.subscribe("home/a", retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)
    assert never.quiet()
    as_published = clients(V5)
    as_published.subscribe("home/a", retainAsPublished=True)
    assert as_published.expect(1)[0].retain
    pub.publish("home/a", b"again", retain=True)
    assert as_published.expect(1)[0].retain  # kept its flag, though the subscription is old


# ----------------------------------------------------------------- QoS and MQTT 5


def test_qos1_keeps_order_and_loses_nothing(clients: Clients) -> None:
    sub = clients(V5)
    sub.subscribe("load/#")
    pub = clients(V311)
    count = 300
    infos = [pub.paho.publish("load/x", str(i).encode(), qos=1) for i in range(count)]
    for info in infos:
        info.wait_for_publish(5)
    got = sub.expect(count)
    assert [int(m.payload) for m in got] == list(range(count))
    assert {m.qos for m in got} == {1}


def test_qos2_publish_is_delivered_once_at_qos1(clients: Clients) -> None:
    sub = clients(V311)
    sub.subscribe("home/a", qos=1)
    clients(V5).publish("home/a", b"once", qos=2)
    [got] = sub.expect(1)
    assert (got.payload, got.qos) == (b"once", 1)
    assert sub.quiet()


def test_mqtt5_properties_reach_v5_subscribers_untouched(clients: Clients) -> None:
    v5_sub, v3_sub = clients(V5), clients(V311)
    v5_sub.subscribe("mnemolis/ask")
    v3_sub.subscribe("mnemolis/ask")
    props = v5_properties(
        ResponseTopic="satellite/kitchen/answer",
        CorrelationData=b"\x00\x01req-7",
        UserProperty=[("site", "kitchen")],
    )
    clients(V5).publish("mnemolis/ask", b"turn on the lamp", properties=props)
    [five] = v5_sub.expect(1)
    assert five.response_topic == "satellite/kitchen/answer"
    assert five.correlation_data == b"\x00\x01req-7"
    assert five.user_properties == [("site", "kitchen")]
    [three] = v3_sub.expect(1)
    assert (three.payload, three.response_topic) == (b"turn on the lamp", None)


def test_no_local_keeps_a_v5_client_from_hearing_itself(clients: Clients) -> None:
    talker = clients(V5)
    talker.subscribe("room/chat", noLocal=True)
    listener = clients(V5)
    listener.subscribe("room/chat")
    talker.publish("room/chat", b"hello")
    assert listener.expect(1)[0].payload == b"hello"
    assert talker.quiet()


def test_subscription_identifier_is_sent_back(clients: Clients) -> None:
    sub = clients(V5)
    props = Properties(PacketTypes.SUBSCRIBE)
    props.SubscriptionIdentifier = 42
    _rc, mid = sub.paho.subscribe("ids/#", qos=1, properties=props)
    assert mid is not None
    sub._wait_ack(mid)
    clients(V311).publish("ids/a", b"x")
    assert sub.expect(1)[0].subscription_ids == [42]


# ----------------------------------------------------------------- many clients


def test_many_clients_each_get_their_own_and_the_broadcast(clients: Clients) -> None:
    count = 40
    subs = []
    for i in range(count):
        sub = clients(V5 if i % 2 else V311)
        sub.subscribe(f"device/{i}/set")
        sub.subscribe("broadcast")
        subs.append(sub)
    pub = clients(V311)
    pub.publish("broadcast", b"all")
    for i in range(count):
        pub.publish(f"device/{i}/set", str(i).encode())
    for i, sub in enumerate(subs):
        got = sub.expect(2)
        assert sorted(m.payload for m in got) == sorted([b"all", str(i).encode()])


def test_the_same_client_id_takes_over(demo_broker: BrokerThread) -> None:
    first = Client(demo_broker, V311, client_id="kitchen-satellite").connect()
    second = Client(demo_broker, V5, client_id="kitchen-satellite").connect()
    try:
        assert first.disconnected.wait(5)
        assert demo_broker.broker.client_ids == ["kitchen-satellite"]
        second.subscribe("a")
        second.publish("a", b"still here")
        second.expect(1)
    finally:
        first.close()
        second.close()


def test_connections_over_the_limit_are_refused() -> None:
    broker = broker_with(max_clients=3)
    made = []
    try:
        made = [Client(broker).connect() for _ in range(3)]
        extra = RawClient(broker)
        assert extra.closed_by_broker()
        extra.close()
        assert broker.stats.refused == 1
    finally:
        for client in made:
            client.close()
        broker.stop()


# ----------------------------------------------------------------- wills and keepalive


def test_a_will_is_published_when_a_client_vanishes(clients: Clients, raw: Raws) -> None:
    sub = clients(V311)
    sub.subscribe("devices/+/status")
    vanishing = raw()
    vanishing.send(connect_packet("plug", will=("devices/plug/status", b"offline")))
    assert vanishing.read(4) == bytes([0x20, 2, 0, 0])
    vanishing.close()  # no DISCONNECT
    [got] = sub.expect(1)
    assert (got.topic, got.payload) == ("devices/plug/status", b"offline")


def test_no_will_after_a_clean_disconnect(clients: Clients, raw: Raws) -> None:
    sub = clients(V311)
    sub.subscribe("devices/+/status")
    polite = raw()
    polite.send(connect_packet("plug", will=("devices/plug/status", b"offline")))
    polite.read(4)
    polite.send(DISCONNECT)
    assert polite.closed_by_broker()
    assert sub.quiet(0.3)


def test_a_silent_client_is_dropped_after_its_keepalive(
    clients: Clients, raw: Raws, demo_broker: BrokerThread
) -> None:
    sub = clients(V5)
    sub.subscribe("devices/+/status")
    silent = raw()
    silent.send(connect_packet("sleepy", keepalive=1, will=("devices/sleepy/status", b"gone")))
    silent.read(4)
    started = time.monotonic()
    assert silent.closed_by_broker(timeout_s=5)
    assert time.monotonic() - started >= 1.0
    assert sub.expect(1)[0].payload == b"gone"
    assert demo_broker.stats.expired == 1


def test_pingreq_keeps_a_client_alive(raw: Raws) -> None:
    client = raw()
    client.send(connect_packet("pinger", keepalive=1))
    client.read(4)
    for _ in range(3):
        time.sleep(0.5)
        client.send(bytes([0xC0, 0]))
        assert client.read(2) == bytes([0xD0, 0])


# ----------------------------------------------------------------- misbehaving clients

SUBSCRIBED = connect_packet("bad") + subscribe_packet("x")
MISBEHAVIOUR = [
    ("garbage", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("publish before connect", bytes([0x30, 5, 0, 1, ord("a"), ord("h"), ord("i")])),
    ("remaining length of five bytes", bytes([0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])),
    ("unknown protocol name", connect_packet("bad", name="HTTP")),
    ("reserved connect flag", connect_packet("bad")[:9] + b"\x03" + connect_packet("bad")[10:]),
    ("string longer than the packet", bytes([0x10, 4, 0, 200, ord("M"), ord("Q")])),
    ("second connect", connect_packet("bad") + connect_packet("bad")),
    ("publish with qos 3", connect_packet("bad") + bytes([0x36, 5, 0, 1, ord("a"), 0, 1])),
    (
        "wildcard in a publish topic",
        connect_packet("bad") + bytes([0x30, 4, 0, 2, ord("a"), ord("#")]),
    ),
    (
        "subscribe with wrong flags",
        connect_packet("bad") + bytes([0x80]) + subscribe_packet("x")[1:],
    ),
    ("subscribe without a filter", connect_packet("bad") + bytes([0x82, 2, 0, 1])),
    ("reserved packet type", SUBSCRIBED + bytes([0x00, 0])),
    ("invalid utf-8 topic", connect_packet("bad") + bytes([0x30, 5, 0, 2, 0xC3, 0x28, ord("x")])),
    ("nul in a topic", connect_packet("bad") + bytes([0x30, 5, 0, 2, ord("a"), 0, ord("x")])),
]


@pytest.mark.parametrize("data", [m[1] for m in MISBEHAVIOUR], ids=[m[0] for m in MISBEHAVIOUR])
def test_a_misbehaving_client_is_closed_and_others_carry_on(
    clients: Clients, raw: Raws, demo_broker: BrokerThread, data: bytes
) -> None:
    good = clients(V311)
    good.subscribe("still/working")
    bad = raw()
    bad.send(data)
    assert bad.closed_by_broker()
    good.publish("still/working", b"yes")
    assert good.expect(1)[0].payload == b"yes"
    assert demo_broker.stats.malformed == 1


def test_a_client_that_never_sends_connect_is_closed() -> None:
    broker = broker_with(connect_timeout_s=0.3)
    try:
        mute = RawClient(broker)
        mute.send(connect_packet("mute")[:5])  # half a CONNECT, then nothing
        assert mute.closed_by_broker()
        mute.close()
        assert broker.stats.expired == 1
    finally:
        broker.stop()


def test_an_unsupported_protocol_level_gets_a_connack_refusal(raw: Raws) -> None:
    client = raw()
    client.send(connect_packet("old", level=6))
    assert client.read(4) == bytes([0x20, 2, 0, 1])
    assert client.closed_by_broker()


def test_a_packet_over_the_size_limit_closes_only_that_connection() -> None:
    broker = broker_with(max_packet_bytes=1024)
    good = Client(broker).connect()
    try:
        good.subscribe("big")
        big = RawClient(broker)
        big.send(connect_packet("big"))
        big.read(4)
        payload = b"x" * 2000
        body = struct.pack("!H", 3) + b"big" + payload
        big.send(bytes([0x30]) + remaining(len(body)) + body)
        assert big.closed_by_broker()
        big.close()
        good.publish("big", b"small")
        assert good.expect(1)[0].payload == b"small"
        assert broker.stats.malformed == 1
    finally:
        good.close()
        broker.stop()


def test_a_client_that_does_not_read_is_dropped() -> None:
    broker = broker_with(max_buffered_bytes=256 * 1024)
    publisher = Client(broker).connect()
    try:
        stuck = RawClient(broker, receive_buffer=4096)
        stuck.send(connect_packet("stuck") + subscribe_packet("flood/#"))
        time.sleep(0.1)
        chunk = b"y" * 60_000
        for _ in range(400):
            publisher.publish("flood/x", chunk, qos=0)
            if broker.stats.slow:
                break
        deadline = time.monotonic() + 5
        while not broker.stats.slow and time.monotonic() < deadline:
            time.sleep(0.02)
        assert broker.stats.slow == 1
        assert stuck.closed_by_broker()
        stuck.close()
        listener = Client(broker).connect()
        listener.subscribe("after")
        publisher.publish("after", b"fine")
        assert listener.expect(1)[0].payload == b"fine"
        listener.close()
    finally:
        publisher.close()
        broker.stop()


# ----------------------------------------------------------------- life


def test_stop_ends_the_thread_and_frees_the_port() -> None:
    before = {t.name for t in threading.enumerate()}
    broker = BrokerThread().start()
    client = Client(broker).connect()
    host, port = broker.host, broker.port
    assert port != 1883 and not port_refuses(host, port)
    broker.stop()
    assert client.disconnected.wait(5)
    client.close()
    assert port_refuses(host, port)
    assert {t.name for t in threading.enumerate()} == before


def test_two_brokers_run_side_by_side_on_their_own_ports() -> None:
    with BrokerThread() as one, BrokerThread() as two:
        assert one.port != two.port
        a, b = Client(one).connect(), Client(two).connect()
        try:
            a.subscribe("x")
            b.publish("x", b"elsewhere")
            assert a.quiet()
        finally:
            a.close()
            b.close()


# ----------------------------------------------------------------- any bytes at all


@given(first=st.integers(0, 255), body=st.binary(max_size=300), version=st.sampled_from([4, 5]))
def test_any_packet_is_parsed_or_refused_as_malformed(
    first: int, body: bytes, version: int
) -> None:
    """The codec never fails any other way: what it cannot read closes one connection."""
    try:
        packet = parse_packet(first, body, version)
    except MalformedPacket:
        return
    assert type(packet).__name__ in CLIENT_PACKETS


CLIENT_PACKETS = {"Publish", "Subscribe", "Unsubscribe", "Acknowledgement", "Disconnect", "Ping"}


@given(body=st.binary(max_size=300))
def test_any_connect_is_parsed_or_refused(body: bytes) -> None:
    try:
        connect = parse_connect(b"\x00\x04MQTT\x05" + body)
    except (MalformedPacket, UnsupportedVersion):
        return
    assert connect.version == 5 and isinstance(connect.client_id, str)


@settings(max_examples=25, deadline=None)
@given(junk=st.binary(min_size=1, max_size=200))
def test_junk_after_connect_never_stops_the_broker(junk: bytes) -> None:
    with BrokerThread() as broker:
        bad = RawClient(broker)
        bad.send(connect_packet("junk") + junk)
        good = Client(broker).connect()
        try:
            good.subscribe("alive")
            good.publish("alive", b"yes")
            assert good.expect(1)[0].payload == b"yes"
        finally:
            good.close()
            bad.close()
