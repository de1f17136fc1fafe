"""The Open-Meteo client and the forecast parser on their own: query
parameters, error kinds, and what a recorded response parses into."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from mnemolis.sources.weather.forecast import ForecastFormatError, parse_forecast, to_metric
from mnemolis.sources.weather.open_meteo import (
    MAX_RESPONSE_BYTES,
    OpenMeteoClient,
    OpenMeteoError,
    Place,
)
from tests.support_open_meteo import (  # noqa: F401
    Canned,
    OpenMeteoReplay,
    closed_port_url,
    open_meteo,
    recorded,
)

BERLIN = Place("Berlin", 52.52, 13.41, "Europe/Berlin")


def client(url: str, timeout_s: float = 2.0) -> OpenMeteoClient:
    return OpenMeteoClient(url, url, timeout_s)


def test_forecast_request_carries_place_units_and_variables(
    open_meteo: OpenMeteoReplay,  # noqa: F811
) -> None:
    data = client(open_meteo.url).fetch_forecast(BERLIN, "imperial")
    assert data["daily_units"]["temperature_2m_max"] == "°F"
    [request] = open_meteo.requests("/v1/forecast")
    assert request.query["latitude"] == "52.5200"
    assert request.query["timezone"] == "Europe/Berlin"
    assert request.query["temperature_unit"] == "fahrenheit"
    assert request.query["forecast_days"] == "7"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("paris", Place("Paris", 48.85341, 2.3488, "Europe/Paris", "France")),
        ("new york", Place("New York", 40.71427, -74.00597, "America/New_York", "United States")),
        ("atlantis", None),
    ],
)
def test_search_place(
    open_meteo: OpenMeteoReplay,  # noqa: F811
    name: str,
    expected: Place | None,
) -> None:
    assert client(open_meteo.url).search_place(name) == expected


@pytest.mark.parametrize(
    ("canned", "kind", "detail"),
    [
        (Canned(400, recorded("error_400.json")), "refused", "Cannot initialize WeatherVariable"),
        (Canned(500, recorded("error_500.html"), "text/html"), "http", ""),
        (Canned(200, recorded("malformed.json")), "malformed", "invalid JSON"),
        (Canned(200, b"[1, 2, 3]"), "malformed", "not a JSON object"),
        (Canned(200, b" " * (MAX_RESPONSE_BYTES + 1)), "malformed", "too large"),
        (Canned(200, b"{}", delay_s=5.0), "timeout", ""),
    ],
    ids=["400-reason", "500", "malformed", "not-an-object", "too-large", "hang"],
)
def test_failures_become_one_error_with_a_kind(
    open_meteo: OpenMeteoReplay,  # noqa: F811
    canned: Canned,
    kind: str,
    detail: str,
) -> None:
    open_meteo.fail_with(canned)
    with pytest.raises(OpenMeteoError) as caught:
        client(open_meteo.url, timeout_s=0.3).fetch_forecast(BERLIN, "metric")
    assert caught.value.kind == kind
    assert detail in caught.value.detail
    if kind == "http":
        assert caught.value.status == 500


def test_nothing_listening_is_unreachable() -> None:
    with pytest.raises(OpenMeteoError) as caught:
        client(closed_port_url()).search_place("paris")
    assert caught.value.kind == "unreachable"


def test_recorded_forecast_parses_into_days_hours_and_units() -> None:
    forecast = parse_forecast(json.loads(recorded("forecast_berlin_imperial.json")))
    assert forecast.timezone == "Europe/Berlin"
    assert forecast.utc_offset_s == 7200
    assert (forecast.units.temperature, forecast.units.wind) == ("°F", "mp/h")
    assert (forecast.units.precipitation, forecast.units.snowfall) == ("inch", "inch")
    assert len(forecast.days) == 7
    assert len(forecast.hours) == 7 * 24
    saturday = forecast.day(date(2025, 6, 14))
    assert saturday is not None
    assert saturday.weather_code == 61
    assert saturday.precipitation_probability == 70
    assert saturday.temperature_max is not None
    assert to_metric("temperature", saturday.temperature_max, "°F") == pytest.approx(16.0, abs=0.1)
    assert saturday.humidity == pytest.approx(78)
    assert forecast.current is not None and forecast.current.is_day is True
    assert forecast.local_time(datetime(2025, 6, 11, 8, 0, tzinfo=UTC)).hour == 10


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (json.loads(recorded("wrong_shape.json")), "does not match daily.time"),
        ({"latitude": 1.0, "longitude": 2.0}, "no current, hourly or daily"),
        ({"latitude": "north", "longitude": 2.0, "daily": {}}, "latitude is not a number"),
        (
            {"latitude": 1.0, "longitude": 2.0, "daily": {"time": ["2025-13-45"]}},
            "not an ISO time",
        ),
        ({"latitude": 1.0, "longitude": 2.0, "utc_offset_seconds": 10**9, "daily": {}}, "offset"),
    ],
)
def test_wrong_shapes_are_refused_with_a_reason(raw: object, reason: str) -> None:
    with pytest.raises(ForecastFormatError, match=reason):
        parse_forecast(raw)


def with_columns(name: str, **blocks: dict[str, object]) -> dict[str, object]:
    """A recorded forecast with extra columns added to its blocks."""
    raw: dict[str, object] = json.loads(recorded(name))
    for block, extra in blocks.items():
        target = raw[block]
        assert isinstance(target, dict)
        target.update(extra)
    return raw


def test_columns_mnemolis_did_not_ask_for_are_ignored() -> None:
    """A tolerant reader: Open-Meteo's ``sunrise`` is ISO text (its docs: daily
    ``sunrise``/``sunset`` are iso8601), a column of another length or kind is not ours."""
    plain = parse_forecast(json.loads(recorded("forecast_berlin_metric.json")))
    days = sorted(plain.days)
    sunrise = [f"{d.isoformat()}T04:44" for d in days]
    raw = with_columns(
        "forecast_berlin_metric.json",
        daily={"sunrise": sunrise, "uv_index_max": [1.0]},
        hourly={"visibility": ["far"]},
        current={"sunshine": "lots"},
    )
    forecast = parse_forecast(raw)
    assert forecast.days == plain.days
    assert forecast.hours == plain.hours
    assert forecast.current == plain.current


def test_a_column_mnemolis_asked_for_is_still_checked() -> None:
    raw = with_columns("forecast_berlin_metric.json", daily={"temperature_2m_max": ["warm"]})
    with pytest.raises(ForecastFormatError, match=r"daily\.temperature_2m_max does not match"):
        parse_forecast(raw)
