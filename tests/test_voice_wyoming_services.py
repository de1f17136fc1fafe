"""The daemon's own recogniser and voice as Wyoming ``asr`` and ``tts`` services, as
Home Assistant uses them: a Wyoming client (the `wyoming` package's) gets a transcript
from rendered speech and audio for a sentence; what the asr heard doubtfully is asked
back when its text comes to the handle service; bad input gets an ``error`` event and
the daemon answers everyone else. Real pocketsphinx (a grammar of the sentences said
here), real espeak-ng."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize

from mnemolis.voice import engines
from mnemolis.voice.settings import VoiceSettings
from mnemolis.voice.speak import EspeakVoice
from tests.support_kiwix import fixture_test_zims
from tests.support_serve import ServeHome, fixture_serve_home
from tests.support_serve_inprocess import InProcess, in_process_daemon
from tests.support_voice import GrammarRecogniser, configured, recogniser_fixture, render

__all__ = ["fixture_serve_home", "fixture_test_zims"]

SENTENCES = ("turn off the kitchen light", "turn on the bedroom light", "yes")


fixture_recogniser = recogniser_fixture(SENTENCES)


@pytest.fixture(scope="module", name="kitchen_off")
def fixture_kitchen_off(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ "turn off the kitchen light" at 16 kHz mono, the request most tests stream:
    rendered once for the module."""
    folder = tmp_path_factory.mktemp("requests")
    return render("turn off the kitchen light", folder / "off.wav", rate=16000)


def with_daemon(
    home: ServeHome, monkeypatch: pytest.MonkeyPatch, talk: Callable[[InProcess], Awaitable[Any]]
) -> Any:
    async def run() -> Any:
        async with in_process_daemon(home, "wyoming: {}\n", monkeypatch) as running:
            return await talk(running)

    return asyncio.run(run())


async def exchange(running: InProcess, *events: Event, until: str, count: int = 1) -> list[Event]:
    """Send ``events`` on one connection; what comes back until the ``count``-th ``until``."""
    host, port = running.wyoming_address
    got: list[Event] = []
    async with AsyncTcpClient(host, port, connect_timeout=5, read_timeout=30) as client:
        for event in events:
            await client.write_event(event)
        while sum(e.type == until for e in got) < count:
            reply = await client.read_event()
            assert reply is not None, f"the connection closed after {[e.type for e in got]}"
            got.append(reply)
    return got


def speech(path: Path, rate: int = 16000, width: int = 2, channels: int = 1) -> list[Event]:
    """A WAV file as a client streams it: audio-start, chunks, audio-stop."""
    wav = path.read_bytes()[44:]  # sox writes a plain 44-byte header
    shape = {"rate": rate, "width": width, "channels": channels}
    size = 1024 * width * channels
    chunks = [
        AudioChunk(audio=wav[i : i + size], **shape).event() for i in range(0, len(wav), size)
    ]
    return [AudioStart(**shape).event(), *chunks, AudioStop().event()]


def test_describe_lists_the_handle_asr_and_tts_programs(
    serve_home: ServeHome, recogniser: GrammarRecogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def talk(running: InProcess) -> Info:
        (info,) = await exchange(running, Describe().event(), until="info")
        return Info.from_event(info)

    info = with_daemon(serve_home, monkeypatch, talk)
    assert [p.name for p in info.handle] == ["mnemolis"]
    assert [(p.name, [m.languages for m in p.models]) for p in info.asr] == [("mnemolis", [["en"]])]
    assert [(p.name, [v.languages for v in p.voices]) for p in info.tts] == [("mnemolis", [["en"]])]


def test_a_client_gets_a_transcript_with_its_confidence_from_any_format(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    monkeypatch: pytest.MonkeyPatch,
    kitchen_off: Path,
    tmp_path: Path,
) -> None:
    stereo = render("turn off the kitchen light", tmp_path / "b.wav", rate=44100, channels=2)

    async def talk(running: InProcess) -> list[Transcript]:
        heard = []
        for events in (speech(kitchen_off), speech(stereo, rate=44100, channels=2)):
            got = await exchange(
                running, Transcribe(language="en").event(), *events, until="transcript"
            )
            heard.append(Transcript.from_event(got[-1]))
        return heard

    for transcript in with_daemon(serve_home, monkeypatch, talk):
        assert transcript.text == "turn off the kitchen light"
        assert transcript.context == {"confidence": 0.9, "alternatives": []}


def test_a_client_gets_the_voice_as_audio(
    serve_home: ServeHome, recogniser: GrammarRecogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def talk(running: InProcess) -> list[Event]:
        return await exchange(
            running, Synthesize(text="The kitchen light is off.").event(), until="audio-stop"
        )

    events = with_daemon(serve_home, monkeypatch, talk)
    assert events[0].type == "audio-start" and events[-1].type == "audio-stop"
    shape = {k: events[0].data[k] for k in ("rate", "width", "channels")}
    assert shape == {"rate": 16000, "width": 2, "channels": 1}
    pcm = b"".join(AudioChunk.from_event(e).audio for e in events if e.type == "audio-chunk")
    expected = asyncio.run(
        EspeakVoice(VoiceSettings().voice).synthesize("The kitchen light is off.")
    )
    assert pcm == expected.pcm


def test_a_doubtful_transcript_of_an_action_is_asked_back_by_the_handle_service(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Home Assistant's way: the asr service's text comes back to handle without the
    context; the confidence the asr heard it with still decides."""
    recogniser.unsure = ("turn on the bedroom light",)
    said = render("turn on the bedroom light", tmp_path / "a.wav", rate=16000)
    serve_home.simulator.clear()

    async def talk(running: InProcess) -> tuple[Transcript, str, str]:
        got = await exchange(running, *speech(said), until="transcript")
        transcript = Transcript.from_event(got[-1])
        context = {"conversation_id": "ha-1"}
        (asked,) = await exchange(
            running, Transcript(transcript.text, context=context).event(), until="handled"
        )
        (done,) = await exchange(
            running, Transcript("yes", context=context).event(), until="handled"
        )
        return transcript, Handled.from_event(asked).text or "", Handled.from_event(done).text or ""

    transcript, asked, done = with_daemon(serve_home, monkeypatch, talk)
    assert transcript.context is not None and transcript.context["confidence"] == 0.4
    assert asked == "Did you say: turn on the bedroom light?"
    assert done == "Done: the bedroom light is on."
    assert [c.device for c in serve_home.simulator.received()] == ["bedroom light"]


def test_bad_audio_gets_an_error_and_the_connection_and_the_daemon_go_on(
    serve_home: ServeHome,
    recogniser: GrammarRecogniser,
    monkeypatch: pytest.MonkeyPatch,
    kitchen_off: Path,
) -> None:
    weird = {"rate": 16000, "width": 7, "channels": 1}
    long_s = 21  # over limits.max_request_s (20)
    silence = [AudioChunk(rate=16000, width=2, channels=1, audio=bytes(32000)).event()] * long_s

    async def talk(running: InProcess) -> tuple[list[Event], list[Event], list[Event], Transcript]:
        host, port = running.wyoming_address
        # a stream cut in the middle: a header, half an event, then gone
        reader, writer = await asyncio.open_connection(host, port)
        header = {
            "type": "audio-chunk",
            "data": {"rate": 16000, "width": 2, "channels": 1},
            "payload_length": 4096,
        }
        writer.write(json.dumps(header).encode() + b"\n" + bytes(100))
        await writer.drain()
        writer.close()
        unsupported = await exchange(
            running,
            AudioStart(**weird).event(),
            AudioChunk(audio=bytes(700), **weird).event(),
            until="error",
        )
        too_long = await exchange(running, AudioStart(16000, 2, 1).event(), *silence, until="error")
        words = await exchange(running, Synthesize(text="x" * 5000).event(), until="error")
        got = await exchange(running, *speech(kitchen_off), until="transcript")
        del reader
        return unsupported, too_long, words, Transcript.from_event(got[-1])

    unsupported, too_long, words, after = with_daemon(serve_home, monkeypatch, talk)
    assert Error.from_event(unsupported[-1]).code == "unsupported_audio"
    assert "cannot be converted" in (Error.from_event(unsupported[-1]).text or "")
    assert Error.from_event(too_long[-1]) == Error(
        text="a request is at most 20 s (limits.max_request_s); it was cut there", code="too_long"
    )
    assert Error.from_event(words[-1]).code == "too_long"
    assert after.text == "turn off the kitchen light"  # everyone else is still answered


def test_a_broken_recogniser_is_an_error_event_not_a_closed_connection(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch, kitchen_off: Path
) -> None:
    from tests.support_voice import FailingRecogniser

    configured(monkeypatch, FailingRecogniser())

    async def talk(running: InProcess) -> list[Event]:
        return await exchange(running, *speech(kitchen_off), Describe().event(), until="info")

    got = with_daemon(serve_home, monkeypatch, talk)
    error = Error.from_event(next(e for e in got if e.type == "error"))
    assert error.code == "asr-failed" and "refused the connection" in (error.text or "")


def test_after_a_reload_the_voice_follows_the_new_configuration(
    serve_home: ServeHome, recogniser: GrammarRecogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engines are built again beside the running ones after a reload: the tts
    service speaks at the new voice.speed once they are ready."""
    text = "The kitchen light is off."
    slow = asyncio.run(EspeakVoice(replace(VoiceSettings().voice, speed=110)).synthesize(text))

    async def said(running: InProcess) -> bytes:
        events = await exchange(running, Synthesize(text=text).event(), until="audio-stop")
        return b"".join(AudioChunk.from_event(e).audio for e in events if e.type == "audio-chunk")

    async def talk(running: InProcess) -> tuple[bytes, bytes]:
        before = await said(running)
        voice_yaml = Path(running.daemon.config_dir or "") / "sources" / "voice.yaml"
        voice_yaml.write_text("voice:\n  speed: 110\n", encoding="utf-8")
        assert (await running.daemon.reload()).ok
        after = await said(running)
        for _ in range(300):
            if after == slow.pcm:
                break
            await asyncio.sleep(0.1)
            after = await said(running)
        return before, after

    before, after = with_daemon(serve_home, monkeypatch, talk)
    assert before != slow.pcm and after == slow.pcm


def test_the_daemons_recogniser_is_built_over_its_running_home(
    serve_home: ServeHome, monkeypatch: pytest.MonkeyPatch, kitchen_off: Path
) -> None:
    """The recogniser is handed the daemon's device registry (discovered devices too),
    so it learns the names of the home as it runs, not only those of the YAML."""
    built: list[tuple[Any, ...]] = []

    def load(*args: Any) -> GrammarRecogniser:
        built.append(args)
        return GrammarRecogniser(SENTENCES)

    monkeypatch.setattr(engines, "load_recogniser", load)

    async def talk(running: InProcess) -> tuple[Any, str]:
        got = await exchange(running, *speech(kitchen_off), until="transcript")
        return running.daemon.assistant.registry, Transcript.from_event(got[-1]).text

    registry, heard = with_daemon(serve_home, monkeypatch, talk)
    assert heard == "turn off the kitchen light"
    assert len(built) == 1 and built[0][3] is registry
