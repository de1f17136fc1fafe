"""MQTT 3.1.1 and MQTT 5 packets as a client sends them, read the way the embedded
broker needs (``mqtt_encode.py`` writes the broker's own).

Only the broker side: it reads CONNECT, PUBLISH, PUBACK, PUBREC, PUBREL,
PUBCOMP, SUBSCRIBE, UNSUBSCRIBE, PINGREQ, DISCONNECT and AUTH. Every length
is checked against the bytes that are really there; anything that does not
add up raises `MalformedPacket`, which closes that one connection. MQTT 5
properties are kept as they came (identifier and encoded value), so a
response topic or correlation data reach a subscriber byte for byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

MQTT_311 = 4
MQTT_31 = 3
MQTT_5 = 5
VERSIONS = (MQTT_31, MQTT_311, MQTT_5)


class MalformedPacket(Exception):
    """The bytes are not a valid packet (or break the protocol): close the connection."""


class UnsupportedVersion(Exception):
    """A CONNECT of a protocol level the broker does not speak (it answers, then closes)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"MQTT protocol level {version} is not supported")
        self.version = version


class PacketType(IntEnum):
    CONNECT = 1
    CONNACK = 2
    PUBLISH = 3
    PUBACK = 4
    PUBREC = 5
    PUBREL = 6
    PUBCOMP = 7
    SUBSCRIBE = 8
    SUBACK = 9
    UNSUBSCRIBE = 10
    UNSUBACK = 11
    PINGREQ = 12
    PINGRESP = 13
    DISCONNECT = 14
    AUTH = 15


#: Packets whose fixed-header flags must be exactly 0b0010 (all others but PUBLISH: 0).
FLAGS_TWO = (PacketType.PUBREL, PacketType.SUBSCRIBE, PacketType.UNSUBSCRIBE)

# Reason codes the broker sends (MQTT 5; the 3.1.1 CONNACK codes are 1, 2 and 3).
REFUSED_VERSION_311 = 0x01
REFUSED_IDENTIFIER_311 = 0x02
SUBSCRIBE_FAILED_311 = 0x80
MALFORMED = 0x81
TAKEN_OVER = 0x8E
KEEPALIVE_TIMEOUT = 0x8D
BAD_FILTER = 0x8F
QUOTA_EXCEEDED = 0x97
TOO_LARGE = 0x95
NO_SHARED = 0x9E
NO_SUBSCRIPTION = 0x11
WITH_WILL = 0x04  # a client's DISCONNECT asking for its will to be sent

# MQTT 5 property identifiers the broker reads or writes.
PAYLOAD_FORMAT = 0x01
MESSAGE_EXPIRY = 0x02
CONTENT_TYPE = 0x03
RESPONSE_TOPIC = 0x08
CORRELATION_DATA = 0x09
SUBSCRIPTION_ID = 0x0B
ASSIGNED_CLIENT_ID = 0x12
RECEIVE_MAXIMUM = 0x21
TOPIC_ALIAS = 0x23
USER_PROPERTY = 0x26
MAXIMUM_PACKET_SIZE = 0x27
SHARED_SUBSCRIPTIONS = 0x2A
#: What a publisher's properties may carry on to subscribers; a topic alias or
#: subscription identifier belongs to one connection and is never forwarded.
FORWARDED = frozenset(
    {PAYLOAD_FORMAT, MESSAGE_EXPIRY, CONTENT_TYPE, RESPONSE_TOPIC, CORRELATION_DATA, USER_PROPERTY}
)


class Kind(IntEnum):
    """The type of a property's value (MQTT 5, section 2.2.2.2)."""

    BYTE = 0
    U16 = 1
    U32 = 2
    VARINT = 3
    TEXT = 4
    BINARY = 5
    PAIR = 6


_B, _2, _4, _V, _T, _BIN, _P = Kind  # short names, so the table reads as the spec's
#: MQTT 5, section 2.2.2.2: each property's identifier and the type of its value.
PROPERTY_KINDS = {
    0x01: _B, 0x02: _4, 0x03: _T, 0x08: _T, 0x09: _BIN, 0x0B: _V, 0x11: _4, 0x12: _T,
    0x13: _2, 0x15: _T, 0x16: _BIN, 0x17: _B, 0x18: _4, 0x19: _B, 0x1A: _T, 0x1C: _T,
    0x1F: _T, 0x21: _2, 0x22: _2, 0x23: _2, 0x24: _B, 0x25: _B, 0x26: _P, 0x27: _4,
    0x28: _B, 0x29: _B, 0x2A: _B,
}  # fmt: skip


# --------------------------------------------------------------------------- reading


@dataclass
class Reader:
    """A cursor over one packet's bytes; every read checks that the bytes exist."""

    data: bytes
    pos: int = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise MalformedPacket("a length points past the end of the packet")
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        value: int = struct.unpack("!H", self.take(2))[0]
        return value

    def u32(self) -> int:
        value: int = struct.unpack("!I", self.take(4))[0]
        return value

    def varint(self) -> int:
        value, shift = 0, 0
        for _ in range(4):
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
        raise MalformedPacket("a variable byte integer is longer than four bytes")

    def binary(self) -> bytes:
        return self.take(self.u16())

    def text(self) -> str:
        raw = self.binary()
        try:
            value = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedPacket("a string is not valid UTF-8") from exc
        if "\0" in value:
            raise MalformedPacket("a string contains U+0000")
        return value

    def rest(self) -> bytes:
        return self.take(len(self.data) - self.pos)

    def done(self) -> bool:
        return self.pos >= len(self.data)


@dataclass(frozen=True)
class Property:
    """One MQTT 5 property: its identifier, its value, and the value as it was encoded."""

    id: int
    value: int | str | bytes | tuple[str, str]
    raw: bytes


def read_properties(reader: Reader) -> list[Property]:
    length = reader.varint()
    inner = Reader(reader.take(length))
    found: list[Property] = []
    while not inner.done():
        ident = inner.varint()
        kind = PROPERTY_KINDS.get(ident)
        if kind is None:
            raise MalformedPacket(f"unknown property 0x{ident:02x}")
        start = inner.pos
        value: int | str | bytes | tuple[str, str]
        if kind == Kind.BYTE:
            value = inner.byte()
        elif kind == Kind.U16:
            value = inner.u16()
        elif kind == Kind.U32:
            value = inner.u32()
        elif kind == Kind.VARINT:
            value = inner.varint()
        elif kind == Kind.TEXT:
            value = inner.text()
        elif kind == Kind.BINARY:
            value = inner.binary()
        else:
            value = (inner.text(), inner.text())
        found.append(Property(ident, value, inner.data[start : inner.pos]))
    return found


def property_int(properties: list[Property], ident: int) -> int | None:
    for prop in properties:
        if prop.id == ident and isinstance(prop.value, int):
            return prop.value
    return None


# --------------------------------------------------------------------------- packets


@dataclass
class Will:
    topic: str
    payload: bytes
    qos: int
    retain: bool
    properties: list[Property] = field(default_factory=list)


@dataclass
class Connect:
    version: int
    client_id: str
    clean: bool
    keepalive: int
    will: Will | None = None
    username: str | None = None
    password: bytes | None = None
    properties: list[Property] = field(default_factory=list)


@dataclass
class Publish:
    topic: str
    payload: bytes
    qos: int = 0
    retain: bool = False
    dup: bool = False
    packet_id: int | None = None
    properties: list[Property] = field(default_factory=list)


@dataclass
class TopicFilter:
    """One entry of a SUBSCRIBE: the filter and its options byte, decoded."""

    filter: str
    qos: int
    no_local: bool = False
    retain_as_published: bool = False
    retain_handling: int = 0  # 0: send retained, 1: only if new, 2: never


@dataclass
class Subscribe:
    packet_id: int
    filters: list[TopicFilter]
    identifier: int | None = None


@dataclass
class Unsubscribe:
    packet_id: int
    filters: list[str]


@dataclass
class Acknowledgement:
    """PUBACK, PUBREC, PUBREL or PUBCOMP."""

    type: PacketType
    packet_id: int


@dataclass
class Disconnect:
    reason: int = 0


@dataclass
class Ping:
    pass


#: What a client may send once connected.
ClientPacket = Publish | Subscribe | Unsubscribe | Acknowledgement | Disconnect | Ping


def parse_connect(body: bytes) -> Connect:
    """CONNECT of MQTT 3.1, 3.1.1 or 5; raises `UnsupportedVersion` for others."""
    r = Reader(body)
    name = r.text()
    version = r.byte()
    if name not in ("MQTT", "MQIsdp"):
        raise MalformedPacket(f"unknown protocol name {name[:20]!r}")
    if version not in VERSIONS:
        raise UnsupportedVersion(version)
    flags = r.byte()
    if flags & 0x01:
        raise MalformedPacket("the reserved CONNECT flag is set")
    keepalive = r.u16()
    properties = read_properties(r) if version == MQTT_5 else []
    client_id = r.text()
    will = None
    will_qos = (flags >> 3) & 0x03
    if flags & 0x04:
        if will_qos > 2:
            raise MalformedPacket("the will QoS is 3")
        will_properties = read_properties(r) if version == MQTT_5 else []
        topic = r.text()
        check_topic(topic)
        will = Will(topic, r.binary(), will_qos, bool(flags & 0x20), will_properties)
    elif will_qos or flags & 0x20:
        raise MalformedPacket("will QoS or retain without a will")
    username = r.text() if flags & 0x80 else None
    password = r.binary() if flags & 0x40 else None
    if not r.done():
        raise MalformedPacket("bytes after the CONNECT payload")
    return Connect(
        version, client_id, bool(flags & 0x02), keepalive, will, username, password, properties
    )


def check_topic(topic: str) -> None:
    """A topic a message is published to: not empty, no wildcards."""
    if not topic or "+" in topic or "#" in topic:
        raise MalformedPacket(f"{topic[:60]!r} is not a topic one can publish to")


def filter_problem(topic_filter: str) -> str | None:
    """Why a subscription filter is invalid, or None when it is valid."""
    if not topic_filter:
        return "empty"
    levels = topic_filter.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return "'#' must be a whole last level"
        if "+" in level and level != "+":
            return "'+' must be a whole level"
    return None


def parse_packet(first: int, body: bytes, version: int) -> ClientPacket:
    """Any packet a client sends after CONNECT."""
    kind, flags = first >> 4, first & 0x0F
    try:
        ptype = PacketType(kind)
    except ValueError as exc:
        raise MalformedPacket(f"packet type {kind} is reserved") from exc
    if ptype is not PacketType.PUBLISH and flags != (0x02 if ptype in FLAGS_TWO else 0):
        raise MalformedPacket(f"{ptype.name} with flags {flags:#x}")
    r = Reader(body)
    if ptype is PacketType.PUBLISH:
        return _parse_publish(r, flags, version)
    if ptype in (PacketType.PUBACK, PacketType.PUBREC, PacketType.PUBREL, PacketType.PUBCOMP):
        packet_id = r.u16()
        if version == MQTT_5 and not r.done():  # reason code and properties: tolerated
            r.byte()
            if not r.done():
                read_properties(r)
        return Acknowledgement(ptype, packet_id)
    if ptype is PacketType.SUBSCRIBE:
        return _parse_subscribe(r, version)
    if ptype is PacketType.UNSUBSCRIBE:
        packet_id = r.u16()
        if version == MQTT_5:
            read_properties(r)
        filters = []
        while not r.done():
            filters.append(r.text())
        if not filters:
            raise MalformedPacket("UNSUBSCRIBE without a topic filter")
        return Unsubscribe(packet_id, filters)
    if ptype is PacketType.PINGREQ:
        return Ping()
    if ptype is PacketType.DISCONNECT:
        reason = r.byte() if version == MQTT_5 and not r.done() else 0
        if version == MQTT_5 and not r.done():
            read_properties(r)
        return Disconnect(reason)
    raise MalformedPacket(f"a client does not send {ptype.name}")


def _parse_publish(r: Reader, flags: int, version: int) -> Publish:
    qos = (flags >> 1) & 0x03
    if qos == 3:
        raise MalformedPacket("PUBLISH with QoS 3")
    if qos == 0 and flags & 0x08:
        raise MalformedPacket("DUP set on a QoS 0 PUBLISH")
    topic = r.text()
    packet_id = r.u16() if qos else None
    if packet_id == 0:
        raise MalformedPacket("packet identifier 0")
    properties = read_properties(r) if version == MQTT_5 else []
    if any(p.id == TOPIC_ALIAS for p in properties):
        raise MalformedPacket("a topic alias, which this broker never allowed")
    check_topic(topic)
    forwarded = [p for p in properties if p.id in FORWARDED]
    return Publish(
        topic, r.rest(), qos, bool(flags & 0x01), bool(flags & 0x08), packet_id, forwarded
    )


def _parse_subscribe(r: Reader, version: int) -> Subscribe:
    packet_id = r.u16()
    identifier = None
    if version == MQTT_5:
        identifier = property_int(read_properties(r), SUBSCRIPTION_ID)
        if identifier == 0:
            raise MalformedPacket("subscription identifier 0")
    filters = []
    while not r.done():
        topic_filter = r.text()
        options = r.byte()
        if options & 0xC0 or options & 0x03 == 3 or (version != MQTT_5 and options & 0xFC):
            raise MalformedPacket(f"subscription options {options:#x}")
        filters.append(
            TopicFilter(
                topic_filter,
                qos=options & 0x03,
                no_local=bool(options & 0x04),
                retain_as_published=bool(options & 0x08),
                retain_handling=(options >> 4) & 0x03,
            )
        )
    if not filters:
        raise MalformedPacket("SUBSCRIBE without a topic filter")
    return Subscribe(packet_id, filters, identifier)
