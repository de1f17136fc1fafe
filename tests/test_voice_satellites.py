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
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mnemolis.serve.satellites import Satellites
from mnemolis.voice import engines
from mnemolis.voice.settings import VoiceSettings
from mnemolis.voice.speak import EspeakVoice
from tests.support_kiwix import fixture_test_zims
from tests.support_satellite import SatelliteProcess, satellite
from tests.support_serve import ServeHome, fixture_serve_home
from tests.support_serve_inprocess import InProcess, in_process_daemon
from tests.support_voice import GrammarRecogniser, render

__all__ = ["fixture_serve_home", "fixture_test_zims"]

REQUESTS = (
    "turn off the light",
    "set a timer for three seconds",
    "open the garage door",
    "yes",
)


@pytest.fixture(name="recogniser")
def fixture_recogniser(monkeypatch: pytest.MonkeyPatch) -> GrammarRecogniser:
    recogniser = GrammarRecogniser(REQUESTS)
    monkeypatch.setattr(engines, "load_recogniser", lambda *_args: recogniser)
    return recogniser


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

    async def run() -> InProcess:
        yaml = serve_yaml(("kitchen", kitchen.address, None, None))
        async with in_process_daemon(serve_home, yaml, monkeypatch) as running:
            await talking(running, kitchen)
            await until(lambda: len(kitchen.answers()) >= 3)
            return running

    running = asyncio.run(run())
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
