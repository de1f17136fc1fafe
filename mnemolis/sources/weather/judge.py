"""Whether a period's weather counts as "rain", "windy", "cold"...

One rule per judged metric, with the limits from `Thresholds` (metric
units; values are converted from whatever the forecast sent). A rule that
lacks the figures it needs says so with ``holds=None`` rather than guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mnemolis.sources.weather.forecast import Conditions, Units, to_metric
from mnemolis.sources.weather.question import Limit
from mnemolis.sources.weather.settings import Thresholds
from mnemolis.sources.weather.words import WeatherWords

#: Metrics a yes or no can be decided on ("temperature" leans to cold or hot).
JUDGED = ("rain", "snow", "cold", "hot", "wind", "sun", "cloud", "humidity", "fog")


@dataclass(frozen=True)
class Judgment:
    holds: bool | None  # None: the forecast lacks the figures
    strength: float = 0.0  # ranks days: the likelier or stronger first


UNKNOWN = Judgment(None)


@dataclass(frozen=True)
class Judge:
    thresholds: Thresholds
    units: Units
    words: WeatherWords

    def judge(
        self, metric: str, c: Conditions, is_now: bool, limit: Limit | None = None
    ) -> Judgment:
        rule: Callable[[Conditions, bool, Limit | None], Judgment] | None = getattr(
            self, f"_{metric}", None
        )
        return rule(c, is_now, limit) if metric in JUDGED and rule else UNKNOWN

    def _kinds(self, c: Conditions) -> frozenset[str]:
        return self.words.kinds(c.codes)

    def _rain(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        t = self.thresholds
        if is_now:
            if c.weather_code is None and c.precipitation is None:
                return UNKNOWN
            wet = c.precipitation is not None and c.precipitation > 0
            return Judgment(wet or "rain" in self._kinds(c), c.precipitation or 0.0)
        probability, amount = c.precipitation_probability, c.precipitation
        if probability is None and amount is None:
            return Judgment("rain" in self._kinds(c)) if c.codes else UNKNOWN
        mm = to_metric("precipitation", amount, self.units.precipitation) if amount else 0.0
        likely = probability is not None and probability >= t.rain_probability
        return Judgment(likely or mm >= t.rain_precipitation_mm, probability or mm)

    def _snow(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        if c.snowfall is None:
            return Judgment("snow" in self._kinds(c)) if c.codes else UNKNOWN
        cm = to_metric("snowfall", c.snowfall, self.units.snowfall)
        limit = 0.0 if is_now else self.thresholds.snow_snowfall_cm
        return Judgment(cm > limit if is_now else cm >= limit, cm)

    def _reading(self, c: Conditions, is_now: bool, lowest: bool) -> float | None:
        if is_now:
            return c.temperature
        return c.temperature_min if lowest else c.temperature_max

    def _cold(self, c: Conditions, is_now: bool, limit: Limit | None) -> Judgment:
        value = self._reading(c, is_now, lowest=True)
        if value is None:
            return UNKNOWN
        if limit is not None:
            return Judgment(value < limit.value, -value)
        celsius = to_metric("temperature", value, self.units.temperature)
        return Judgment(celsius < self.thresholds.cold_below_c, -value)

    def _hot(self, c: Conditions, is_now: bool, limit: Limit | None) -> Judgment:
        value = self._reading(c, is_now, lowest=False)
        if value is None:
            return UNKNOWN
        if limit is not None:
            return Judgment(value > limit.value, value)
        celsius = to_metric("temperature", value, self.units.temperature)
        return Judgment(celsius > self.thresholds.hot_above_c, value)

    def _wind(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        if c.wind_speed is None and c.wind_gusts is None:
            return UNKNOWN
        speed = to_metric("wind", c.wind_speed or 0.0, self.units.wind)
        gusts = to_metric("wind", c.wind_gusts or 0.0, self.units.wind)
        t = self.thresholds
        return Judgment(speed >= t.wind_speed_kmh or gusts >= t.wind_gusts_kmh, speed)

    def _sun(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        if is_now or c.sunshine_s is None:
            if not c.codes:
                return UNKNOWN
            return Judgment("sun" in self._kinds(c) and c.is_day is not False)
        hours = c.sunshine_s / 3600
        return Judgment(hours >= self.thresholds.sun_sunshine_hours, hours)

    def _cloud(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        if c.cloud_cover is None:
            return Judgment("cloud" in self._kinds(c)) if c.codes else UNKNOWN
        return Judgment(c.cloud_cover >= self.thresholds.cloud_cover_percent, c.cloud_cover)

    def _humidity(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        if c.humidity is None:
            return UNKNOWN
        return Judgment(c.humidity >= self.thresholds.humidity_relative_percent, c.humidity)

    def _fog(self, c: Conditions, is_now: bool, _: Limit | None) -> Judgment:
        return Judgment("fog" in self._kinds(c)) if c.codes else UNKNOWN
