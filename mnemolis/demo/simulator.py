"""Simulated MQTT devices that behave the way real ones do.

Each `SimulatedDevice` (`sim_devices`) speaks the wire format its `Device`
describes (``schema: json`` like zigbee2mqtt, or Home Assistant's plain
topics). The `Simulator` connects to a broker, announces the devices by Home
Assistant MQTT discovery or as a zigbee2mqtt bridge (``announce``,
`sim_announce`), publishes their retained availability and state, and
answers every command by publishing the new state, as a real device does. A
device can be told not to echo (to exercise the "did not confirm" path) or
to go unavailable.

Tests use it against a real Mosquitto; the demo home runs the default
registry of `sources/mqtt.yaml` through it.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from mnemolis.core.devices import Device
from mnemolis.demo.sim_announce import homeassistant_config, zigbee2mqtt_device, zigbee2mqtt_entry
from mnemolis.demo.sim_devices import ReceivedCommand, SimulatedDevice
from mnemolis.mqtt_connection.link import no_delay

__all__ = [
    "Announce",
    "ReceivedCommand",
    "SimulatedDevice",
    "Simulator",
    "homeassistant_config",
    "zigbee2mqtt_device",
    "zigbee2mqtt_entry",
]

log = logging.getLogger(__name__)

Announce = Literal["none", "homeassistant", "zigbee2mqtt"]


class Simulator:
    """Devices on a broker: they announce themselves, report state and obey commands."""

    def __init__(
        self,
        host: str,
        port: int,
        devices: Iterable[Device],
        announce: Announce = "none",
        homeassistant_prefix: str = "homeassistant",
        zigbee2mqtt_base: str = "zigbee2mqtt",
        client_id: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.announce = announce
        self.homeassistant_prefix = homeassistant_prefix.rstrip("/")
        self.zigbee2mqtt_base = zigbee2mqtt_base.rstrip("/")
        z2m = zigbee2mqtt_base if announce == "zigbee2mqtt" else None
        self.devices = {d.name: SimulatedDevice(d, z2m) for d in devices}
        self.commands: list[ReceivedCommand] = []
        self._routes: dict[str, tuple[SimulatedDevice, str]] = {}
        for sim in self.devices.values():
            for topic, role in sim.command_topics().items():
                self._routes[topic] = (sim, role)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._connected = threading.Event()
        self._pending: list[mqtt.MQTTMessageInfo] = []
        self._subscribing: set[int] = set()
        self.client = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=client_id or f"mnemolis-simulator-{time.monotonic_ns() % 10**9}",
        )
        self.client.reconnect_delay_set(1, 2)
        self.client.max_inflight_messages_set(1000)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_a: self._connected.clear()
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_socket_open = lambda _c, _u, sock: no_delay(sock)

    # ------------------------------------------------------------------ life

    def start(self, timeout_s: float = 10.0) -> Simulator:
        """Connect, announce, publish availability and state; returns once they are stored."""
        self.client.connect(self.host, self.port, keepalive=30)
        self.client.loop_start()
        if not self._connected.wait(timeout_s):
            self.stop()
            raise TimeoutError(f"the simulator could not connect to {self.host}:{self.port}")
        self.flush(timeout_s)
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """True once connected (again, after the broker came back) and re-announced."""
        return self._connected.wait(timeout_s)

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("simulator: the broker refused us: %s", reason)
            return
        topics = [(t, 1) for t in sorted(self._routes)]
        self._subscribing = set()
        for i in range(0, len(topics), 64):
            _rc, mid = client.subscribe(topics[i : i + 64])
            if mid is not None:
                self._subscribing.add(mid)
        self._pending = self._publish_everything()  # a real device re-announces after a restart
        if not self._subscribing:
            self._connected.set()

    def _on_subscribe(self, _c: mqtt.Client, _u: Any, mid: int, _codes: Any, _p: Any) -> None:
        """Connected for real once the broker confirmed every subscription: a command
        published before that would never reach the device."""
        self._subscribing.discard(mid)
        if not self._subscribing:
            self._connected.set()

    def _publish_everything(self) -> list[mqtt.MQTTMessageInfo]:
        infos = []
        for topic, payload in self.announcements():
            infos.append(self.client.publish(topic, payload, qos=1, retain=True))
        with self._lock:
            messages = [
                m
                for s in self.devices.values()
                for m in s.availability_messages() + s.state_messages()
            ]
        for topic, payload in messages:
            infos.append(self.client.publish(topic, payload, qos=1, retain=True))
        return infos

    def flush(self, timeout_s: float = 10.0) -> None:
        """Wait until everything published so far reached the broker."""
        deadline = time.monotonic() + timeout_s
        for info in list(self._pending):
            if info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
                info.wait_for_publish(max(0.01, deadline - time.monotonic()))

    def announcements(self) -> list[tuple[str, str]]:
        if self.announce == "homeassistant":
            return [self._ha_message(sim) for sim in self.devices.values()]
        if self.announce == "zigbee2mqtt":
            return [
                self._bridge_message(),
                (f"{self.zigbee2mqtt_base}/bridge/state", json.dumps({"state": "online"})),
            ]
        return []

    def _ha_message(self, sim: SimulatedDevice) -> tuple[str, str]:
        topic = f"{self.homeassistant_prefix}/{sim.device.type}/{sim.device.id}/config"
        return topic, json.dumps(homeassistant_config(sim))

    def _bridge_message(self) -> tuple[str, str]:
        entries: list[dict[str, Any]] = [
            {
                "ieee_address": "0x0000000000000000",
                "type": "Coordinator",
                "friendly_name": "Coordinator",
                "definition": None,
                "supported": True,
                "disabled": False,
                "interview_completed": True,
            }
        ]
        entries += [zigbee2mqtt_entry(s, self.zigbee2mqtt_base) for s in self.devices.values()]
        return f"{self.zigbee2mqtt_base}/bridge/devices", json.dumps(entries)

    # ------------------------------------------------------------------ commands

    def _on_message(self, client: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        route = self._routes.get(msg.topic)
        if route is None:
            return
        sim, role = route
        payload = msg.payload.decode("utf-8", errors="replace")
        with self._lock:
            self.commands.append(ReceivedCommand(sim.name, msg.topic, payload, qos=msg.qos))
            sim.handle(role, payload)
            echo = sim.echo and sim.available
            messages = sim.state_messages() if echo else []
            self._changed.notify_all()
        for topic, body in messages:
            client.publish(topic, body, qos=1, retain=True)

    def received(self, name: str | None = None) -> list[ReceivedCommand]:
        with self._lock:
            return [c for c in self.commands if name is None or c.device == name]

    def wait_for_commands(self, count: int, timeout_s: float = 5.0) -> list[ReceivedCommand]:
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while len(self.commands) < count and time.monotonic() < deadline:
                self._changed.wait(max(0.0, deadline - time.monotonic()))
            return list(self.commands)

    def clear(self) -> None:
        with self._lock:
            self.commands.clear()

    # ------------------------------------------------------------------ behaviour

    def sim(self, name: str) -> SimulatedDevice:
        return self.devices[" ".join(name.lower().split())]

    def set_echo(self, name: str, echo: bool) -> None:
        """A device that obeys but never reports back, like one with a broken state topic."""
        with self._lock:
            self.sim(name).echo = echo

    def set_available(self, name: str, available: bool) -> None:
        """Go offline (or come back), announcing it on the availability topic."""
        sim = self.sim(name)
        with self._lock:
            sim.available = available
            messages = sim.availability_messages()
        self._publish(messages, retain=True)

    def report(self, name: str, **values: Any) -> None:
        """Publish a new reading, as a sensor does on its own: ``report("x", temperature=22)``."""
        sim = self.sim(name)
        with self._lock:
            sim.state.update(values)
            messages = sim.state_messages()
        self._publish(messages, retain=True)

    def state(self, name: str) -> dict[str, Any]:
        with self._lock:
            return dict(self.sim(name).state)

    def remove(self, name: str) -> None:
        """Withdraw a device the way Home Assistant does: an empty retained config."""
        sim = self.sim(name)
        if self.announce == "homeassistant":
            topic, _ = self._ha_message(sim)
            self._publish([(topic, "")], retain=True)
        with self._lock:
            del self.devices[sim.name]
        if self.announce == "zigbee2mqtt":
            self._publish([self._bridge_message()], retain=True)

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        """Publish anything (tests use it for malformed configs and floods)."""
        self._publish([(topic, payload)], retain)

    def _publish(self, messages: Sequence[tuple[str, str | bytes]], retain: bool) -> None:
        infos = [self.client.publish(t, p, qos=1, retain=retain) for t, p in messages]
        for info in infos:
            try:
                info.wait_for_publish(5.0)
            except (RuntimeError, ValueError) as exc:  # the broker is down: a device just waits
                log.debug("simulator: publish not confirmed: %s", exc)
