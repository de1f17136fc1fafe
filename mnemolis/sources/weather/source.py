"""The weather source: Open-Meteo forecasts that stay honest offline.

For each part it finds the place (home, or a name looked up once and
cached), gets a forecast (a recent one from memory, else from the service in
a worker thread with a deadline), saves every good response on disk, and
hands a `WeatherView` to `ForecastAnswerer`. When the service is down or
slow it answers from the saved forecast and says how old it is, from a local
sensor for "right now", or says plainly that the weather is unavailable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from mnemolis.config import Config, ConfigError
from mnemolis.core.days import calendar_words
from mnemolis.core.plan import Part
from mnemolis.sources.base import (
    Evaluation,
    Finding,
    PartAnswer,
    Request,
    SensorReading,
    Status,
    Truth,
)
from mnemolis.sources.weather.answer import ForecastAnswerer, Reply, WeatherView
from mnemolis.sources.weather.cache import SavedForecast, WeatherCache
from mnemolis.sources.weather.forecast import (
    Conditions,
    Forecast,
    ForecastFormatError,
    celsius_to,
    parse_forecast,
    to_metric,
    units_for,
)
from mnemolis.sources.weather.open_meteo import OpenMeteoClient, OpenMeteoError, Place
from mnemolis.sources.weather.question import WeatherQuestion, read_question
from mnemolis.sources.weather.settings import WeatherSettings
from mnemolis.sources.weather.words import capitalise, weather_words

#: Looks a sensor up by its configured name; None when it has no reading (the
#: MQTT source's `read_sensor`, or a stub in tests).
SensorReader = Callable[[str], SensorReading | None]

log = logging.getLogger(__name__)

#: Part of the executor's deadline left for answering after the service gave up.
DEADLINE_SHARE = 0.8
SENSOR_MAX_AGE_S = 3600.0
SENSOR_AGE_SAID_S = 120.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def forecast_key(place: Place, units: str) -> str:
    """The cache key of a place's forecast (the demo home seeds its file by it)."""
    return f"{place.key}|{units}|{place.timezone or 'auto'}"


@dataclass
class Obtained:
    """A forecast to answer from, and how fresh it is."""

    place: Place
    forecast: Forecast | None = None
    fetched_at: datetime | None = None
    stale: bool = False  # the service failed; this is the saved forecast
    problem: str | None = None  # why the service failed, in words
    sensor: tuple[str, SensorReading] | None = None  # "right now" came from this sensor
    origin: str | None = None  # the saved forecast never came from the service (the demo's)


class WeatherUnavailable(Exception):
    """A part cannot be answered at all; the message is the sentence to say."""


class WeatherSource:
    """Implements `base.Source` for intent ``weather.forecast``."""

    name = "weather"

    def __init__(
        self,
        config: Config,
        now: Callable[[], datetime] = utc_now,
        sensor_reader: SensorReader | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.words = weather_words()
        self.now = now
        self.sensor_reader = sensor_reader
        self.problem: str | None = None
        self._fresh: dict[str, SavedForecast] = {}  # the last good response per place
        self._parsed: dict[str, tuple[datetime, Forecast]] = {}  # ... and what it parsed to
        self._places: dict[str, Place | None] = {}  # looked-up names; None: no such place
        self._locks: dict[str, asyncio.Lock] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        try:
            self.settings: WeatherSettings | None = WeatherSettings.from_config(config, environ)
        except ConfigError as exc:
            self.settings = None
            self.problem = self.words.sentence("misconfigured", reason=str(exc))
            log.error("weather: %s", exc)
            return
        s = self.settings
        self.cache = WeatherCache(s.cache_dir)
        self.client = OpenMeteoClient(s.base_url, s.geocoding_url, s.timeout_s, s.forecast_days)
        self.answerer = ForecastAnswerer(self.words, s.thresholds)

    # ------------------------------------------------------------------ protocol

    async def start(self) -> None:
        """Nothing to connect to; the first question fetches. Never raises."""
        if self.settings is not None and self.settings.place is None:
            place = self.cache.load_place(self._place_key(self.settings.place_name))
            if place is not None:
                self._places[self._place_key(self.settings.place_name)] = place

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`, for `mnemolis doctor`."""
        from mnemolis.sources.weather.doctor import diagnose

        return [await diagnose(self)]

    async def close(self) -> None:
        self._locks.clear()

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        started = time.perf_counter()
        try:
            result = await self._answer(part, request)
        except Exception as exc:  # last resort: a bug must not silence the other parts
            log.exception("weather: failed on %r", part.text)
            result = PartAnswer(f"The weather source failed: {exc}.", Status.ERROR, self.name)
        result.ms = (time.perf_counter() - started) * 1000
        return result

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        try:
            reply, obtained = await self._reply(part, request, condition=True)
        except WeatherUnavailable as exc:
            return Evaluation(Truth.UNKNOWN, str(exc))
        except Exception as exc:
            log.exception("weather: failed on condition %r", part.text)
            return Evaluation(Truth.UNKNOWN, f"The weather source failed: {exc}.")
        return Evaluation(
            reply.truth, self._dated(reply.text, obtained), self._data(reply, obtained)
        )

    # ------------------------------------------------------------------ answering

    async def _answer(self, part: Part, request: Request) -> PartAnswer:
        try:
            reply, obtained = await self._reply(part, request, condition=False)
        except WeatherUnavailable as exc:
            return PartAnswer(str(exc), Status.ERROR, self.name)
        status = Status.OK if reply.covered else Status.ERROR
        return PartAnswer(
            self._dated(reply.text, obtained),
            status,
            self.name,
            data=self._data(reply, obtained),
            provenance=self._provenance(obtained),
        )

    async def _reply(self, part: Part, request: Request, condition: bool) -> tuple[Reply, Obtained]:
        if self.settings is None:
            raise WeatherUnavailable(self.problem or "The weather source is not set up.")
        question = read_question(part, self.words.cues)
        place = await self._place(question, request)
        obtained = await self._forecast(place, request)
        view = None
        if obtained.stale and question.day in ("now", None):
            view = self._sensor_view(question, obtained)
            if view is not None:
                question = replace(question, day="now")
        view = view or self._view(question, obtained)
        if view is None:
            raise WeatherUnavailable(self._unavailable(question, obtained))
        answerer = self.answerer
        reply = answerer.evaluate(question, view) if condition else answerer.answer(question, view)
        if not reply.covered and obtained.stale:
            raise WeatherUnavailable(self._unavailable(question, obtained))
        return reply, obtained

    def _view(self, question: WeatherQuestion, obtained: Obtained) -> WeatherView | None:
        """The forecast to answer from; None when there is none."""
        forecast = obtained.forecast
        if forecast is None:
            return None
        local_now = forecast.local_time(self.now())
        # a saved forecast's "current" is as old as the file: use its hour for now instead
        current = forecast.current if not obtained.stale else None
        return WeatherView(
            forecast,
            local_now,
            current or forecast.hour(local_now),
            forecast.units,
            obtained.place.name if question.location else None,
        )

    # ------------------------------------------------------------------ sensors

    def _sensor_view(self, question: WeatherQuestion, obtained: Obtained) -> WeatherView | None:
        """This moment from a local sensor, in the configured units; None without one."""
        settings = self.settings
        if self.sensor_reader is None or settings is None or question.location:
            return None
        metric = question.metric or "temperature"
        sensor = settings.local_sensors.get(metric)
        if sensor is None:
            return None
        try:
            reading = self.sensor_reader(sensor)
        except Exception as exc:  # the reader belongs to another source: contain it
            log.warning("weather: sensor %r failed: %s", sensor, exc)
            return None
        if reading is None or reading.age_s > SENSOR_MAX_AGE_S:
            return None
        units = units_for(settings.units)
        conditions = _sensed_conditions(metric, reading, units.temperature, units.wind)
        if conditions is None:
            return None
        obtained.sensor = (sensor, reading)
        tz = ZoneInfo(settings.timezone) if settings.timezone not in (None, "auto") else None
        local_now = self.now().astimezone(tz).replace(tzinfo=None)
        return WeatherView(None, local_now, conditions, units)

    # ------------------------------------------------------------------ places

    @staticmethod
    def _place_key(name: str) -> str:
        return " ".join(name.lower().split())

    async def _place(self, question: WeatherQuestion, request: Request) -> Place:
        assert self.settings is not None
        home = question.location is None or self._place_key(question.location) == self._place_key(
            self.settings.place_name
        )
        if home and self.settings.place is not None:
            return self.settings.place
        name = self.settings.place_name if home else question.location or ""
        key = self._place_key(name)
        if key in self._places:
            place = self._places[key]
        else:
            place = self.cache.load_place(key)
            if place is None:
                try:
                    place = await self._in_thread(self.client.search_place, request, name)
                except OpenMeteoError as exc:
                    reason = self._reason(exc, search=True)
                    raise WeatherUnavailable(
                        self.words.sentence("place_unavailable", place=name, reason=reason)
                    ) from exc
                if place is not None:
                    await asyncio.to_thread(self.cache.save_place, key, place)
            self._places[key] = place
        if place is None:
            shown = name.title() if name == name.lower() else name
            raise WeatherUnavailable(self.words.sentence("unknown_place", place=shown))
        if home and self.settings.timezone:  # the owner's time zone wins for home
            place = replace(place, timezone=self.settings.timezone)
        return place

    # ------------------------------------------------------------------ forecasts

    def _key(self, place: Place) -> str:
        assert self.settings is not None
        return forecast_key(place, self.settings.units)

    def _lock(self, key: str) -> asyncio.Lock:
        """One lock per place, so parts asking about it share one fetch; locks belong
        to the running loop, so a new loop (a restart in tests) gets new ones."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._locks = loop, {}
        return self._locks.setdefault(key, asyncio.Lock())

    def _recent(self, key: str) -> SavedForecast | None:
        """A forecast young enough to use without asking: from memory, else from disk.
        One the service never sent (the demo's) is never that: the service is asked
        first, and the answer says where it came from when it is used."""
        assert self.settings is not None
        now = self.now()
        saved = self._fresh.get(key) or self.cache.load_forecast(key)
        if saved is None or saved.origin is not None:
            return None
        if saved.age_s(now) >= self.settings.refresh_s:
            return None
        self._fresh[key] = saved
        return saved

    async def _forecast(self, place: Place, request: Request) -> Obtained:
        """A recent forecast, else the service's, else the saved one, dated."""
        assert self.settings is not None
        key = self._key(place)
        async with self._lock(key):
            saved = self._recent(key)
            if saved is not None:
                forecast = self._parse(key, saved)
                if forecast is not None:
                    return Obtained(place, forecast, saved.fetched_at)
            try:
                response = await self._in_thread(
                    self.client.fetch_forecast, request, place, self.settings.units
                )
                forecast = parse_forecast(response)
            except (OpenMeteoError, ForecastFormatError) as exc:
                if isinstance(exc, ForecastFormatError):
                    exc = OpenMeteoError("malformed", str(exc))
                log.warning("weather: forecast for %s failed: %s", place.name, exc)
                return self._saved(place, key, self._reason(exc))
            now = self.now()
            self._fresh[key] = SavedForecast(now, response)
            self._parsed[key] = (now, forecast)
            await asyncio.to_thread(self.cache.save_forecast, key, response, now)
            return Obtained(place, forecast, now)

    def _parse(self, key: str, saved: SavedForecast) -> Forecast | None:
        cached = self._parsed.get(key)
        if cached is not None and cached[0] == saved.fetched_at:
            return cached[1]
        try:
            forecast = parse_forecast(saved.response)
        except ForecastFormatError as exc:
            log.warning("weather: saved forecast unreadable: %s", exc)
            return None
        self._parsed[key] = (saved.fetched_at, forecast)
        return forecast

    def _saved(self, place: Place, key: str, problem: str) -> Obtained:
        """The service failed: the saved forecast if it is not too old."""
        assert self.settings is not None
        saved = self._fresh.get(key) or self.cache.load_forecast(key)
        if saved is None or saved.age_s(self.now()) > self.settings.max_cache_age_s:
            return Obtained(place, stale=True, problem=problem)
        forecast = self._parse(key, saved)
        return Obtained(place, forecast, saved.fetched_at, True, problem, origin=saved.origin)

    async def _in_thread(self, call: Callable[..., Any], request: Request, *args: Any) -> Any:
        """A blocking call in a worker thread, given up on at the deadline."""
        assert self.settings is not None
        deadline = min(self.settings.timeout_s, request.timeout_s * DEADLINE_SHARE)
        try:
            return await asyncio.wait_for(asyncio.to_thread(call, *args), deadline)
        except TimeoutError as exc:
            raise OpenMeteoError("timeout", f"{deadline:g}") from exc

    # ------------------------------------------------------------------ words

    def _reason(self, exc: OpenMeteoError, search: bool = False) -> str:
        assert self.settings is not None
        reasons = self.words.reasons
        if search and exc.kind in ("unreachable", "timeout"):
            return reasons["search_unreachable"]
        if exc.kind == "timeout":  # the executor's deadline may be the shorter one
            seconds = exc.detail or f"{self.settings.timeout_s:g}"
            return reasons["timeout"].format(seconds=seconds)
        if exc.kind == "http":
            return reasons["http"].format(status=exc.status)
        if exc.kind == "refused":
            return reasons["refused"].format(detail=exc.detail)
        return reasons.get(exc.kind, reasons["unreachable"])

    def _unavailable(self, question: WeatherQuestion, obtained: Obtained) -> str:
        place = self.words.place.format(place=obtained.place.name) if question.location else ""
        reason = obtained.problem or self.words.reasons["unreachable"]
        if obtained.forecast is None:
            return self.words.sentence("unavailable", reason=reason, place=place)
        today = obtained.forecast.local_time(self.now()).date()
        label = self.answerer.label(question.day or "today", today)
        if label in self.words.label.values():  # "Tomorrow" mid-sentence; "Thursday" stays
            label = label.lower()
        return self.words.sentence("unavailable_day", reason=reason, label=label)

    def _age(self, age_s: float) -> str:
        age = self.words.age
        minutes = int(age_s // 60)
        if minutes < 1:
            return age["just_now"]
        if minutes < 60:
            return age["minute"] if minutes == 1 else age["minutes"].format(n=minutes)
        hours = int(age_s // 3600)
        if hours < 48:
            return age["hour"] if hours == 1 else age["hours"].format(n=hours)
        days = int(age_s // 86400)
        return age["day"] if days == 1 else age["days"].format(n=days)

    def _dated(self, text: str, obtained: Obtained) -> str:
        """Say where a stale answer came from: the sensor, or the saved forecast's age."""
        if not obtained.stale:
            return text
        reason = obtained.problem or self.words.reasons["unreachable"]
        if obtained.sensor is not None:
            sensor, reading = obtained.sensor
            age = f" {self._age(reading.age_s)}" if reading.age_s >= SENSOR_AGE_SAID_S else ""
            return self.words.sentence(
                "from_sensor", sentence=text.rstrip("."), sensor=sensor, age=age, reason=reason
            )
        assert obtained.fetched_at is not None
        age = self._age((self.now() - obtained.fetched_at).total_seconds())
        first = text.split(maxsplit=1)[0].strip(",:") if text else ""
        if first not in calendar_words().weekdays:  # "Saturday" keeps its capital
            text = text[:1].lower() + text[1:]
        if obtained.origin is not None:
            origin = self.words.origins.get(obtained.origin, obtained.origin)
            return capitalise(
                self.words.sentence("stale_origin", age=age, origin=origin, sentence=text)
            )
        return capitalise(self.words.sentence("stale", age=age, sentence=text))

    def _data(self, reply: Reply, obtained: Obtained) -> dict[str, Any]:
        now = self.now()
        data: dict[str, Any] = {
            "place": obtained.place.name,
            "latitude": obtained.place.latitude,
            "longitude": obtained.place.longitude,
            **reply.data,
            "stale": obtained.stale,
        }
        if obtained.fetched_at is not None:
            data["age_s"] = round((now - obtained.fetched_at).total_seconds())
        if obtained.problem:
            data["problem"] = obtained.problem
        if obtained.origin is not None:
            data["origin"] = obtained.origin
        if obtained.sensor is not None:
            data["sensor"], data["sensor_age_s"] = obtained.sensor[0], obtained.sensor[1].age_s
        if reply.truth is not Truth.UNKNOWN:
            data["truth"] = str(reply.truth)
        return data

    def _provenance(self, obtained: Obtained) -> dict[str, Any]:
        origin = "sensor" if obtained.sensor else "cache" if obtained.stale else "open-meteo"
        out: dict[str, Any] = {"from": origin}
        if obtained.origin is not None and not obtained.sensor:
            out["origin"] = obtained.origin
        if obtained.fetched_at is not None:
            out["fetched_at"] = obtained.fetched_at.isoformat()
        return out


def _sensed_conditions(
    metric: str, reading: SensorReading, temperature_unit: str, wind_unit: str
) -> Conditions | None:
    """A sensor reading as this moment's conditions, converted to the forecast's units."""
    if metric == "temperature":
        celsius = to_metric("temperature", reading.value, reading.unit)
        return Conditions(temperature=celsius_to(temperature_unit, celsius))
    if metric == "humidity":
        return Conditions(humidity=reading.value)
    if metric == "wind":
        kmh = to_metric("wind", reading.value, reading.unit)
        return Conditions(wind_speed=kmh / to_metric("wind", 1.0, wind_unit))
    return None
