"""Local sensor readings a source may fall back on (the outdoor thermometer).

The weather source asks a `SensorReader` by sensor name; the executor wires
it to the MQTT source, tests hand in a stub.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SensorReading:
    """The last value a sensor reported, in its own unit ("°C", "%")."""

    value: float
    unit: str
    age_s: float = 0.0  # seconds since the sensor reported it


#: Looks a sensor up by its configured name; None when it has no reading.
SensorReader = Callable[[str], SensorReading | None]
