"""Words heard must account for the speech: speech heard as a short request that lies
over only part of it is no request (`mnemolis/voice/recognise/coverage.py`). Real
pocketsphinx over the demo home, real espeak-ng speech, whole and streamed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.voice.recognise import PocketsphinxRecogniser, RecogniserSettings
from mnemolis.voice.recognise.audio import to_pipeline
from mnemolis.voice.recognise.coverage import FRAME_SAMPLES, FrameEnergy, covered
from mnemolis.voice.recognise.judge import NOT_A_REQUEST, judge
from mnemolis.voice.stages import Audio
from tests.support_recogniser import demo_recogniser, noise, speak, streamed

QUIET, LOUD = 20.0, 60.0


def frames(*runs: tuple[float, int]) -> np.ndarray:
    return np.concatenate([np.full(n, level) for level, n in runs])


@pytest.mark.parametrize(
    "energy, spans, share",
    [
        (frames((QUIET, 20), (LOUD, 50), (QUIET, 20)), [(20, 69)], 1.0),  # all of it
        (frames((QUIET, 20), (LOUD, 50), (QUIET, 20)), [(0, 44)], 0.5),  # the first half
        (frames((QUIET, 20), (LOUD, 50), (QUIET, 20)), [(20, 29), (60, 69)], 0.4),  # two words
        (frames((QUIET, 20), (LOUD, 50), (QUIET, 20)), [], 0.0),  # speech, no word
        (frames((QUIET, 20), (LOUD, 50), (QUIET, 20)), [(75, 89)], 0.0),  # words on silence
        (frames((QUIET, 90)), [(0, 10)], 1.0),  # nothing loud: nothing to account for
        (np.zeros(0), [], 1.0),
        # loud is relative to the request's own quiet frames, not an absolute level
        (frames((QUIET + 30, 20), (LOUD + 30, 50), (QUIET + 30, 20)), [(0, 44)], 0.5),
        # a frame a little above the quiet ones is not speech
        (frames((QUIET, 20), (QUIET + 5, 50), (LOUD, 20)), [(70, 89)], 1.0),
    ],
)
def test_the_share_of_loud_frames_inside_the_words(
    energy: np.ndarray, spans: list[tuple[int, int]], share: float
) -> None:
    assert covered(energy, spans) == pytest.approx(share)


@given(st.binary(min_size=0, max_size=4000), st.lists(st.integers(1, 999), max_size=8))
def test_frames_are_the_same_in_pieces_as_whole(data: bytes, cuts: list[int]) -> None:
    """A stream measures its frames as a whole request does, however it is cut."""
    pcm = data[: len(data) - len(data) % 2]
    whole, pieces = FrameEnergy(), FrameEnergy()
    whole.add(pcm)
    at = 0
    for cut in sorted({min(c * 2, len(pcm)) for c in cuts}):
        pieces.add(pcm[at:cut])
        at = cut
    pieces.add(pcm[at:])
    assert len(whole.db()) == len(pcm) // 2 // FRAME_SAMPLES
    assert np.allclose(whole.db(), pieces.db())


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PocketsphinxRecogniser]:
    yield from demo_recogniser(tmp_path_factory)


REQUESTS = [
    "turn off the lights in the bedroom",
    "what time is it",
    "is the garage door open",
    "turn on the kitchen light",
]


def request_then_noise() -> Audio:
    """A request, then a second of loud noise right after it (a vacuum cleaner
    starting): heard word for word, but the words account for half the sound."""
    return Audio(speak("turn on the kitchen light").pcm + noise(1.0, level=2000, seed=5).pcm)


#: speech heard as a request over a part of it only: word salad (common words at
#: random) and a request drowned at its end
PARTLY = [
    pytest.param(lambda: speak("hm bye nuclear scientists positions"), id="salad"),
    pytest.param(lambda: speak("read uncle de telling relatively"), id="salad 2"),
    pytest.param(request_then_noise, id="request then noise"),
]


@pytest.mark.parametrize("said", REQUESTS)
def test_a_request_said_is_covered_by_its_words(demo: PocketsphinxRecogniser, said: str) -> None:
    decoder = demo._decoder
    assert decoder is not None
    decoded = decoder.decode(to_pipeline(speak(said)).pcm)
    assert decoded.covered >= RecogniserSettings().min_coverage
    assert judge(decoded, 0.35, 3, RecogniserSettings().min_coverage).text == said


@pytest.mark.parametrize("audio", PARTLY)
def test_speech_heard_as_a_request_over_part_of_it_is_none(
    demo: PocketsphinxRecogniser, audio: Callable[[], Audio]
) -> None:
    """Without the check the grammar's nearest request is heard (and would act); with
    it, nothing is."""
    decoder = demo._decoder
    assert decoder is not None
    decoded = decoder.decode(to_pipeline(audio()).pcm)
    assert judge(decoded, 0.35, 3, 0.0).text != ""
    assert decoded.covered < RecogniserSettings().min_coverage
    heard = asyncio.run(demo.transcribe(audio()))
    assert (heard.text, heard.rejected) == ("", NOT_A_REQUEST)


@pytest.mark.parametrize(
    "audio",
    [pytest.param(lambda said=said: speak(said), id=said) for said in REQUESTS[:2]] + PARTLY,
)
def test_a_stream_is_judged_as_the_whole_request(
    demo: PocketsphinxRecogniser, audio: Callable[[], Audio]
) -> None:
    """Streamed, the words are measured against the same frames: a request is heard, and
    speech heard as one over a part of it is not."""
    whole = asyncio.run(demo.transcribe(audio()))
    heard = streamed(demo, audio())
    assert (heard.text == "") == (whole.text == "")
    assert heard.text == whole.text
