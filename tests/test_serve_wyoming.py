"""The Wyoming handle service of a running `mnemolis serve`, with the `wyoming` client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong

from mnemolis.serve.wyoming_service import session_of
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import ServeHome, ServeProcess, fixture_daemon, fixture_serve_home

__all__ = ["fixture_daemon", "fixture_serve_home", "fixture_test_zims"]


def exchange(daemon: ServeProcess, *events: Event) -> list[Event]:
    """Send ``events`` on one connection; one reply event to each."""

    async def talk() -> list[Event]:
        host, port = daemon.wyoming_address
        replies = []
        async with AsyncTcpClient(host, port, connect_timeout=5, read_timeout=10) as client:
            for event in events:
                await client.write_event(event)
                reply = await client.read_event()
                assert reply is not None, "the service closed the connection"
                replies.append(reply)
        return replies

    return asyncio.run(talk())


def say(text: str, context: dict[str, Any] | None = None) -> Event:
    return Transcript(text=text, context=context, language="en").event()


def test_describe_names_one_handle_program_and_the_voice_services(daemon: ServeProcess) -> None:
    (reply,) = exchange(daemon, Describe().event())
    assert Info.is_type(reply.type)
    info = Info.from_event(reply)
    (program,) = info.handle
    assert program.name == "mnemolis" and program.installed and program.supports_home_control
    assert [m.languages for m in program.models] == [["en"]]
    assert [p.name for p in info.asr] == [p.name for p in info.tts] == ["mnemolis"]


def test_a_transcript_is_handled_with_the_answer_and_its_context(daemon: ServeProcess) -> None:
    context = {"conversation_id": "01HXYZ", "device_id": "kitchen-satellite"}
    (reply,) = exchange(daemon, say("what time is it and who was ada lovelace", context))
    assert Handled.is_type(reply.type)
    handled = Handled.from_event(reply)
    assert handled.text is not None and handled.text.startswith("It's ")
    assert "mathematician" in handled.text
    assert handled.context == context


def test_nothing_understood_is_not_handled(daemon: ServeProcess) -> None:
    (reply,) = exchange(daemon, say("blah blah"))
    assert NotHandled.is_type(reply.type)
    assert NotHandled.from_event(reply).text == 'I didn\'t understand "blah blah".'


def test_the_conversation_id_carries_across_connections(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    context = {"conversation_id": "conv-42"}
    (on,) = exchange(daemon, say("turn on the bedroom light", context))
    (off,) = exchange(daemon, say("turn it off", context))
    assert Handled.is_type(on.type) and Handled.is_type(off.type)
    payloads = [c.payload for c in serve_home.simulator.received("bedroom light")]
    assert len(payloads) == 2 and '"ON"' in payloads[0] and '"OFF"' in payloads[1]


def test_without_context_the_connection_is_the_conversation(
    serve_home: ServeHome, daemon: ServeProcess
) -> None:
    serve_home.simulator.clear()
    _on, off = exchange(daemon, say("turn on the living room lamp"), say("turn it off"))
    (elsewhere,) = exchange(daemon, say("turn it off"))
    assert Handled.from_event(off).text is not None
    payloads = [c.payload for c in serve_home.simulator.received("living room lamp")]
    assert len(payloads) == 2 and '"OFF"' in payloads[1]
    assert (Handled.from_event(elsewhere).text or "").startswith("Which device")


def test_ping_is_answered_and_unknown_events_are_ignored(daemon: ServeProcess) -> None:
    async def talk() -> list[Event | None]:
        host, port = daemon.wyoming_address
        async with AsyncTcpClient(host, port, connect_timeout=5, read_timeout=10) as client:
            await client.write_event(Event(type="audio-start", data={"rate": 16000}))
            await client.write_event(Ping(text="hello").event())
            return [await client.read_event()]

    (reply,) = asyncio.run(talk())
    assert reply is not None and Pong.is_type(reply.type)
    assert Pong.from_event(reply).text == "hello"


@pytest.mark.parametrize(
    ("sent", "error"),
    [
        (b"this is not json\n", "an event header is not JSON"),
        (b'{"data": {}}\n', "an event has no type"),
        (
            json.dumps({"type": "transcript", "data_length": 10_000_000}).encode() + b"\n",
            "an event is over 65536 bytes",
        ),
        (b"x" * 70_000 + b"\n", "an event header is too long"),
    ],
)
def test_a_bad_event_gets_an_error_and_the_connection_closes(
    daemon: ServeProcess, sent: bytes, error: str
) -> None:
    async def talk() -> tuple[bytes, bytes]:
        host, port = daemon.wyoming_address
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(sent)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 5)
        rest = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        return line, rest

    line, rest = asyncio.run(talk())
    header = json.loads(line)
    assert header["type"] == "error"
    data = json.loads(rest[: header["data_length"]])
    assert Error.from_event(Event("error", data)) == Error(text=error, code="bad_event")


@pytest.mark.parametrize(
    ("context", "session"),
    [
        ({"conversation_id": "abc", "satellite_id": "sat"}, "wyoming:conversation:abc"),
        ({"satellite_id": "sat", "device_id": "dev"}, "wyoming:satellite:sat"),
        ({"device_id": 7}, "wyoming:device:7"),
        ({"conversation_id": ""}, "fallback"),
        ({"conversation_id": True}, "fallback"),
        (None, "fallback"),
        ("not a dict", "fallback"),
    ],
)
def test_the_session_of_a_transcript(context: Any, session: str) -> None:
    assert session_of(context, "fallback") == session
