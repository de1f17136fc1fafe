"""Choosing and wording the answer: the day asked, the metric asked, a yes or
no when one was asked, in words and units from ``data/weather_words.yaml``.

Pure: it gets a `WeatherView` (a parsed forecast, the local time, the
conditions of this moment) and returns a `Reply`; fetching, caching and
saying how old the data is belong to the weather source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from mnemolis.core.days import calendar_words, resolve_day
from mnemolis.sources.base import Truth
from mnemolis.sources.weather.forecast import Conditions, Forecast, Units, to_metric
from mnemolis.sources.weather.judge import Judge, Judgment
from mnemolis.sources.weather.question import WeatherQuestion
from mnemolis.sources.weather.settings import Thresholds
from mnemolis.sources.weather.words import WeatherWords, capitalise, fill

MAX_LISTED_DAYS = 3
MIN_SHOWN_PRECIPITATION_MM = 0.05


@dataclass(frozen=True)
class Period:
    """One stretch of time an answer speaks about."""

    key: str  # the day slot value it came from
    day: date
    when: str  # inline: "on Saturday"
    label: str  # opening a sentence: "Saturday"
    conditions: Conditions | None  # None: the forecast does not reach it
    is_now: bool = False


@dataclass
class WeatherView:
    """What the answer may use: one forecast (or none) and this moment."""

    forecast: Forecast | None
    local_now: datetime  # naive wall clock of the place
    now_conditions: Conditions | None
    units: Units
    place_label: str | None = None  # said only when another place was asked for


@dataclass
class Reply:
    text: str
    truth: Truth = Truth.UNKNOWN  # the yes or no, where the metric can be judged
    covered: bool = True  # False: the forecast does not reach the day asked
    data: dict[str, Any] = field(default_factory=dict)


def tidy(text: str) -> str:
    """No space before punctuation, no doubled spaces (an empty {at} leaves both)."""
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _truth(holds: bool | None) -> Truth:
    return Truth.UNKNOWN if holds is None else Truth.TRUE if holds else Truth.FALSE


class ForecastAnswerer:
    def __init__(self, words: WeatherWords, thresholds: Thresholds) -> None:
        self.words = words
        self.thresholds = thresholds
        self.calendar = calendar_words()

    # ------------------------------------------------------------------ entry points

    def answer(self, q: WeatherQuestion, view: WeatherView) -> Reply:
        if q.day is None:  # "what's the weather": this moment and the day ahead
            now = self.answer(replace(q, day="now"), view)
            today = self.answer(replace(q, day="today"), view)
            text = self.words.sentence("now_and_today", now=now.text, today=today.text)
            return Reply(
                text, today.truth, today.covered, {**today.data, "dates": now.data["dates"]}
            )
        periods = self.periods(q.day, view)
        if periods is None:
            return Reply(self.words.sentence("no_day"), covered=False)
        if len(periods) > 1 or q.day in ("weekend", "week"):
            reply = self._span(q, periods, view)
        else:
            reply = self._single(q, periods[0], view)
        reply.data["dates"] = [p.day.isoformat() for p in periods]
        if q.yes_no and reply.truth is not Truth.UNKNOWN:
            reply.data["answer"] = "yes" if reply.truth is Truth.TRUE else "no"
        return reply

    def evaluate(self, q: WeatherQuestion, view: WeatherView) -> Reply:
        """A condition: true, false or unknown for the day it names (today if none)."""
        if q.metric is None:
            return Reply(self.words.sentence("no_metric"))
        if q.judged_metric is None:
            return Reply(self.words.sentence("no_limit"))
        return self.answer(replace(q, yes_no=False, day=q.day or "today"), view)

    # ------------------------------------------------------------------ periods

    def _when(self, key: str, day: date, today: date) -> tuple[str, str]:
        words = self.words
        if key in ("now", "tonight"):
            return words.when[key], words.label[key]
        offset = (day - today).days
        named = {0: "today", 1: "tomorrow", 2: "day_after_tomorrow"}.get(offset)
        if named and (offset < 2 or key == "day_after_tomorrow"):
            return words.when[named], words.label[named]
        weekday = self.calendar.weekday(day)
        return words.when["weekday"].format(weekday=weekday), words.label["weekday"].format(
            weekday=weekday
        )

    def label(self, key: str, today: date) -> str:
        """How a day slot opens a sentence ("Saturday", "Tomorrow", "This weekend")."""
        span = resolve_day(key, today)
        if span is None:
            return key
        if span.is_span:
            return self.words.label[key]
        return self._when(key, span.first, today)[1]

    def periods(self, key: str, view: WeatherView) -> list[Period] | None:
        today = view.local_now.date()
        span = resolve_day(key, today)
        if span is None:
            return None
        forecast = view.forecast
        out = []
        for day in span.dates:
            when, label = self._when(key, day, today)
            if span.is_now:
                out.append(Period(key, day, when, label, view.now_conditions, is_now=True))
            elif span.is_night:
                out.append(Period(key, day, when, label, self._tonight(view)))
            else:
                conditions = forecast.day(day) if forecast is not None else None
                out.append(Period(key, day, when, label, conditions))
        return out

    def _tonight(self, view: WeatherView) -> Conditions | None:
        if view.forecast is None:
            return None
        now = view.local_now.replace(minute=0, second=0, microsecond=0)
        midnight = now.replace(hour=0)
        if now.hour < self.words.tonight_to_hour:  # already past midnight
            return view.forecast.window(now, midnight + timedelta(hours=self.words.tonight_to_hour))
        start = max(now, midnight + timedelta(hours=self.words.tonight_from_hour))
        end = midnight + timedelta(days=1, hours=self.words.tonight_to_hour)
        return view.forecast.window(start, end)

    # ------------------------------------------------------------------ values

    def _values(self, c: Conditions, units: Units) -> dict[str, Any]:
        w = self.words
        amount = c.precipitation
        if amount is not None:
            mm = to_metric("precipitation", amount, units.precipitation)
            amount = amount if mm >= MIN_SHOWN_PRECIPITATION_MM else None
        probability = c.precipitation_probability
        return {
            "description": w.describe(c.weather_code) if c.weather_code is not None else None,
            "temp": w.value(c.temperature, units.temperature),
            "apparent": w.value(c.apparent_temperature, units.temperature),
            "high": w.value(c.temperature_max, units.temperature),
            "low": w.value(c.temperature_min, units.temperature),
            "prob": None if probability is None else round(probability),
            "amount": w.value(amount, units.precipitation),
            "snow": w.value(c.snowfall, units.snowfall) if c.snowfall else None,
            "wind": w.value(c.wind_speed, units.wind),
            "gusts": w.value(c.wind_gusts, units.wind),
            "hours": None if c.sunshine_s is None else round(c.sunshine_s / 3600),
            "cover": None if c.cloud_cover is None else round(c.cloud_cover),
            "humidity": w.value(c.humidity, "%"),
        }

    def _fact_key(self, q: WeatherQuestion) -> str:
        if q.metric is None:
            return "summary"
        if q.metric == "temperature":
            return q.judged_metric or "temperature"
        return q.metric

    def _fact(
        self, q: WeatherQuestion, p: Period, units: Units, holds: bool | None, at: str = ""
    ) -> str | None:
        """One fact about a period; ``at`` ("on Saturday in Paris") goes where it reads well."""
        assert p.conditions is not None
        forms = self.words.facts[self._fact_key(q)]
        form = "now" if p.is_now else "day"
        if holds is False and f"{form}_none" in forms:
            form = f"{form}_none"
        values = {**self._values(p.conditions, units), "at": at}
        for template in forms[form]:
            text = fill((template,), values)
            if text is not None:
                if at and "{at}" not in template:
                    text = f"{text} {at}"
                return tidy(text)
        return None

    def _place(self, view: WeatherView) -> str:
        return self.words.place.format(place=view.place_label) if view.place_label else ""

    def _judge(self, q: WeatherQuestion, p: Period, units: Units) -> Judgment | None:
        metric = q.judged_metric
        if metric is None or p.conditions is None:
            return None
        return Judge(self.thresholds, units, self.words).judge(
            metric, p.conditions, p.is_now, q.limit
        )

    def _unknown(self, q: WeatherQuestion, when: str, place: str) -> Reply:
        metric = self.words.metric_names.get(q.metric or "", q.metric or "weather")
        return Reply(self.words.sentence("unknown", when=when, place=place, metric=metric))

    def _beyond(self, label: str, place: str) -> Reply:
        return Reply(self.words.sentence("beyond", label=label, place=place), covered=False)

    # ------------------------------------------------------------------ one period

    def _single(self, q: WeatherQuestion, p: Period, view: WeatherView) -> Reply:
        place = self._place(view)
        if p.conditions is None:
            return self._beyond(p.label, place)
        judgment = self._judge(q, p, view.units)
        holds = judgment.holds if judgment else None
        fact = self._fact(q, p, view.units, holds)
        if fact is None:
            return self._unknown(q, p.when, place)
        s = self.words.sentence
        if q.yes_no and judgment is not None:
            if holds is None:
                return self._unknown(q, p.when, place)
            fact = self._fact(q, p, view.units, holds, at=p.when + place) or fact
            text = s("answer_yes" if holds else "answer_no", fact=fact)
        else:
            text = s("heading", label=p.label, place=place, fact=fact)
        return Reply(text, _truth(holds))

    # ------------------------------------------------------------------ several days

    def _span(self, q: WeatherQuestion, periods: list[Period], view: WeatherView) -> Reply:
        place = self._place(view)
        key = periods[0].key
        when, label = self.words.when[key], self.words.label[key]
        covered = [p for p in periods if p.conditions is not None]
        if not covered:
            return self._beyond(label, place)
        if q.judged_metric is None:
            return self._span_overview(q, covered, view, label, place)
        judged = [(p, self._judge(q, p, view.units) or Judgment(None)) for p in covered]
        hits = [(p, j) for p, j in judged if j.holds]
        if not hits and all(j.holds is None for _, j in judged):
            return self._unknown(q, when, place)
        s = self.words.sentence
        if hits:
            if q.yes_no:
                facts = self._listed(q, hits, view.units, place)
                return Reply(s("span_yes", facts=facts), Truth.TRUE)
            facts = self._listed(q, hits, view.units, "")
            return Reply(s("span_heading", facts=facts, label=label, place=place), Truth.TRUE)
        strongest = max(judged, key=lambda pj: pj[1].strength)[0]
        assert strongest.conditions is not None
        values = self._values(strongest.conditions, view.units)
        none = fill(self.words.span_none[q.judged_metric], values) or ""
        complete = len(covered) == len(periods) and all(j.holds is False for _, j in judged)
        truth = Truth.FALSE if complete else Truth.UNKNOWN
        if q.yes_no:
            return Reply(s("span_no", none=none, when=when, place=place), truth)
        return Reply(s("span_heading", label=label, place=place, facts=capitalise(none)), truth)

    def _listed(
        self, q: WeatherQuestion, hits: list[tuple[Period, Judgment]], units: Units, place: str
    ) -> str:
        """ "70% chance of rain on Saturday and 60% chance of rain on Sunday"."""
        shown = sorted(hits, key=lambda pj: -pj[1].strength)[:MAX_LISTED_DAYS]
        shown.sort(key=lambda pj: pj[0].day)
        s = self.words.sentence
        items = [self._fact(q, p, units, True, at=p.when + place) or "" for p, _ in shown]
        text = self._join(items)
        if len(hits) > len(shown):
            text = s("more_days", facts=text, count=len(hits) - len(shown))
        return text

    def _join(self, items: list[str]) -> str:
        joiner = self.words.sentences["and"]
        if len(items) <= 2:
            return joiner.join(items)
        return ", ".join(items[:-1]) + joiner + items[-1]

    def _span_overview(
        self, q: WeatherQuestion, covered: list[Period], view: WeatherView, label: str, place: str
    ) -> Reply:
        """No yes or no to decide: each day of a weekend, or a week in one line."""
        s = self.words.sentence
        if len(covered) <= 2:
            items = [
                s("span_item", label=p.label, fact=self._fact(q, p, view.units, None) or "")
                for p in covered
            ]
            text = s(
                "span_heading",
                label=label,
                place=place,
                facts=self.words.sentences["list"].join(items),
            )
            return Reply(text)
        conditions = [p.conditions for p in covered if p.conditions is not None]
        values = self._range_values(conditions, view.units)
        if q.metric is None:
            rain = Judge(self.thresholds, view.units, self.words)
            wet = [
                p.when
                for p in covered
                if p.conditions and rain.judge("rain", p.conditions, False).holds
            ]
            values["rain_days"] = self._join(wet) if wet else None
            facts = fill(self.words.span_summary, values)
        else:
            facts = fill(self.words.span_temperature, values)
        if facts is None:
            return self._unknown(q, self.words.when[covered[0].key], place)
        return Reply(s("span_heading", label=label, place=place, facts=facts))

    def _range_values(self, conditions: list[Conditions], units: Units) -> dict[str, Any]:
        def pick(values: list[float | None], choose: Any) -> str | None:
            known = [v for v in values if v is not None]
            return self.words.value(choose(known), units.temperature) if known else None

        highs = [c.temperature_max for c in conditions]
        lows = [c.temperature_min for c in conditions]
        return {
            "high": pick(highs, max),
            "low": pick(lows, min),
            "high_min": pick(highs, min),
            "high_max": pick(highs, max),
            "low_min": pick(lows, min),
            "low_max": pick(lows, max),
        }
