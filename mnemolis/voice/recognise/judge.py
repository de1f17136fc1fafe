"""What was heard, judged: the text, how sure, the other readings, or why nothing.

Never act on a mishearing: a path through the [garbage] words (speech that is
none of the known requests: a question for someone else, the television, a
cough), or words that lie over too little of the speech (`coverage.py`), is "not
a request I know"; a reading below ``reject_below`` is "not sure"; the rest
carries its confidence so the assistant asks back below its ``heard.ask_back_below``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mnemolis.core.heard import Heard
from mnemolis.voice.recognise.decoder import Decoded
from mnemolis.voice.recognise.settings import RecogniserSettings
from mnemolis.voice.recognise.vocabulary import GARBAGE

ENGINE = "pocketsphinx"

NOT_A_REQUEST = "not a request I know"
NOTHING = "nothing heard"
UNSURE = "not sure what was said"


@dataclass(frozen=True)
class Judgement:
    text: str
    confidence: float
    alternatives: tuple[str, ...]
    rejected: str | None


def confidence(decoded: Decoded) -> float:
    """The geometric mean of the words' posteriors: one doubtful word pulls the whole
    reading down, a long sure sentence is not punished for its length."""
    posts = [min(max(w.posterior, 1e-6), 1.0) for w in decoded.words]
    if not posts:
        return 0.0
    return math.exp(sum(math.log(p) for p in posts) / len(posts))


def judge(
    decoded: Decoded, reject_below: float, alternatives: int, min_coverage: float = 0.0
) -> Judgement:
    words = decoded.words
    if not words:
        return Judgement("", 0.0, (), NOTHING)
    conf = confidence(decoded)
    text = " ".join(w.text for w in words)
    others: list[str] = []
    for reading in decoded.nbest:
        if any(cls == GARBAGE for _, cls in reading):
            continue
        other = " ".join(t for t, _ in reading)
        if other != text and other not in others:
            others.append(other)
    others = others[:alternatives]
    garbage = sum(1 for w in words if w.cls == GARBAGE)
    if garbage or decoded.covered < min_coverage:
        return Judgement("", conf, tuple(others), NOT_A_REQUEST)
    if conf < reject_below:
        return Judgement("", conf, (text, *others)[: alternatives + 1], UNSURE)
    return Judgement(text, conf, tuple(others), None)


def heard_of(
    decoded: Decoded, settings: RecogniserSettings, ms: dict[str, float] | None = None
) -> Heard:
    """What the recogniser says it heard, whole or streamed: too little speech, or judged."""
    speech_ms = 10.0 * sum(w.end - w.start + 1 for w in decoded.words)
    if decoded.words and speech_ms < settings.min_speech_ms:
        return heard("", 0.0, (), "too little speech", ms)
    j = judge(decoded, settings.reject_below, settings.alternatives, settings.min_coverage)
    return heard(j.text, j.confidence, j.alternatives, j.rejected, ms, decoded.covered)


def heard(
    text: str,
    confidence: float,
    alternatives: tuple[str, ...],
    rejected: str | None,
    ms: dict[str, float] | None = None,
    covered: float = 1.0,
) -> Heard:
    return Heard(
        text=text,
        confidence=round(confidence, 4),
        alternatives=alternatives,
        rejected=rejected,
        ms=dict(ms or {}),
        engine=ENGINE,
        covered=round(covered, 4),
    )
