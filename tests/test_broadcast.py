"""Broadcasts ("tell everyone dinner is ready") said now through every front-end
announcements reach, on a real Mosquitto; "never mind" alone answered quietly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mnemolis.cli.main import main
from mnemolis.config import Config
from mnemolis.core.announce import Announcement, Announcer
from mnemolis.core.plan import Part
from mnemolis.demo.simulator import Simulator
from mnemolis.sources.base import Request, Status
from mnemolis.sources.broadcast.source import BroadcastSource
from tests.support_assistant import House, World, fixture_world
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.support_serve import ServeHome, fixture_serve_home, probe
from tests.test_ask_cli import home
from tests.test_serve_announcements import SERVE, on_thread, read_sse

__all__ = [
    "broker",
    "fixture_serve_home",
    "fixture_test_zims",
    "fixture_world",
    "home",
    "open_meteo",
]

SAY = "mnemolis/say"
TTS = "hermes/tts/say"
ANSWER = "mnemolis/answer"


def test_a_broadcast_goes_out_on_mnemolis_say_hermes_and_events(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exact JSON on mnemolis/say; every Hermes site, or the named area's only;
    every /events stream, another session's too."""
    from tests.support_serve_inprocess import in_process_daemon

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        async with in_process_daemon(serve_home, SERVE, monkeypatch) as running:
            base = f"http://127.0.0.1:{running.http_port}"
            with probe(serve_home, SAY, TTS, ANSWER) as client:
                async with (
                    aiohttp.ClientSession() as http,
                    http.get(f"{base}/events?session=someone-else") as other,
                ):
                    await other.content.readline()  # the stream's opening comment
                    ask = {"text": "broadcast dinner is ready", "session": "m1", "room": "hallway"}
                    client.publish("mnemolis/ask", json.dumps(ask))
                    got = [await on_thread(client.next) for _ in range(4)]
                    found["everywhere"] = got
                    found["sse"] = await read_sse(other)
                ask = {"text": "tell everyone we leave in five minutes in the kitchen"}
                client.publish("mnemolis/ask", json.dumps({**ask, "session": "m2"}))
                found["kitchen"] = [await on_thread(client.next) for _ in range(3)]
                found["quiet"] = await on_thread(client.nothing, 0.5)
        return found

    found = asyncio.run(scenario())
    everywhere = found["everywhere"]
    (said,) = [m.json() for m in everywhere if m.topic == SAY]
    assert said["id"].startswith("broadcast-")
    assert said == {
        "text": "dinner is ready",
        "kind": "broadcast",
        "id": said["id"],
        "session": "m1",
        "room": None,
        "site": None,
        "front_end": "broadcast",
        "due_at": 0.0,
        "late_s": 0.0,
        "data": {"area": None, "from_room": "hallway"},
    }
    tts = sorted((m.json()["siteId"], m.json()["text"]) for m in everywhere if m.topic == TTS)
    assert tts == [("hall-pi", "dinner is ready"), ("kitchen-pi", "dinner is ready")]
    (answer,) = [m.json() for m in everywhere if m.topic == ANSWER]
    assert answer["answer"] == "Done: I said 'dinner is ready' everywhere."
    kind, data = found["sse"]
    assert (kind, data["text"], data["kind"], data["id"]) == (
        "announcement",
        "dinner is ready",
        "broadcast",
        said["id"],
    )
    kitchen = {m.topic: m.json() for m in found["kitchen"]}
    assert (kitchen[SAY]["text"], kitchen[SAY]["room"]) == ("we leave in 5 minutes", "kitchen")
    assert (kitchen[TTS]["siteId"], kitchen[TTS]["text"]) == ("kitchen-pi", "we leave in 5 minutes")
    assert kitchen[ANSWER]["answer"] == "Done: I said 'we leave in 5 minutes' in the kitchen."
    assert found["quiet"], "the hallway's site heard nothing of the kitchen's broadcast"


def with_broadcasts(config: Config, folder: Path) -> Any:
    """The broadcast source on the house's announcer, and the routines source (replies)."""
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.routines import create as create_routines

    def more(mqtt: Any, announcer: Announcer) -> list[Any]:
        context = SourceContext(config, mqtt.registry, {}, folder, announcer=announcer)
        context.peers["mqtt"] = mqtt
        return [BroadcastSource(config, announcer), create_routines(context)]

    return more


def test_the_chat_hears_a_broadcast_and_never_mind_is_answered_quietly(world: World) -> None:
    heard: list[Announcement] = []

    async def scenario(house: House) -> None:
        house.assistant.announcer.subscribe(heard.append)
        answer = await house.ask("tell everyone dinner is ready")
        assert answer.text == "Done: I said 'dinner is ready' everywhere."
        assert [p.status for p in answer.parts] == [Status.DONE]
        assert [(a.text, a.kind, a.origin.room) for a in heard] == [
            ("dinner is ready", "broadcast", None)
        ]
        quiet = await house.ask("never mind")
        assert (quiet.text, [p.status for p in quiet.parts]) == ("OK.", [Status.OK])
        assert (await house.ask("forget about it")).text == "OK."
        await house.ask("unlock the front door")
        refused = await house.ask("never mind")  # answering a question, still a "no"
        assert refused.text == "All right, I did not unlock the front door."
        assert house.commands("front door") == []

    world.run(scenario, more=with_broadcasts(world.config, world.folder))


def test_nobody_listening_and_a_one_shot_ask_say_so(
    world: World, home: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    part = Part("broadcast hello", "broadcast.say", "broadcast", {"broadcast_message": "hello"})
    alone = BroadcastSource(world.config, Announcer())
    unheard = asyncio.run(alone.answer(part, Request()))
    assert (unheard.status, unheard.text) == (
        Status.ERROR,
        "I could not say 'hello': nothing that speaks is listening",
    )
    assert main(["ask", "broadcast", "dinner", "is", "ready"]) == 0
    assert capsys.readouterr().out == (
        "Broadcasts need Mnemolis to keep running: ask mnemolis serve or mnemolis chat.\n"
    )
