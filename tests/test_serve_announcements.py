"""Where a request comes from, and announcements going back there, through the daemon's
real front-ends on a real Mosquitto. The producer (the timers source, another branch's)
is stood in for by announcing into the daemon's announcer directly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.core.origin import Origin
from mnemolis.serve.wyoming_events import event_bytes
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import MqttProbe, ServeHome, fixture_serve_home, http_call, probe
from tests.support_serve_inprocess import InProcess, in_process_daemon

__all__ = ["fixture_serve_home", "fixture_test_zims"]

SERVE = """
hermes:
  sites: {kitchen-pi: kitchen, hall-pi: hallway}
wyoming:
  areas: {sat-living: Living Room}
"""
SAY = "mnemolis/say"
TTS = "hermes/tts/say"


class Wyoming:
    """A raw Wyoming peer: events out, events in."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, kind: str, **data: Any) -> None:
        from wyoming.event import Event

        self.writer.write(event_bytes(Event(kind, data)))
        await self.writer.drain()

    async def receive(self, timeout_s: float = 10.0) -> tuple[str, dict[str, Any]]:
        header = json.loads(await asyncio.wait_for(self.reader.readline(), timeout_s))
        data = header.get("data") or {}
        if header.get("data_length"):
            data.update(json.loads(await self.reader.readexactly(header["data_length"])))
        return header["type"], data


@asynccontextmanager
async def wyoming(running: InProcess) -> AsyncIterator[Wyoming]:
    reader, writer = await asyncio.open_connection(*running.wyoming_address)
    try:
        yield Wyoming(reader, writer)
    finally:
        writer.close()


async def on_thread(call: Any, *args: Any) -> Any:
    return await asyncio.to_thread(call, *args)


def nothing_more(client: MqttProbe) -> bool:
    return client.nothing(0.3)


def test_every_front_end_says_where_a_request_comes_from(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12, item 3: HTTP's and MQTT's "room", Hermes' siteId by hermes.sites,
    Wyoming's satellite_id by wyoming.areas or the area a satellite named itself."""

    async def scenario() -> list[tuple[str, Origin]]:
        async with in_process_daemon(serve_home, SERVE, monkeypatch) as running:
            body = {"text": "what time is it", "session": "k1", "room": "Kitchen"}
            await on_thread(http_call, running.http_port, "POST", "/ask", body)
            with probe(serve_home, "mnemolis/answer", TTS) as client:
                ask = {"text": "what day is it", "session": "m1", "room": "hallway"}
                client.publish("mnemolis/ask", json.dumps(ask))
                await on_thread(client.next)
                said = {"text": "what time is it", "siteId": "kitchen-pi", "sessionId": "h1"}
                client.publish("hermes/asr/textCaptured", json.dumps(said))
                await on_thread(client.next)
            async with wyoming(running) as peer:
                context = {"conversation_id": "c-9", "satellite_id": "sat-living"}
                await peer.send("transcript", text="what time is it", context=context)
                await peer.receive()
            async with wyoming(running) as satellite:
                await satellite.send("info", satellite={"name": "den", "area": "Den"})
                await satellite.send("transcript", text="what day is it")
                await satellite.receive()
            return running.asked

    asked = asyncio.run(scenario())
    origins = [origin for _, origin in asked]
    assert origins[0] == Origin("http", "http:k1", "kitchen")  # each front-end's own sessions
    assert origins[1] == Origin("mqtt", "mqtt:m1", "hallway")
    assert origins[2] == Origin("hermes", "hermes:kitchen-pi", "kitchen", "kitchen-pi")
    assert origins[3] == Origin("wyoming", "wyoming:conversation:c-9", "living room", "sat-living")
    assert (origins[4].front_end, origins[4].room) == ("wyoming", "den")


def announcement(text: str, origin: Origin, kind: str = "reminder", **data: Any) -> Announcement:
    return Announcement(text, kind, f"a-{abs(hash(text)) % 10_000}", origin, data=data)


def test_announcements_go_back_the_way_the_request_came(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14, item 4: mnemolis/say, hermes/tts/say, /events, Wyoming timer events;
    and, when the requester cannot be reached, the area's."""

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with in_process_daemon(serve_home, SERVE, monkeypatch) as running:
            announcer = running.daemon.announcer
            base = f"http://127.0.0.1:{running.http_port}"
            with probe(serve_home, SAY, TTS) as client:
                # sessions as the front-ends key them; clients see them as they named them
                announcer.announce(announcement("Call mom.", Origin("mqtt", "mqtt:m1", "hallway")))
                found["mqtt"] = (await on_thread(client.next)).json()
                found["mqtt_only"] = await on_thread(nothing_more, client)
                hermes = Origin("hermes", "hermes:hall-pi", "hallway", "hall-pi")
                announcer.announce(announcement("Tea is ready.", hermes))
                found["hermes"] = await on_thread(client.next)
                async with (
                    aiohttp.ClientSession() as http,
                    http.get(f"{base}/events?session=web-1") as mine,
                    http.get(f"{base}/events") as every,
                ):
                    await mine.content.readline()  # the stream's opening comment
                    await every.content.readline()
                    web = Origin("http", "http:web-1", "kitchen")
                    announcer.announce(announcement("Your timer is done.", web, "timer"))
                    found["sse"] = await read_sse(mine)
                    found["sse_all"] = await read_sse(every)
                    found["sse_only"] = await on_thread(nothing_more, client)
                    started = TimerNotice("started", "t-60", web, data={"total_seconds": 60})
                    announcer.notify(started)
                    found["lifecycle"] = await read_sse(every)
                # nobody listens for this one: it is said in its area instead
                gone = Origin("cli", "cli:abc", "kitchen")
                announcer.announce(announcement("The oven is hot.", gone))
                fallback = [await on_thread(client.next), await on_thread(client.next)]
                found["fallback"] = {m.topic: m.json() for m in fallback}
        return found

    found = asyncio.run(scenario())
    said = found["mqtt"]
    assert {k: said[k] for k in ("text", "kind", "session", "room", "front_end")} == {
        "text": "Call mom.",
        "kind": "reminder",
        "session": "m1",
        "room": "hallway",
        "front_end": "mqtt",
    }
    assert said["id"] and {"due_at", "late_s", "data", "site"} <= set(said)
    assert found["mqtt_only"]
    hermes = found["hermes"]
    assert hermes.topic == TTS
    assert (hermes.json()["text"], hermes.json()["siteId"]) == ("Tea is ready.", "hall-pi")
    kind, data = found["sse"]
    assert (kind, data["text"], data["session"], data["room"]) == (
        "announcement",
        "Your timer is done.",
        "web-1",
        "kitchen",
    )
    assert found["sse_all"] == found["sse"]
    assert found["sse_only"], "an announcement its requester heard also went to MQTT"
    assert found["lifecycle"][0] == "lifecycle"
    assert found["lifecycle"][1]["data"]["event"] == "started"
    fallback = found["fallback"]
    assert fallback[SAY]["room"] == "kitchen" and fallback[SAY]["text"] == "The oven is hot."
    assert (fallback[TTS]["siteId"], fallback[TTS]["text"]) == ("kitchen-pi", "The oven is hot.")


async def read_sse(response: aiohttp.ClientResponse) -> tuple[str, dict[str, Any]]:
    """The next event of a Server-Sent Events stream: its type and its JSON."""
    kind, data = "", ""
    while True:
        line = (await asyncio.wait_for(response.content.readline(), 10)).decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            return kind, json.loads(data)


def test_a_satellite_hears_its_timers_and_a_reload_loses_no_announcement(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wyoming timer events to a connected satellite; Home Assistant's closed connection
    falls back to the area; the announcer outlives a reload."""

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with in_process_daemon(serve_home, SERVE, monkeypatch) as running:
            announcer = running.daemon.announcer
            with probe(serve_home, SAY) as client:
                async with wyoming(running) as satellite:
                    await satellite.send("info", satellite={"area": "kitchen"})
                    context = {"satellite_id": "sat-k"}
                    await satellite.send("transcript", text="what time is it", context=context)
                    await satellite.receive()
                    origin = running.asked[-1][1]
                    started = TimerNotice(
                        "started", "t-tea", origin, data={"total_seconds": 90, "name": "tea"}
                    )
                    announcer.notify(started)
                    found["started"] = await satellite.receive()
                    announcer.announce(announcement("Your tea timer is done.", origin, "timer"))
                    found["finished"] = await satellite.receive()
                    found["quiet"] = await on_thread(nothing_more, client)
                    # a reminder is no timer event: said in the satellite's area instead
                    announcer.announce(announcement("Take the cake out.", origin))
                    found["reminder"] = (await on_thread(client.next)).json()
                status, body, _ = await on_thread(http_call, running.http_port, "POST", "/reload")
                found["reload"] = (status, body["reloaded"])
                found["same"] = running.daemon.assistant.announcer is announcer
                ha = Origin("wyoming", "wyoming:conversation:x", "living room", "sat-living")
                announcer.announce(announcement("Your pasta timer is done.", ha, "timer"))
                found["after_reload"] = (await on_thread(client.next)).json()
        return found

    found = asyncio.run(scenario())
    kind, data = found["started"]
    assert kind == "timer-started"
    assert (data["total_seconds"], data["name"], data["start_minutes"]) == (90, "tea", 1)
    assert found["finished"][0] == "timer-finished"
    assert found["quiet"], "the satellite heard it: nothing more on mnemolis/say"
    assert (found["reminder"]["text"], found["reminder"]["room"]) == (
        "Take the cake out.",
        "kitchen",
    )
    assert found["reload"] == (200, True) and found["same"]
    assert found["after_reload"]["text"] == "Your pasta timer is done."
    assert found["after_reload"]["room"] == "living room"
