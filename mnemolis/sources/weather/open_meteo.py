"""Open-Meteo over HTTP with urllib: the forecast API and the place search.

Blocking on purpose: the weather source runs these calls in a worker thread
with a deadline. Every failure becomes an `OpenMeteoError` with a kind the
source can word (timeout, unreachable, http, refused, malformed); nothing
else escapes.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

FORECAST_PATH = "/v1/forecast"
SEARCH_PATH = "/v1/search"
MAX_RESPONSE_BYTES = 2_000_000
MAX_PLACE_CHARS = 100
USER_AGENT = "mnemolis/0.1 (+https://github.com/mnemolis)"

#: What one forecast call asks for, per block: `forecast.Conditions` field ->
#: Open-Meteo variable. The parser reads the response with the same tables.
HOURLY_FIELDS = {
    "temperature": "temperature_2m",
    "humidity": "relative_humidity_2m",
    "precipitation_probability": "precipitation_probability",
    "precipitation": "precipitation",
    "snowfall": "snowfall",
    "weather_code": "weather_code",
    "cloud_cover": "cloud_cover",
    "wind_speed": "wind_speed_10m",
    "wind_gusts": "wind_gusts_10m",
}
CURRENT_FIELDS = {
    **{k: v for k, v in HOURLY_FIELDS.items() if k != "precipitation_probability"},
    "apparent_temperature": "apparent_temperature",
    "is_day": "is_day",
}
DAILY_FIELDS = {
    "weather_code": "weather_code",
    "temperature_max": "temperature_2m_max",
    "temperature_min": "temperature_2m_min",
    "precipitation": "precipitation_sum",
    "snowfall": "snowfall_sum",
    "precipitation_probability": "precipitation_probability_max",
    "wind_speed": "wind_speed_10m_max",
    "wind_gusts": "wind_gusts_10m_max",
    "sunshine_s": "sunshine_duration",
}
UNIT_PARAMS = {
    "metric": {"temperature_unit": "celsius", "wind_speed_unit": "kmh", "precipitation_unit": "mm"},
    "imperial": {
        "temperature_unit": "fahrenheit",
        "wind_speed_unit": "mph",
        "precipitation_unit": "inch",
    },
}


class OpenMeteoError(Exception):
    """The service could not give a usable answer; ``kind`` says how."""

    def __init__(self, kind: str, detail: str = "", status: int | None = None) -> None:
        self.kind = kind  # timeout | unreachable | http | refused | malformed
        self.detail = detail
        self.status = status
        super().__init__(f"{kind}: {detail}" if detail else kind)


@dataclass(frozen=True)
class Place:
    """A point the forecast is for, with the name said in answers."""

    name: str
    latitude: float
    longitude: float
    timezone: str | None = None
    country: str | None = None

    @property
    def key(self) -> str:
        """Stable for the cache: coordinates to about ten metres."""
        return f"{self.latitude:.4f},{self.longitude:.4f}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "timezone": self.timezone,
            "country": self.country,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Place | None:
        """A place from a geocoding result or the cache; None when it is not one."""
        if not isinstance(data, dict):
            return None
        lat, lon, name = data.get("latitude"), data.get("longitude"), data.get("name")
        if not isinstance(lat, int | float) or not isinstance(lon, int | float):
            return None
        if isinstance(lat, bool) or isinstance(lon, bool) or not isinstance(name, str):
            return None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            return None
        tz, country = data.get("timezone"), data.get("country")
        return cls(
            name=name[:MAX_PLACE_CHARS],
            latitude=float(lat),
            longitude=float(lon),
            timezone=tz if isinstance(tz, str) else None,
            country=country if isinstance(country, str) else None,
        )


@dataclass(frozen=True)
class OpenMeteoClient:
    """One configured endpoint pair; cheap to build, holds no connection."""

    base_url: str
    geocoding_url: str
    timeout_s: float
    forecast_days: int = 7
    language: str = "en"

    def forecast_url(self, place: Place, units: str) -> str:
        """Days and hours in the place's own time zone ("auto": the service decides)."""
        params = {
            "latitude": f"{place.latitude:.4f}",
            "longitude": f"{place.longitude:.4f}",
            "timezone": place.timezone or "auto",
            "forecast_days": str(self.forecast_days),
            "current": ",".join(CURRENT_FIELDS.values()),
            "hourly": ",".join(HOURLY_FIELDS.values()),
            "daily": ",".join(DAILY_FIELDS.values()),
            **UNIT_PARAMS[units],
        }
        return self.base_url.rstrip("/") + FORECAST_PATH + "?" + _query(params)

    def search_url(self, name: str) -> str:
        params = {"name": name[:MAX_PLACE_CHARS], "count": "1", "language": self.language}
        params["format"] = "json"
        return self.geocoding_url.rstrip("/") + SEARCH_PATH + "?" + _query(params)

    def fetch_forecast(self, place: Place, units: str) -> dict[str, Any]:
        """The raw forecast object; its shape is checked by `forecast.parse_forecast`."""
        data = self._get_json(self.forecast_url(place, units))
        if not isinstance(data, dict):
            raise OpenMeteoError("malformed", "the forecast is not a JSON object")
        return data

    def search_place(self, name: str) -> Place | None:
        """The best match for a place name, or None when the search knows none."""
        data = self._get_json(self.search_url(name))
        if not isinstance(data, dict):
            raise OpenMeteoError("malformed", "the search result is not a JSON object")
        results = data.get("results")
        if results is None:
            return None  # Open-Meteo leaves "results" out when nothing matched
        if not isinstance(results, list):
            raise OpenMeteoError("malformed", "results is not a list")
        for result in results:
            place = Place.from_dict(result)
            if place is not None:
                return place
        return None

    def _get_json(self, url: str) -> Any:
        request = urllib.request.Request(
            url, headers={"Accept": "application/json", "User-Agent": USER_AGENT}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise _http_error(exc) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise OpenMeteoError("timeout") from exc
            raise OpenMeteoError("unreachable", str(exc.reason)) from exc
        except TimeoutError as exc:
            raise OpenMeteoError("timeout") from exc
        except (OSError, ValueError) as exc:  # reset connection, bad URL
            raise OpenMeteoError("unreachable", str(exc)) from exc
        if len(body) > MAX_RESPONSE_BYTES:
            raise OpenMeteoError("malformed", "the response is too large")
        data = _decode(body)
        if isinstance(data, dict) and data.get("error") is True:
            raise OpenMeteoError("refused", str(data.get("reason", ""))[:200])
        return data


def _query(params: dict[str, str]) -> str:
    return urllib.parse.urlencode(params, safe=",/", quote_via=urllib.parse.quote)


def _decode(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OpenMeteoError("malformed", f"invalid JSON: {exc}") from exc


def _http_error(exc: urllib.error.HTTPError) -> OpenMeteoError:
    """HTTP 400 carries ``{"error": true, "reason": ...}``; other statuses say little."""
    try:
        body = exc.read(64_000)
    except OSError:
        body = b""
    try:
        data = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if isinstance(data, dict) and data.get("error") is True and data.get("reason"):
        return OpenMeteoError("refused", str(data["reason"])[:200], exc.code)
    return OpenMeteoError("http", exc.reason or "", exc.code)
