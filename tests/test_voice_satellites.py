"""The daemon drives real wyoming-satellite processes as Home Assistant does: a request
rendered by espeak-ng plays through a satellite's microphone command, the daemon hears
the wake word and the request, acts in the satellite's area and the satellite's speaker
command receives the spoken answer; a timer set there rings there; a question is
followed up without the wake word; a satellite that restarts is reconnected to; one that
is down has its announcements said at its fallback. Real pocketsphinx (a grammar of the
sentences these tests say, until the personalised recogniser lands), real wake word, real
espeak-ng."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from wyoming.asr import Transcript
from wyoming.audio import AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import async_write_event

from mnemolis.config import load_config
from mnemolis.core.announce import Announcement
from mnemolis.core.origin import Origin
from mnemolis.serve.satellite_doctor import satellite_findings
from mnemolis.serve.satellites import Satellites
from mnemolis.sources.base import Level
from mnemolis.voice import engines
from mnemolis.voice.settings import VoiceSettings
from mnemolis.voice.speak import EspeakVoice
from mnemolis.voice.stages import StageError
from mnemolis.voice.wav import read_wav
from tests.support_engines import engine, wake_service
from tests.support_kiwix import fixture_test_zims
from tests.support_satellite import (
    FakeSatellite,
    SatelliteProcess,
    chunk_events,
    free_port,
    satellite,
)
from tests.support_serve import ServeHome, fixture_serve_home
from tests.support_serve_inprocess import InProcess, in_process_daemon
from tests.support_voice import GrammarRecogniser, recogniser_fixture, render

__all__ = ["fixture_serve_home", "fixture_test_zims"]

REQUESTS = (
    "turn off the light",
    "turn on the light",
    "the bedroom light",
    "set a timer for three seconds",
    "open the garage door",
    "yes",
)


fixture_recogniser = recogniser_fixture(REQUESTS)


@pytest.fixture(scope="module", name="sounds")
def fixture_sounds(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``sounds("okay nabu, turn off the light")``: rendered once, 16 kHz mono."""
    folder = tmp_path_factory.mktemp("sounds")
    made: dict[str, Path] = {}

    def sound(text: str) -> Path:
        if text not in made:
            made[text] = render(text, folder / f"{len(made)}.wav", rate=16000, pad_s=0.5)
        return made[text]

    return sound


def serve_yaml(*satellites: tuple[str, str, str | None, str | None]) -> str:
    lines = ["satellites:"]
    for name, address, area, fallback in satellites:
        lines.append(
            f"  - {{name: {name}, address: '{address}', area: {area or 'null'}, "
            f"fallback: {fallback or 'null'}}}"
        )
    return "\n".join(lines) + "\n"


def spoken(*texts: str) -> list[bytes]:
    """The sentences as the daemon's voice (espeak-ng, sources/voice.yaml) says them: what
    the satellite's speaker receives, byte for byte (it plays 16 kHz as sent)."""
    voice = EspeakVoice(VoiceSettings().voice)
    return [asyncio.run(voice.synthesize(text)).pcm for text in texts]


def wait(check: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("it did not happen")


async def until(check: Callable[[], bool], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "it did not happen in time"
        await asyncio.sleep(0.05)


async def talking(running: InProcess, *satellites: SatelliteProcess) -> None:
    """Once the daemon drives them, the satellites' microphones start playing."""
    driven = running.front_ends["satellites"]
    assert isinstance(driven, Satellites)
    for one in satellites:
        link = next(link for link in driven.links.values() if link.settings.url == one.address)
        await until(lambda link=link: link.up and driven.voice.loaded is not None)  # type: ignore[misc]
        one.start_talking()


def answered(
    home: ServeHome, monkeypatch: pytest.MonkeyPatch, name: str, one: SatelliteProcess, answers: int
) -> InProcess:
    """The daemon driving the satellite ``one`` (named ``name``, no area or fallback of its
    own in serve.yaml) until it has been sent ``answers`` answers."""

    async def run() -> InProcess:
        yaml = serve_yaml((name, one.address, None, None))
        async with in_process_daemon(home, yaml, monkeypatch) as running:
            await talking(running, one)
            await until(lambda: len(one.answers()) >= answers)
            return running

    return asyncio.run(run())


@pytest.fixture(name="kitchen")
def fixture_kitchen(tmp_path: Path, sounds: Callable[[str], Path]) -> Iterator[SatelliteProcess]:
    """A satellite in the kitchen: "okay nabu, turn off the light", then a timer."""
    with satellite(
        tmp_path,
        "kitchen-satellite",
        [
            "silence:1",
            sounds("okay nabu, turn off the light"),
            "silence:7",
            sounds("okay nabu, set a timer for three seconds"),
        ],
        area="kitchen",
    ) as running:
        yield running


def test_a_request_on_a_satellite_acts_in_its_area_and_is_answered_there_and_its_timer_rings_there(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    kitchen: SatelliteProcess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serve_home.simulator.clear()

    running = answered(serve_home, monkeypatch, "kitchen", kitchen, 3)
    texts = [text for text, _origin in running.asked]
    origins = [origin for _text, origin in running.asked]
    assert texts == ["turn off the light", "set a timer for three seconds"]
    assert {(o.front_end, o.room, o.site) for o in origins} == {("satellite", "kitchen", "kitchen")}
    assert [(c.device, c.payload) for c in serve_home.simulator.received()] == [
        ("kitchen light", '{"state": "OFF"}')
    ]
    assert kitchen.wait_answers(3) == spoken(
        "Done: the kitchen light is off.", "Timer set for 3 seconds.", "Your 3 second timer is done"
    )


def test_a_satellite_that_wakes_itself_is_followed_up_without_the_wake_word(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The satellite's own wake word service (a stand-in over the real pymicro-wakeword)
    hears "okay nabu"; the daemon hears "open the garage door", asks back, and hears the
    "yes" that follows with no wake word on the same satellite."""
    serve_home.simulator.clear()
    with (
        engine(wake_service()) as wake_uri,
        satellite(
            tmp_path,
            "garage-satellite",
            [sounds("okay nabu, open the garage door"), "silence:7", sounds("yes")],
            area="garage",
            extra=["--wake-uri", wake_uri, "--wake-word-name", "okay_nabu"],
        ) as garage,
    ):
        running = answered(serve_home, monkeypatch, "garage", garage, 2)
        answers = garage.wait_answers(2)
    assert [text for text, _origin in running.asked] == ["open the garage door", "yes"]
    assert answers == spoken(
        "Do you want me to open the garage door?", "Done: the garage door is open."
    )
    assert [c.device for c in serve_home.simulator.received()] == ["garage door"]
    assert any("Waiting for wake word" in line for line in garage.lines)  # it woke itself


def test_a_satellite_that_restarts_is_reconnected_to_and_said_so_once(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    serve_home.simulator.clear()
    port = free_port()
    request = [sounds("okay nabu, turn off the light")]

    async def run() -> list[bytes]:
        with satellite(tmp_path / "a", "kitchen", request, area="kitchen", port=port) as first:
            yaml = serve_yaml(("kitchen", first.address, None, None))
            async with in_process_daemon(serve_home, yaml, monkeypatch) as running:
                await talking(running)
                driven = running.front_ends["satellites"]
                assert isinstance(driven, Satellites)
                link = driven.links["kitchen"]
                await until(lambda: link.up)
                first.stop()  # the satellite restarts
                await until(lambda: not link.up)
                with satellite(
                    tmp_path / "b", "kitchen", request, area="kitchen", port=port
                ) as again:
                    await talking(running, again)
                    await until(lambda: len(again.answers()) >= 1)
                    return again.answers()

    with caplog.at_level(logging.INFO, "mnemolis.serve.satellite_link"):
        answers = asyncio.run(run())
    assert answers == spoken("Done: the kitchen light is off.")
    said = [r.getMessage() for r in caplog.records if r.name == "mnemolis.serve.satellite_link"]
    since = said[said.index("satellite kitchen connected (area kitchen)") + 1 :]
    assert len([m for m in since if " is down: " in m]) == 1  # said once, not per attempt
    assert "satellite kitchen is back" in since


def test_an_announcement_for_a_satellite_that_is_down_is_said_at_its_fallback(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A timer set in the kitchen rings while the kitchen satellite is down: the living
    room says it (the owner's fallback), nothing is lost."""
    timer = [sounds("okay nabu, set a timer for three seconds")]
    with (
        satellite(tmp_path, "kitchen", timer, area="kitchen") as kitchen,
        satellite(tmp_path, "living", [], area="living room") as living,
    ):

        async def run() -> None:
            yaml = serve_yaml(
                ("kitchen", kitchen.address, None, "living room"),
                ("living room", living.address, None, None),
            )
            async with in_process_daemon(serve_home, yaml, monkeypatch) as running:
                await talking(running, kitchen, living)
                await until(lambda: len(kitchen.answers()) >= 1)  # "Timer set for 3 seconds."
                kitchen.stop()
                await until(lambda: len(living.answers()) >= 1)

        asyncio.run(run())
        assert kitchen.answers() == spoken("Timer set for 3 seconds.")
        assert living.answers() == spoken("Your 3 second timer is done")


def test_a_satellite_that_floods_disappears_or_sends_bad_audio_is_cut_off_and_acts_on_nothing(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Four broken satellites and a good one: the good one is answered in its room."""
    serve_home.simulator.clear()
    request = read_wav(sounds("turn off the light"), 20).audio.pcm

    async def flood(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for event in chunk_events(bytes(32000 * 60)):  # a minute of sound at once
            await async_write_event(event, writer)

    async def vanish(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for event in chunk_events(request[: len(request) // 2]):  # mid-sentence, then gone
            await async_write_event(event, writer)

    async def bad_format(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for event in chunk_events(request, width=2, rate=3):
            await async_write_event(event, writer)
        await async_write_event(AudioStop().event(), writer)

    async def huge(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        header = {"type": "audio-chunk", "data": {"rate": 16000, "width": 2, "channels": 1}}
        writer.write(json.dumps({**header, "payload_length": 10**12}).encode() + b"\n")
        await writer.drain()

    with satellite(
        tmp_path, "kitchen", [sounds("okay nabu, turn off the light")], area="kitchen"
    ) as kitchen:

        async def run() -> list[FakeSatellite]:
            behaviours = ((flood, True), (vanish, False), (bad_format, True), (huge, True))
            fakes = [await FakeSatellite(b, listens).start() for b, listens in behaviours]
            yaml = serve_yaml(
                ("kitchen", kitchen.address, None, None),
                *((f"fake{n}", f.address, "bedroom", None) for n, f in enumerate(fakes)),
            )
            async with in_process_daemon(serve_home, yaml, monkeypatch) as running:
                await talking(running, kitchen)
                await until(
                    lambda: (
                        len(kitchen.answers()) >= 1 and all(f.connections >= 2 for f in fakes[:2])
                    )
                )
            for fake in fakes:
                await fake.stop()
            return fakes

        with caplog.at_level(logging.INFO):
            flooder, _vanished, _bad, _huge = asyncio.run(run())
        assert kitchen.answers() == spoken("Done: the kitchen light is off.")
    assert [c.device for c in serve_home.simulator.received()] == ["kitchen light"]
    errors = [Error.from_event(e) for e in flooder.received if e.type == "error"]
    assert (
        errors and errors[0].code == "flood" and "faster than real time" in (errors[0].text or "")
    )
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "satellite fake0 (" in logged and "cut off: it sent" in logged
    assert "satellite fake1 (" in logged and "closed the connection" in logged
    assert "cannot use (rate 3, width 2, channels 1)" in logged
    assert (
        "satellite fake3 (" in logged
        and "it broke the protocol: an event is over 65536 bytes" in logged
    )


def test_a_request_that_never_ends_is_cut_off_with_its_reason_spoken(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A satellite that woke itself and then streams speech without a pause, past
    limits.max_request_s (2 s here): an error event says why, the reason is spoken back,
    and nothing is done."""
    serve_home.simulator.clear()
    words = read_wav(sounds("turn off the light turn off the light"), 20).audio.pcm
    words = words[16000:-16000]  # no pause: it never ends

    async def ramble(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for event in chunk_events(words * 3):  # at real time, as a microphone
            await async_write_event(event, writer)
            await asyncio.sleep(1024 / 16000)

    async def run() -> FakeSatellite:
        rambler = await FakeSatellite(ramble, listens=True).start()
        yaml = serve_yaml(("study", rambler.address, "bedroom", None))
        voice = "limits:\n  max_request_s: 2\n"
        async with in_process_daemon(
            serve_home, yaml, monkeypatch, {"voice.yaml": voice}
        ) as running:
            await until(lambda: any(e.type == "audio-stop" for e in rambler.received))
            assert running.asked == []
        await rambler.stop()
        return rambler

    rambler = asyncio.run(run())
    kinds = [e.type for e in rambler.received]
    error = Error.from_event(rambler.received[kinds.index("error")])
    assert error.code == "bad_audio:too_long"
    assert "went on for longer than 2 s (limits.max_request_s), so it was cut there" in (
        error.text or ""
    )
    spoken = b"".join(e.payload or b"" for e in rambler.received if e.type == "audio-chunk")
    expected = asyncio.run(EspeakVoice(VoiceSettings().voice).synthesize(error.text or ""))
    assert spoken == expected.pcm
    assert serve_home.simulator.received() == []


def test_a_broadcast_is_said_on_every_satellite_and_an_area_announcement_on_its_own(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A broadcast from HTTP (whose requester has no /events stream open) is said on both
    satellites; a timer set over HTTP for the kitchen rings on the kitchen's only."""
    with (
        satellite(tmp_path, "kitchen", [], area="kitchen") as kitchen,
        satellite(tmp_path, "bedroom", [], area="bedroom") as bedroom,
    ):

        async def run() -> None:
            yaml = serve_yaml(
                ("kitchen", kitchen.address, None, None), ("bedroom", bedroom.address, None, None)
            )
            async with in_process_daemon(serve_home, yaml, monkeypatch) as running:
                await talking(running, kitchen, bedroom)
                everyone = Origin("http", "http:family", None, None)
                running.daemon.announcer.announce(
                    Announcement("Dinner is ready", "broadcast", "b-1", everyone)
                )
                await until(lambda: len(kitchen.answers()) >= 1 and len(bedroom.answers()) >= 1)
                in_kitchen = Origin("http", "http:phone", "kitchen", None)
                running.daemon.announcer.announce(
                    Announcement("Your tea is ready", "timer", "t-1", in_kitchen)
                )
                await until(lambda: len(kitchen.answers()) >= 2)
                await asyncio.sleep(1.0)  # time enough for a wrong one to arrive too

        asyncio.run(run())
        assert kitchen.answers() == spoken("Dinner is ready", "Your tea is ready")
        assert bedroom.answers() == spoken("Dinner is ready")


def test_a_satellite_is_told_when_the_daemon_cannot_listen(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No recogniser can be built: the satellite's pipeline gets an error event saying
    why, and the daemon goes on serving (its handle service answers)."""

    def broken(*_args: object) -> GrammarRecogniser:
        raise StageError("no recogniser is installed with this Mnemolis (a test)")

    monkeypatch.setattr(engines, "load_recogniser", broken)

    async def quiet(_reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
        return None

    async def run() -> tuple[FakeSatellite, list[str]]:
        fake = await FakeSatellite(quiet, listens=True).start()
        async with in_process_daemon(
            serve_home, serve_yaml(("study", fake.address, None, None)), monkeypatch
        ) as running:
            await until(lambda: any(e.type == "error" for e in fake.received))
            host, port = running.wyoming_address
            async with AsyncTcpClient(host, port) as client:
                await client.write_event(Transcript(text="what time is it").event())
                reply = await client.read_event()
        await fake.stop()
        return fake, [reply.type if reply else "nothing"]

    fake, replies = asyncio.run(run())
    error = Error.from_event(next(e for e in fake.received if e.type == "error"))
    assert error == Error(
        text="Mnemolis cannot listen: no recogniser is installed with this Mnemolis (a test)",
        code="stt-failed",
    )
    assert replies == ["handled"]


def test_doctor_says_which_satellites_answer_and_where_they_stand(tmp_path: Path) -> None:
    with satellite(tmp_path, "kitchen-pi", [], area="Kitchen") as kitchen:
        (tmp_path / "config" / "sources").mkdir(parents=True)
        (tmp_path / "config" / "sources" / "serve.yaml").write_text(
            serve_yaml(
                ("kitchen", kitchen.address, None, None),
                ("attic", f"tcp://127.0.0.1:{free_port()}", "attic", None),
            ),
            encoding="utf-8",
        )
        found = asyncio.run(satellite_findings(load_config(tmp_path / "config")))
    by_check = {f.check: f for f in found}
    assert by_check["satellite kitchen"].level is Level.OK
    assert (
        by_check["satellite kitchen"].text
        == f"{kitchen.address} answers: wyoming-satellite 'kitchen-pi', area kitchen"
    )
    attic = by_check["satellite attic"]
    assert attic.level is Level.WARNING and "cannot be reached" in attic.text
    assert attic.fix is not None and "--uri tcp://127.0.0.1:" in attic.fix


def test_which_one_is_answered_on_the_same_satellite_without_the_wake_word(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    sounds: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A satellite with no area: "turn on the light" is asked back ("Which one ...?", 8 s
    of speech), and "the bedroom light", said once it has been asked, with no wake word,
    is the answer."""
    serve_home.simulator.clear()
    with satellite(
        tmp_path,
        "hall",
        [sounds("okay nabu, turn on the light"), "silence:10", sounds("the bedroom light")],
    ) as hall:
        running = answered(serve_home, monkeypatch, "hall", hall, 2)
        answers = hall.wait_answers(2)
    assert [text for text, _origin in running.asked] == ["turn on the light", "the bedroom light"]
    which = (
        "Which one do you mean: the bedroom light, the hallway light, the kitchen light, "
        "the living room lamp or the porch light?"
    )
    assert answers == spoken(which, "Done: the bedroom light is on.")
    assert [c.device for c in serve_home.simulator.received()] == ["bedroom light"]
