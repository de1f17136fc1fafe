"""The default home, simulated on a real Mosquitto, with the environment pointing every
source at a test server, as an owner's environment would: for the commands that start
their own assistant (`ask`, `doctor`, `listen`). Import with `broker`, `open_meteo` and
`fixture_test_zims`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemolis.config import Config
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.demo.simulator import Simulator
from tests.support_kiwix import KiwixZims
from tests.support_open_meteo import OpenMeteoReplay


@pytest.fixture
def home(
    config: Config,
    broker: Mosquitto,
    open_meteo: OpenMeteoReplay,
    test_zims: KiwixZims,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Simulator]:
    """The default home, simulated; the environment points every source at a test server."""
    simulator = Simulator(broker.host, broker.port, config.devices).start()
    environ = {
        "MNEMOLIS_MQTT_URL": broker.url,
        "MNEMOLIS_KIWIX": str(test_zims.main),
        "MNEMOLIS_WEATHER_URL": open_meteo.url,
        "MNEMOLIS_GEOCODING_URL": open_meteo.url,
        "MNEMOLIS_WEATHER_CACHE": str(tmp_path / "weather"),
    }
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    try:
        yield simulator
    finally:
        simulator.stop()
