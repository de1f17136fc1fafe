"""Offline honesty: when Open-Meteo fails (HTTP 400 with a reason, 500, a
hang past the timeout, malformed JSON, a refused connection) the answer uses
the saved forecast and says how old it is, a local sensor for "right now",
or says plainly that the weather is unavailable."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.core.plan import Part
from mnemolis.sources.base import SensorReading, Status
from tests.support_open_meteo import (  # noqa: F401
    Canned,
    OpenMeteoReplay,
    closed_port_url,
    open_meteo,
    recorded,
)
from tests.support_weather import WEDNESDAY_MORNING, ask, frozen, make_source

TOMORROW = Part("what's the weather tomorrow", "weather.forecast", "weather", {"day": "tomorrow"})
TEMPERATURE_NOW = Part(
    "what's the temperature outside", "weather.forecast", "weather", {"metric": "temperature"}
)
QUICK = {"timeout_s": 0.3}  # a hang is given up on quickly


@dataclass(frozen=True)
class Failure:
    """One way the service fails, and how the answer words it."""

    name: str
    canned: Canned | None  # None: nothing listens on the port
    reason: str


FAILURES = [
    Failure(
        "http-400-with-reason",
        Canned(400, recorded("error_400.json")),
        "the service refused the request (Cannot initialize WeatherVariable from invalid String",
    ),
    Failure(
        "http-500", Canned(500, recorded("error_500.html"), "text/html"), "answered with HTTP 500"
    ),
    Failure(
        "hang-past-timeout",
        Canned(200, recorded("forecast_berlin_metric.json"), delay_s=5.0),
        "did not answer within 0.3 seconds",
    ),
    Failure("malformed-json", Canned(200, recorded("malformed.json")), "could not read"),
    Failure("wrong-shape", Canned(200, recorded("wrong_shape.json")), "could not read"),
    Failure(
        "error-object-with-http-200",
        Canned(200, b'{"error":true,"reason":"Latitude must be in range of -90 to 90."}'),
        "refused the request (Latitude must be in range",
    ),
    Failure("connection-refused", None, "the service cannot be reached"),
]


def _break(server: OpenMeteoReplay, failure: Failure) -> str:
    """Make the service fail; the URL the source should use from now on."""
    if failure.canned is None:
        return closed_port_url()
    server.fail_with(failure.canned)
    return server.url


@pytest.mark.parametrize("failure", FAILURES, ids=[f.name for f in FAILURES])
def test_failure_with_saved_forecast_says_how_old_it_is(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
    failure: Failure,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    first = make_source(config, open_meteo.url, tmp_path, clock, **QUICK)
    assert ask(first, TOMORROW).status is Status.OK  # saved on disk
    clock.advance(hours=3)
    url = _break(open_meteo, failure)
    later = make_source(config, url, tmp_path, clock, **QUICK)  # a restart: memory is empty
    result = ask(later, TOMORROW)
    assert result.status is Status.OK
    assert result.text.startswith("As of 3 hours ago, tomorrow: moderate rain, 12°C to 17°C")
    assert result.data["stale"] is True
    assert result.data["age_s"] == 3 * 3600
    assert failure.reason in result.data["problem"]
    assert result.provenance["from"] == "cache"


@pytest.mark.parametrize("failure", FAILURES, ids=[f.name for f in FAILURES])
def test_failure_without_saved_forecast_says_unavailable(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
    failure: Failure,
) -> None:
    url = _break(open_meteo, failure)
    source = make_source(config, url, tmp_path, frozen(WEDNESDAY_MORNING), **QUICK)
    result = ask(source, TOMORROW)
    assert result.status is Status.ERROR
    assert result.text.startswith("The weather is unavailable: ")
    assert failure.reason in result.text
    assert result.text.endswith("and there is no saved forecast.")


def test_saved_forecast_past_max_age_is_not_used(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    clock.advance(hours=49)
    source = make_source(config, closed_port_url(), tmp_path, clock)
    result = ask(source, TOMORROW)
    assert result.status is Status.ERROR
    assert "no saved forecast" in result.text


@pytest.mark.parametrize(
    ("slots", "label"),
    [({"day": "thursday"}, "Thursday"), ({"day": "tomorrow"}, "tomorrow")],
)
def test_saved_forecast_that_does_not_reach_the_day_says_so(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
    slots: dict[str, str],
    label: str,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock, max_cache_age_hours=200), TOMORROW)
    clock.advance(days=6)  # Tuesday 17 June: the saved days end today
    source = make_source(config, closed_port_url(), tmp_path, clock, max_cache_age_hours=200)
    result = ask(source, Part("what's the weather", "weather.forecast", "weather", slots))
    assert result.status is Status.ERROR
    assert result.text == (
        "The weather is unavailable: the service cannot be reached, "
        f"and {label} is beyond the saved forecast."
    )


def test_fresh_forecast_that_does_not_reach_the_day_says_so(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    clock.advance(days=6)  # the recording still starts on Wednesday 11 June
    source = make_source(config, open_meteo.url, tmp_path, clock)
    part = Part(
        "will it rain on thursday",
        "weather.forecast",
        "weather",
        {"metric": "rain", "day": "thursday"},
    )
    result = ask(source, part)
    assert result.status is Status.ERROR
    assert result.text == "Thursday is beyond the forecast."


def test_saved_current_conditions_use_the_saved_hour(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    clock.advance(hours=5)  # 15:00 in Berlin: the saved day's warmest hour
    source = make_source(config, closed_port_url(), tmp_path, clock)
    result = ask(source, TEMPERATURE_NOW)
    assert result.text == "As of 5 hours ago, right now: 22°C."


class StubSensors:
    """A sensor reader as the MQTT source will offer it."""

    def __init__(self, readings: dict[str, SensorReading]) -> None:
        self.readings = readings
        self.asked: list[str] = []

    def __call__(self, name: str) -> SensorReading | None:
        self.asked.append(name)
        return self.readings.get(name)


@pytest.mark.parametrize(
    ("reading", "units", "expected"),
    [
        (
            SensorReading(12.4, "°C", 30.0),
            "metric",
            "Right now: 12°C, from the outdoor temperature sensor; "
            "the weather service is unavailable: the service cannot be reached.",
        ),
        (
            SensorReading(20.0, "°C", 600.0),
            "imperial",
            "Right now: 68°F, from the outdoor temperature sensor as of 10 minutes ago; "
            "the weather service is unavailable: the service cannot be reached.",
        ),
        (
            SensorReading(50.0, "°F", 0.0),
            "metric",
            "Right now: 10°C, from the outdoor temperature sensor;",
        ),
    ],
)
def test_local_sensor_answers_right_now_when_the_service_is_down(
    config: Config,
    tmp_path: Path,
    reading: SensorReading,
    units: str,
    expected: str,
) -> None:
    sensors = StubSensors({"outdoor temperature": reading})
    clock = frozen(WEDNESDAY_MORNING)
    source = make_source(config, closed_port_url(), tmp_path, clock, sensors, units=units)
    result = ask(source, TEMPERATURE_NOW)
    assert result.status is Status.OK
    assert result.text.startswith(expected)
    assert sensors.asked == ["outdoor temperature"]
    assert result.provenance["from"] == "sensor"
    assert result.data["sensor"] == "outdoor temperature"


def test_sensor_wins_over_saved_forecast_for_right_now_and_answers_yes_no(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    clock.advance(hours=2)
    sensors = StubSensors({"outdoor temperature": SensorReading(4.0, "°C", 60.0)})
    source = make_source(config, closed_port_url(), tmp_path, clock, sensors)
    cold = Part(
        "is it cold right now",
        "weather.forecast",
        "weather",
        {"metric": "temperature", "day": "now"},
    )
    result = ask(source, cold)
    assert result.text.startswith("Yes, 4°C right now, from the outdoor temperature sensor")
    assert result.data["answer"] == "yes"
    # a question about tomorrow still comes from the saved forecast
    assert ask(source, TOMORROW).text.startswith("As of 2 hours ago, tomorrow:")


@pytest.mark.parametrize(
    "sensors",
    [
        StubSensors({}),  # no reading
        StubSensors({"outdoor temperature": SensorReading(20.0, "°C", 7200.0)}),  # too old
    ],
    ids=["no-reading", "stale-reading"],
)
def test_without_a_usable_sensor_the_weather_is_unavailable(
    config: Config, tmp_path: Path, sensors: StubSensors
) -> None:
    source = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), sensors)
    result = ask(source, TEMPERATURE_NOW)
    assert result.status is Status.ERROR
    assert result.text.startswith("The weather is unavailable")


def test_a_failing_sensor_reader_is_contained(config: Config, tmp_path: Path) -> None:
    def broken(name: str) -> SensorReading | None:
        raise RuntimeError("broker gone")

    source = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), broken)
    result = ask(source, TEMPERATURE_NOW)
    assert result.status is Status.ERROR
    assert "unavailable" in result.text


def test_sensor_is_not_asked_about_metrics_it_does_not_measure(
    config: Config, tmp_path: Path
) -> None:
    sensors = StubSensors({"outdoor temperature": SensorReading(20.0, "°C", 0.0)})
    source = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), sensors)
    wind = Part("is it windy", "weather.forecast", "weather", {"metric": "wind", "day": "now"})
    assert ask(source, wind).status is Status.ERROR
    assert sensors.asked == []


def test_place_search_down_says_so_and_a_saved_place_is_not_searched_again(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    paris = Part(
        "what's the weather in paris", "weather.forecast", "weather", {"location": "paris"}
    )
    clock = frozen(WEDNESDAY_MORNING)
    down = make_source(config, closed_port_url(), tmp_path, clock)
    result = ask(down, paris)
    assert result.status is Status.ERROR
    assert result.text == "I can't look up paris: the place search cannot be reached."
    assert ask(make_source(config, open_meteo.url, tmp_path, clock), paris).status is Status.OK
    assert len(open_meteo.requests("/v1/search")) == 1
    again = make_source(config, open_meteo.url, tmp_path, clock)  # a restart
    assert ask(again, paris).status is Status.OK
    assert len(open_meteo.requests("/v1/search")) == 1


def test_unreadable_cache_files_are_treated_as_missing(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    for saved in tmp_path.glob("forecast-*.json"):
        saved.write_text("{not json", encoding="utf-8")
    result = ask(make_source(config, closed_port_url(), tmp_path, clock), TOMORROW)
    assert result.status is Status.ERROR
    assert "no saved forecast" in result.text


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"units": "kelvin"}, "units must be metric or imperial"),
        ({"timeout_s": -1}, "timeout_s"),
        ({"timezone": "Mars/Olympus"}, "unknown time zone"),
        ({"place": {"latitude": 123, "longitude": 13.4}}, "latitude"),
        ({"thresholds": {"rain": {"chance": 40}}}, "unknown key 'chance'"),
        ({"local_sensors": {"pollen": "pollen sensor"}}, "unknown metric 'pollen'"),
    ],
)
def test_bad_settings_give_an_error_answer_naming_the_file(
    config: Config, tmp_path: Path, changes: dict[str, object], reason: str
) -> None:
    source = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), **changes)
    result = ask(source, TOMORROW)
    assert result.status is Status.ERROR
    assert result.text.startswith("The weather source is not set up: ")
    assert "sources/weather.yaml" in result.text
    assert reason in result.text


def test_restart_within_the_refresh_window_uses_the_saved_forecast(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    clock = frozen(WEDNESDAY_MORNING)
    ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    clock.advance(minutes=5)
    result = ask(make_source(config, open_meteo.url, tmp_path, clock), TOMORROW)
    assert result.text.startswith("Tomorrow: moderate rain")  # fresh: not dated
    assert result.data["stale"] is False
    assert len(open_meteo.requests("/v1/forecast")) == 1


def test_executor_deadline_shorter_than_the_yaml_timeout_is_the_one_said(
    config: Config,
    open_meteo: OpenMeteoReplay,  # noqa: F811
    tmp_path: Path,
) -> None:
    open_meteo.fail_with(Canned(200, recorded("forecast_berlin_metric.json"), delay_s=5.0))
    source = make_source(config, open_meteo.url, tmp_path, frozen(WEDNESDAY_MORNING), timeout_s=1)
    result = ask(source, TOMORROW, timeout_s=0.5)  # the yaml says 1 s; 80% of 0.5 s is left
    assert result.status is Status.ERROR
    assert "did not answer within 0.4 seconds" in result.text


def test_sources_follow_the_protocol_and_start_never_raises(config: Config, tmp_path: Path) -> None:
    import asyncio

    from mnemolis.sources.base import Source
    from mnemolis.sources.clock.source import ClockSource

    broken = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), units="?")
    working = make_source(config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING))
    named = make_source(
        config, closed_port_url(), tmp_path, frozen(WEDNESDAY_MORNING), place="Nowhere"
    )
    clock = ClockSource(config, now=frozen(WEDNESDAY_MORNING))
    for source in (broken, working, named, clock):
        assert isinstance(source, Source)
        asyncio.run(source.start())
        asyncio.run(source.close())
    assert (working.name, clock.name) == ("weather", "clock")
