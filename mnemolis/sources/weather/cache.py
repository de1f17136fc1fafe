"""The weather source's memory on disk: the last good forecast per place and
the places already looked up.

Every good forecast is saved as it came, with the time it was fetched, so an
answer from it can say how old it is. Writes are atomic (write, then rename);
a cache that cannot be read or written is treated as empty, never as an error
the listener hears about.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemolis.sources.weather.open_meteo import Place

log = logging.getLogger(__name__)

MAX_PLACES = 500
MAX_FILE_BYTES = 4_000_000
PLACES_FILE = "places.json"


@dataclass(frozen=True)
class SavedForecast:
    """A forecast response exactly as the service sent it, and when."""

    fetched_at: datetime  # aware, UTC
    response: dict[str, Any]
    origin: str | None = None  # set when it did not come from the service (the demo's)

    def age_s(self, now: datetime) -> float:
        return max(0.0, (now - self.fetched_at).total_seconds())


class WeatherCache:
    """Forecasts keyed by place, units and time zone; places keyed by spoken name."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ forecasts

    def _forecast_path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
        return self.directory / f"forecast-{digest}.json"

    def save_forecast(
        self, key: str, response: dict[str, Any], fetched_at: datetime, origin: str | None = None
    ) -> bool:
        record: dict[str, Any] = {
            "key": key,
            "fetched_at": fetched_at.astimezone(UTC).isoformat(),
            "response": response,
        }
        if origin is not None:
            record["origin"] = origin
        return self._write(self._forecast_path(key), record)

    def load_forecast(self, key: str) -> SavedForecast | None:
        record = self._read(self._forecast_path(key))
        if not isinstance(record, dict) or record.get("key") != key:
            return None
        response = record.get("response")
        try:
            fetched_at = datetime.fromisoformat(str(record.get("fetched_at")))
        except ValueError:
            return None
        if not isinstance(response, dict) or fetched_at.tzinfo is None:
            return None
        origin = record.get("origin")
        return SavedForecast(fetched_at, response, origin if isinstance(origin, str) else None)

    # ------------------------------------------------------------------ places

    def load_place(self, name: str) -> Place | None:
        with self._lock:
            places = self._read(self.directory / PLACES_FILE)
        if not isinstance(places, dict):
            return None
        return Place.from_dict(places.get(name))

    def save_place(self, name: str, place: Place) -> bool:
        path = self.directory / PLACES_FILE
        with self._lock:
            places = self._read(path)
            if not isinstance(places, dict):
                places = {}
            places.pop(name, None)
            places[name] = place.to_dict()
            while len(places) > MAX_PLACES:  # oldest first: dicts keep insertion order
                places.pop(next(iter(places)))
            return self._write(path, places)

    # ------------------------------------------------------------------ files

    def _read(self, path: Path) -> Any:
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                log.warning("weather cache: %s is too large, ignored", path)
                return None
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("weather cache: cannot read %s: %s", path, exc)
            return None

    def _write(self, path: Path, data: Any) -> bool:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.warning("weather cache: cannot write %s: %s", path, exc)
            return False
        return True
