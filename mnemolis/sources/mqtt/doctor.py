"""`mnemolis doctor` for the MQTT source: the broker reachable, every device heard from,
and how many announced configs were refused (and why, for the first few)."""

from __future__ import annotations

from typing import Protocol

from mnemolis.core.devices import DeviceRegistry
from mnemolis.mqtt_connection.link import MqttLink
from mnemolis.sources.base import Finding, Level, some_names
from mnemolis.sources.mqtt.announced import Refusal
from mnemolis.sources.mqtt.settings import MqttSettings
from mnemolis.sources.mqtt.state import DeviceState, DiscoveryReport


class Checked(Protocol):
    """What the doctor reads of the MQTT source (it never imports the source back)."""

    @property
    def last_report(self) -> DiscoveryReport | None: ...
    @property
    def settings(self) -> MqttSettings: ...
    @property
    def link(self) -> MqttLink: ...
    @property
    def registry(self) -> DeviceRegistry: ...
    async def wait_for_devices(self, timeout_s: float | None = None) -> DiscoveryReport: ...
    def state_of(self, device_id: str) -> DeviceState | None: ...
    def refusals(self) -> list[Refusal]: ...


async def diagnose(mqtt: Checked) -> list[Finding]:
    report = mqtt.last_report or await mqtt.wait_for_devices()
    findings = [_broker(mqtt, report)]
    refused = mqtt.refusals()
    if refused:
        shown = "; ".join(f"{r.name or r.key}: {r.reason}" for r in refused[:3])
        findings.append(
            Finding(
                "mqtt",
                Level.WARNING,
                f"{len(refused)} announced configs refused ({shown})",
                "`mnemolis devices` lists each with its reason; fix the device's discovery config",
            )
        )
    return findings


def _broker(mqtt: Checked, report: DiscoveryReport) -> Finding:
    address = mqtt.settings.broker.address
    if not report.connected:
        reason = mqtt.link.last_error or "no answer"
        return Finding(
            "mqtt",
            Level.BROKEN,
            f"cannot reach the MQTT broker at {address} ({reason})",
            "start Mosquitto there, or set broker: in sources/mqtt.yaml "
            "(or MNEMOLIS_MQTT_URL=mqtt://host:port)",
        )
    devices = sorted(mqtt.registry.devices(), key=lambda d: d.name)
    devices = [d for d in devices if d.refused is None]
    states = {d.name: mqtt.state_of(d.id) for d in devices}
    silent = [name for name, state in states.items() if state is None or not state.values]
    offline = [name for name, s in states.items() if s is not None and s.available is False]
    told = f"{len(devices)} devices ({report.discovered} announced by discovery)"
    if devices and len(silent) == len(devices):
        return Finding(
            "mqtt",
            Level.WARNING,
            f"broker at {address} reachable, but none of {told} has reported its state",
            "check the state topics in sources/mqtt.yaml, and that devices publish retained state",
        )
    if silent or offline:
        problems = []
        if silent:
            problems.append(f"not heard from: {some_names(silent)}")
        if offline:
            problems.append(f"offline: {some_names(offline)}")
        return Finding(
            "mqtt",
            Level.WARNING,
            f"broker at {address} reachable; {told}; " + "; ".join(problems),
            "check those devices (powered, paired) and their topics in sources/mqtt.yaml",
        )
    return Finding(
        "mqtt", Level.OK, f"broker at {address} reachable; {told}, all reported their state"
    )
