"""amqtt's broker behind the face of the demo's `BrokerThread`, to judge it fairly.

Issue 11 asked whether the demo could use amqtt instead of its own broker,
"if amqtt passes the same tests with real paho clients". This adapter lets the
very same tests and benchmark run against amqtt, unchanged:

    .venv/bin/pip install amqtt==0.12.1
    .venv/bin/python -m pytest -p bench.amqtt_trial tests/test_demo_broker.py
    .venv/bin/python bench/demo.py            # adds the amqtt rows when it is installed

amqtt is bound to 127.0.0.1 explicitly (its default listener is 0.0.0.0:1883)
and runs with anonymous access only, without its $SYS and logging plugins, as
the demo would run it. `AmqttBrokerThread` is the demo's own `BrokerThread`
(the same thread, loop, start and stop) running an `AmqttBroker`. amqtt is not
a dependency of Mnemolis: see the measured reasons in `mnemolis/demo/broker.py`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mnemolis.demo.broker import BrokerLimits, BrokerStats, BrokerThread


def amqtt_version() -> str | None:
    """The installed amqtt's version, or None when it is not installed."""
    try:
        return version("amqtt")
    except PackageNotFoundError:
        return None


class NotKept(int):
    """A counter amqtt does not keep: equal to any number and true, so that a test
    judges only what can be seen on the wire (a closed socket, a delivered message)."""

    def __new__(cls) -> NotKept:
        return super().__new__(cls, 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, int)

    def __hash__(self) -> int:
        return 1


class AmqttBroker:
    """amqtt on the running event loop, with `MqttBroker`'s start, close and views."""

    def __init__(self, host: str, port: int, limits: BrokerLimits | None) -> None:
        self.host, self.port = host, port
        self.max_clients = (limits or BrokerLimits()).max_clients
        self.stats = BrokerStats(**{name: NotKept() for name in BrokerStats.__dataclass_fields__})
        self.amqtt: Any = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def config(self) -> dict[str, Any]:
        listener = {"type": "tcp", "bind": f"{self.host}:{self.port}"}
        return {
            "listeners": {"default": {**listener, "max_connections": self.max_clients}},
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
            },
        }

    async def start(self) -> None:
        from amqtt.broker import Broker  # made on the loop it runs on
        from amqtt.errors import BrokerError

        broker = Broker(self.config())
        try:
            await broker.start()
        except BrokerError as exc:  # BrokerThread reports an OSError as a start failure
            raise OSError(str(exc)) from exc
        self.amqtt = broker
        self.port = broker._servers["default"].instance.sockets[0].getsockname()[1]

    async def close(self) -> None:
        broker, self.amqtt = self.amqtt, None
        if broker is not None:
            await broker.shutdown()

    @property
    def client_ids(self) -> list[str]:
        sessions = self.amqtt._sessions if self.amqtt is not None else {}
        return sorted(cid for cid, (s, _h) in sessions.items() if s.transitions.is_connected())

    @property
    def retained_topics(self) -> list[str]:
        return sorted(self.amqtt._retained_messages) if self.amqtt is not None else []


class AmqttBrokerThread(BrokerThread):
    """The demo's `BrokerThread`, running amqtt."""

    def make_broker(  # type: ignore[override]
        self, host: str, port: int, limits: BrokerLimits | None
    ) -> AmqttBroker:
        return AmqttBroker(host, port, limits)
