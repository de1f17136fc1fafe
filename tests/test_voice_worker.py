"""The decoder in a process of its own (``process: true``): it hears what the decoder in
the listening process hears, whole and streamed, and a child that dies in the middle of
a request is a clear reason with nothing acted on, the next request heard again."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemolis.config import At, ConfigError, load_config
from mnemolis.voice.recognise import (
    PocketsphinxRecogniser,
    RecogniserSettings,
    create_recogniser,
    load_recogniser_settings,
)
from mnemolis.voice.recognise.worker import ProcessDecoder
from tests.support_recogniser import require_voice, speak
from tests.test_voice_stream import SAID, converse_failing, streamed


@pytest.fixture(scope="module")
def recognisers(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[PocketsphinxRecogniser, PocketsphinxRecogniser]]:
    """The demo home's recogniser decoding here, and one decoding in a child."""
    require_voice()
    state = tmp_path_factory.mktemp("state")
    here = create_recogniser(load_config(), RecogniserSettings(), state)
    there = create_recogniser(load_config(), RecogniserSettings(process=True), state)
    here.wait_ready()
    there.wait_ready()
    yield here, there
    here.close()
    there.close()


def _child(r: PocketsphinxRecogniser) -> ProcessDecoder:
    decoder = r._decoder
    assert isinstance(decoder, ProcessDecoder)
    return decoder


@pytest.mark.parametrize(
    "said", [SAID, "is the garage door open", "the quick brown fox jumps over the lazy dog"]
)
def test_a_decoder_in_a_process_hears_as_the_one_here(
    recognisers: tuple[PocketsphinxRecogniser, PocketsphinxRecogniser], said: str
) -> None:
    here, there = recognisers
    assert _child(there).pid != os.getpid()
    audio = speak(said)
    for hear in (lambda r: asyncio.run(r.transcribe(audio)), lambda r: streamed(r, audio, 30)):
        a, b = hear(here), hear(there)
        assert (a.text, a.rejected, a.alternatives) == (b.text, b.rejected, b.alternatives)
        assert a.confidence == pytest.approx(b.confidence, abs=1e-6)


def test_a_decoder_process_that_dies_in_a_request_does_nothing(
    recognisers: tuple[PocketsphinxRecogniser, PocketsphinxRecogniser],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, there = recognisers

    def kill(decoder: ProcessDecoder) -> None:  # the request is being decoded
        os.kill(decoder.pid, signal.SIGKILL)
        decoder.process.wait()

    turn = converse_failing(monkeypatch, there, ProcessDecoder, kill)
    assert "decoder process stopped (exit status -9)" in turn.said
    # a new child over the same model hears the next request
    assert asyncio.run(there.transcribe(speak(SAID))).text == SAID
    assert streamed(there, speak(SAID), 30).text == SAID


def test_a_whole_request_whose_decoder_dies_is_a_reason(
    recognisers: tuple[PocketsphinxRecogniser, PocketsphinxRecogniser],
) -> None:
    _, there = recognisers
    os.kill(_child(there).pid, signal.SIGKILL)
    _child(there).process.wait()
    # found dead before the request: replaced, and the request heard
    assert asyncio.run(there.transcribe(speak(SAID))).text == SAID


def test_closing_the_recogniser_ends_its_child(tmp_path: Path) -> None:
    require_voice()
    r = create_recogniser(load_config(), RecogniserSettings(process=True), tmp_path / "s")
    r.wait_ready()
    child = _child(r)
    assert child.alive()
    r.close()
    assert child.process.poll() is not None


def test_the_setting_is_true_or_false() -> None:
    assert load_recogniser_settings({"process": True}, At(Path("voice.yaml"))).process
    assert not load_recogniser_settings({}, At(Path("voice.yaml"))).process
    with pytest.raises(ConfigError, match="process: true or false"):
        load_recogniser_settings({"process": 1}, At(Path("voice.yaml")))
