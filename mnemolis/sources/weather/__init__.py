"""The weather source: Open-Meteo forecasts, a dated cache for when it is down, and
local sensors for "now".

`source` answers; `settings` reads `sources/weather.yaml`; `open_meteo` is
the client and its wire format; `forecast` parses it; `question`, `judge`
and `answer` turn a question into a spoken reply; `cache` keeps the last
good forecast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.weather.source import WeatherSource


def create(context: SourceContext) -> WeatherSource:
    from mnemolis.sources.base import ReadsSensors
    from mnemolis.sources.weather.source import WeatherSource

    readers = [p for p in context.peers.values() if isinstance(p, ReadsSensors)]
    reader = readers[0].read_sensor if readers else None
    return WeatherSource(context.config, sensor_reader=reader, environ=context.environ)
