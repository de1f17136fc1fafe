"""What a weather part asks: which metric, which day, where, and whether it
wants a yes or a no.

The slots come from understanding; the rest is read from the part's own
words with the cues in ``data/weather_words.yaml`` ("will it ..." wants a
yes or no, "is it raining" is about this moment, "below 5 degrees" is a
limit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemolis.core.plan import Part
from mnemolis.sources.weather.words import QuestionCues

METRICS = ("rain", "snow", "temperature", "wind", "sun", "cloud", "humidity", "fog")
_WORD = re.compile(r"-?\d+(?:\.\d+)?|[a-z]+(?:'[a-z]+)?")
MAX_LOCATION_CHARS = 100


@dataclass(frozen=True)
class Limit:
    """ "below 5 degrees": compared in the configured temperature unit."""

    comparison: str  # below | above
    value: float


@dataclass(frozen=True)
class WeatherQuestion:
    metric: str | None  # one of METRICS, or None for the whole picture
    day: str | None  # a `day` slot value; None: right now and today together
    location: str | None  # lower-case place name, or None for home
    yes_no: bool = False
    lean: str | None = None  # cold | hot, for temperature questions
    limit: Limit | None = None

    @property
    def judged_metric(self) -> str | None:
        """The metric a yes or no is decided on: "cold" and "hot" for temperature."""
        if self.metric == "temperature":
            if self.limit is not None:
                return "cold" if self.limit.comparison == "below" else "hot"
            return self.lean
        return self.metric


def _has(text: str, phrase: str) -> bool:
    return f" {phrase} " in f" {text} "


def _starts(text: str, phrases: tuple[str, ...]) -> bool:
    return any(text == p or text.startswith(p + " ") for p in phrases)


def _words(text: str, cues: QuestionCues) -> str:
    """Lower-case words and numbers, single-spaced, without leading filler."""
    text = " ".join(_WORD.findall(text.lower().replace("’", "'")))
    stripped = True
    while stripped:
        stripped = False
        for filler in cues.leading_fillers:
            if text.startswith(filler + " "):
                text = text[len(filler) + 1 :]
                stripped = True
    return text


def _limit(words: list[str], cues: QuestionCues) -> Limit | None:
    text = " ".join(words)
    for comparison, phrases in (("below", cues.below_words), ("above", cues.above_words)):
        for phrase in phrases:
            match = re.search(rf"(?:^| ){re.escape(phrase)} (-?\d+(?:\.\d+)?)(?: |$)", text)
            if match:
                return Limit(comparison, float(match.group(1)))
    return None


def _lean(words: list[str], cues: QuestionCues) -> str | None:
    for word in words:
        if word in cues.cold_words:
            return "cold"
        if word in cues.hot_words:
            return "hot"
    return None


def _default_day(text: str, metric: str | None, cues: QuestionCues) -> str | None:
    """No day was said: "will it rain" means today, "is it windy" means now."""
    if any(_has(text, marker) for marker in cues.future_markers):
        return "today"
    if _starts(text, cues.advice_openers):
        return "today"
    if _starts(text, cues.present_openers):
        return "now"
    if metric is None:
        return None
    return "now" if metric in cues.now_metrics else "today"


def read_question(part: Part, cues: QuestionCues) -> WeatherQuestion:
    text = _words(part.text, cues)
    words = text.split()
    metric = part.slots.get("metric")
    metric = metric if metric in METRICS else None
    limit = _limit(words, cues)
    if limit is not None and metric is None:
        metric = "temperature"
    lean = _lean(words, cues) if metric == "temperature" else None
    day = part.slots.get("day")
    if not isinstance(day, str) or not day:
        day = _default_day(text, metric, cues)
    location = part.slots.get("location")
    if isinstance(location, str) and location.strip():
        location = " ".join(location.lower().split())[:MAX_LOCATION_CHARS]
    else:
        location = None
    return WeatherQuestion(
        metric=metric,
        day=day,
        location=location,
        yes_no=_starts(text, cues.yes_no_openers),
        lean=lean,
        limit=limit,
    )
