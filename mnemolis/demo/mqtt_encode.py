"""MQTT 3.1.1 and MQTT 5 packets as the embedded broker writes them: CONNACK,
PUBLISH (a message passed on), the acknowledgements, SUBACK, UNSUBACK,
PINGRESP and (MQTT 5) DISCONNECT with its reason. The packets it reads are
in ``mqtt_packets.py``; properties pass through as they were encoded.
"""

from __future__ import annotations

import struct

from mnemolis.demo.mqtt_packets import (
    FLAGS_TWO,
    MQTT_5,
    PROPERTY_KINDS,
    SUBSCRIPTION_ID,
    Kind,
    PacketType,
    Property,
    Publish,
)


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def encode_text(value: str) -> bytes:
    raw = value.encode("utf-8")
    return struct.pack("!H", len(raw)) + raw


def encode_properties(properties: list[Property]) -> bytes:
    body = b"".join(encode_varint(p.id) + p.raw for p in properties)
    return encode_varint(len(body)) + body


def make_property(ident: int, value: int | str) -> Property:
    """A property the broker itself sends (CONNACK, forwarded subscription ids)."""
    kind = PROPERTY_KINDS[ident]
    if isinstance(value, str):
        raw = encode_text(value)
    elif kind == Kind.BYTE:
        raw = bytes([value])
    elif kind == Kind.U16:
        raw = struct.pack("!H", value)
    elif kind == Kind.U32:
        raw = struct.pack("!I", value)
    else:
        raw = encode_varint(value)
    return Property(ident, value, raw)


def packet(ptype: PacketType, body: bytes = b"", flags: int = 0) -> bytes:
    return bytes([ptype << 4 | flags]) + encode_varint(len(body)) + body


def connack(version: int, code: int, properties: list[Property] | None = None) -> bytes:
    """Session present is always 0: every session is clean."""
    body = bytes([0, code])
    if version == MQTT_5:
        body += encode_properties(properties or [])
    return packet(PacketType.CONNACK, body)


def publish(
    message: Publish,
    version: int,
    qos: int,
    retain: bool,
    packet_id: int | None,
    subscription_ids: list[int] | None = None,
) -> bytes:
    body = encode_text(message.topic)
    if qos:
        assert packet_id is not None
        body += struct.pack("!H", packet_id)
    if version == MQTT_5:
        ids = [make_property(SUBSCRIPTION_ID, i) for i in subscription_ids or []]
        body += encode_properties(message.properties + ids)
    flags = qos << 1 | int(retain)
    return packet(PacketType.PUBLISH, body + message.payload, flags)


def acknowledgement(ptype: PacketType, packet_id: int) -> bytes:
    """PUBACK, PUBREC, PUBREL or PUBCOMP with success (the short form of both versions)."""
    return packet(ptype, struct.pack("!H", packet_id), 0x02 if ptype in FLAGS_TWO else 0)


def suback(version: int, packet_id: int, codes: list[int]) -> bytes:
    body = struct.pack("!H", packet_id)
    if version == MQTT_5:
        body += encode_properties([])
    return packet(PacketType.SUBACK, body + bytes(codes))


def unsuback(version: int, packet_id: int, codes: list[int]) -> bytes:
    body = struct.pack("!H", packet_id)
    if version == MQTT_5:
        body += encode_properties([]) + bytes(codes)
    return packet(PacketType.UNSUBACK, body)


def disconnect(reason: int) -> bytes:
    """MQTT 5 only: the server says why it closes the connection."""
    return packet(PacketType.DISCONNECT, bytes([reason]))


PINGRESP = packet(PacketType.PINGRESP)
