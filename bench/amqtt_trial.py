"""A pytest plugin that runs the demo's broker tests against amqtt instead.

    .venv/bin/pip install amqtt==0.12.1
    .venv/bin/python -m pytest -p bench.amqtt_trial tests/test_demo_broker.py \\
        tests/test_demo_home.py tests/test_demo_cli.py

When pytest loads this plugin, before any conftest or test module is
imported, ``mnemolis.demo.broker.BrokerThread`` is replaced by
`AmqttBrokerThread`, so the broker tests, the demo home (which starts its
broker through that name) and `mnemolis demo` all run on amqtt, with the same
real paho clients and raw sockets. The codec's own tests (``parse_packet``,
``parse_connect``) still test the home-written codec.

amqtt refuses MQTT 5. To see what else fails, ``MNEMOLIS_AMQTT_TRIAL=3.1.1``
makes every paho client of the tests speak MQTT 3.1.1 (the MQTT 5 rows then
run as 3.1.1 twice, and those asserting MQTT 5 features still fail).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

import mnemolis.demo.broker
from bench.amqtt_broker import AmqttBrokerThread, amqtt_version


def tests_on_311() -> bool:
    return os.environ.get("MNEMOLIS_AMQTT_TRIAL") == "3.1.1"


if amqtt_version() is None:
    raise pytest.UsageError("amqtt is not installed: pip install amqtt==0.12.1")
mnemolis.demo.broker.BrokerThread = AmqttBrokerThread  # type: ignore[misc, assignment]
if tests_on_311():
    from tests.support_demo import V311, Client

    speaks = Client.__init__

    def speaks_311(self: Client, broker: Any, version: Any = V311, *args: Any, **kw: Any) -> None:
        speaks(self, broker, V311, *args, **kw)

    Client.__init__ = speaks_311  # type: ignore[method-assign]


def pytest_report_header(config: pytest.Config) -> str:
    only = " (every test client on MQTT 3.1.1)" if tests_on_311() else ""
    return f"the demo broker under test: amqtt {amqtt_version()}{only}"
