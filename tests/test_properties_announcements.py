"""Only words are spoken (issue 26, item 1), as properties.

Whatever stream of announcements and timer notices the sources make, for
requesters on any front-end, through the daemon's real router and its real
speaking front-ends (the MQTT API on ``mnemolis/say``, Hermes on
``hermes/tts/say``, the chat's printer), no say ever has an empty text, and
a timer's silent life reaches only the channels made for it (``/events``
as ``lifecycle``, a satellite's timer display).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.cli.chat import announcements
from mnemolis.core.announce import (
    KINDS,
    NOTICES,
    Announcement,
    Announcer,
    EmptyAnnouncement,
    TimerNotice,
)
from mnemolis.core.origin import Origin
from mnemolis.serve.announcements import Router
from mnemolis.serve.hermes import Hermes
from mnemolis.serve.http_events import EventStreams, _Listener
from mnemolis.serve.mqtt_api import MqttApi
from mnemolis.serve.settings import HermesSettings, Limits, MqttApiSettings

FRONT_ENDS = ("cli", "chat", "demo", "http", "mqtt", "hermes", "wyoming", "broadcast")
SITES = ("kitchen-pi", "hall-pi")


@dataclass
class Wire:
    """The daemon's MQTT connection, as the front-ends use it: every publish kept."""

    connected: bool = True
    address: str = "mqtt://127.0.0.1:1883"
    published: list[tuple[str, Any]] = field(default_factory=list)

    def route(self, *_args: Any) -> None:
        """The front-ends subscribe here; nothing is received in these properties."""

    async def publish(self, topic: str, payload: bytes, *_args: Any) -> bool:
        self.published.append((topic, json.loads(payload)))
        return True


@dataclass
class Display:
    """A satellite's timer display that may or may not be connected."""

    connected: bool
    shown: list[Any] = field(default_factory=list)

    def show(self, notice: TimerNotice) -> bool:
        self.shown.append(notice)
        return self.connected

    def speak(self, announcement: Announcement) -> bool:
        self.shown.append(announcement)
        return self.connected and announcement.kind == "timer"


origins = st.builds(
    Origin,
    front_end=st.sampled_from(FRONT_ENDS),
    session=st.sampled_from(("s1", "s2", "chat")),
    room=st.one_of(st.none(), st.sampled_from(("kitchen", "hallway", "attic"))),
    site=st.one_of(st.none(), st.sampled_from(SITES)),
)
words = st.text(min_size=1, max_size=40).filter(lambda text: text.strip() != "")
said = st.builds(
    Announcement,
    text=words,
    kind=st.sampled_from(KINDS),
    id=st.uuids().map(str),
    origin=origins,
)
notices = st.builds(
    TimerNotice,
    event=st.sampled_from(NOTICES),
    id=st.uuids().map(str),
    origin=origins,
    data=st.fixed_dictionaries({"total_seconds": st.integers(0, 10_000)}),
)


def front_ends(wire: Wire) -> tuple[MqttApi, Hermes]:
    limits = Limits()
    mqtt_api = MqttApi(None, wire, MqttApiSettings(), limits, None, lambda *_: None)  # type: ignore[arg-type]
    hermes_settings = HermesSettings(
        enabled=True, sites=(("kitchen-pi", "kitchen"), ("hall-pi", "hallway"))
    )
    hermes = Hermes(None, wire, hermes_settings, limits, lambda *_: None)  # type: ignore[arg-type]
    return mqtt_api, hermes


def route_all(items: list[Announcement | TimerNotice], satellite: bool) -> dict[str, Any]:
    """Through the real router and front-ends; what went out on each channel."""

    async def scenario() -> dict[str, Any]:
        announcer = Announcer()
        wire = Wire()
        events = EventStreams()
        monitor, session = _Listener(None), _Listener("s1")
        events._listeners.update({monitor, session})
        router = Router(announcer, events)
        mqtt_api, hermes = front_ends(wire)
        display = Display(satellite)
        router.add("mqtt", mqtt_api)
        router.add_area(mqtt_api)
        router.add("hermes", hermes)
        router.add_area(hermes)
        router.add("wyoming", display)
        router.add_display("wyoming", display)
        printed = io.StringIO()
        show: Callable[[Announcement], None] = announcements(False, False)
        announcer.subscribe(lambda a: _printing(show, a, printed))
        router.start()
        for item in items:
            if isinstance(item, Announcement):
                announcer.announce(item)
            else:
                announcer.notify(item)
        await asyncio.sleep(0)  # the router's hop onto the loop
        await asyncio.sleep(0)
        for front_end in (mqtt_api, hermes):
            await front_end.close()
        router.stop()
        streamed = [monitor.queue.get_nowait() for _ in range(monitor.queue.qsize())]
        return {
            "published": wire.published,
            "printed": printed.getvalue(),
            "streamed": streamed,
            "displayed": display.shown,
        }

    return asyncio.run(scenario())


def _printing(show: Callable[[Announcement], None], announcement: Announcement, out: io.StringIO) -> None:
    with contextlib.redirect_stdout(out):
        show(announcement)


@given(st.lists(st.one_of(said, notices), max_size=12), st.booleans())
def test_no_front_end_ever_gets_a_say_without_words(
    items: list[Announcement | TimerNotice], satellite: bool
) -> None:
    out = route_all(items, satellite)
    for topic, payload in out["published"]:
        assert topic in ("mnemolis/say", "hermes/tts/say")
        assert payload["text"].strip(), f"an empty say on {topic}: {payload}"
    spoken = [item for item in items if isinstance(item, Announcement)]
    assert out["printed"] == "".join(f"{a.text}\n" for a in spoken), (
        "the chat prints the words said, one line each, and nothing else"
    )
    assert all(isinstance(x, Announcement) or x.event in NOTICES for x in out["displayed"])
    texts = {payload["text"] for _topic, payload in out["published"]}
    assert texts <= {a.text for a in spoken}, "only an announcement's own words are said"
    assert out["streamed"] == items, "a monitor of /events sees everything, notices included"


@given(st.text(alphabet=" \t\n\r\u00a0\u2003", max_size=5), st.sampled_from(KINDS))
def test_an_announcement_without_words_cannot_be_made(text: str, kind: str) -> None:
    with pytest.raises(EmptyAnnouncement):
        Announcement(text, kind, "a1")
