"""The MQTT source's settings: broker, discovery, timeouts and limits.

They come from the `broker:`, `discovery:`, `timeouts:` and `limits:` sections
of `sources/mqtt.yaml`; the environment variable ``MNEMOLIS_MQTT_URL``
(``mqtt://user:pass@host:1883``, ``mqtts://`` for TLS) overrides the broker, so
one config directory serves a laptop and a Pi. A wrong value is a
`ConfigError` naming the file and line, raised when the source is built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mnemolis.config import Config, ConfigError, _line_of

URL_ENV = "MNEMOLIS_MQTT_URL"
DEFAULT_PORTS = {"mqtt": 1883, "tcp": 1883, "mqtts": 8883, "ssl": 8883}


@dataclass(frozen=True)
class TlsSettings:
    """TLS towards the broker; all paths may be omitted to use the system CAs."""

    ca_certs: str | None = None
    certfile: str | None = None
    keyfile: str | None = None
    insecure: bool = False  # skip host name checks (self-signed test brokers only)


@dataclass(frozen=True)
class BrokerSettings:
    host: str = "127.0.0.1"
    port: int = 1883
    client_id: str = "mnemolis"
    exact_client_id: bool = False  # else a suffix keeps `ask` from kicking off the daemon
    username: str | None = None
    password: str | None = None
    tls: TlsSettings | None = None
    keepalive: int = 30
    connect_timeout_s: float = 5.0
    reconnect_min_s: float = 0.5
    reconnect_max_s: float = 30.0
    sync_topic: str = "mnemolis/sync"  # private round-trip topic for "all retained seen"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class DiscoverySettings:
    homeassistant: bool = True
    homeassistant_prefix: str = "homeassistant"
    zigbee2mqtt: bool = True
    zigbee2mqtt_base: str = "zigbee2mqtt"
    wait_s: float = 1.0
    zigbee2mqtt_sensors: tuple[str, ...] = ()  # numeric exposes that become sensors
    zigbee2mqtt_binary_sensors: dict[str, str] = field(default_factory=dict)  # expose -> class


@dataclass(frozen=True)
class Timeouts:
    confirm_s: float = 2.0  # how long a device has to echo its new state
    answer_s: float = 3.0  # the most one answer may take, broker outages included
    stale_s: float = 900.0  # a reading older than this is reported with its age


@dataclass(frozen=True)
class Limits:
    topic_chars: int = 256
    payload_bytes: int = 65_536
    bridge_payload_bytes: int = 8_388_608  # zigbee2mqtt/bridge/devices lists every device
    devices: int = 5_000  # discovered devices kept at most


@dataclass(frozen=True)
class MqttSettings:
    broker: BrokerSettings = BrokerSettings()
    discovery: DiscoverySettings = DiscoverySettings()
    timeouts: Timeouts = Timeouts()
    limits: Limits = Limits()
    url_from_env: bool = False


def _source_path(config: Config) -> Path:
    return config.root / "sources" / "mqtt.yaml"


class _Reader:
    """Typed access to one YAML section, with file:line errors."""

    def __init__(self, path: Path, section: str, data: Any) -> None:
        self.path = path
        self.section = section
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise self.error((), f"{section} must be a mapping")
        self.data: dict[str, Any] = data

    def error(self, key: tuple[str, ...], reason: str) -> ConfigError:
        return ConfigError(self.path, _line_of(self.path, (self.section, *key)), reason)

    def number(self, key: str, default: float, minimum: float = 0.0) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
            raise self.error((key,), f"{self.section}.{key} must be a number >= {minimum}")
        return float(value)

    def integer(self, key: str, default: int, minimum: int = 0, maximum: int = 2**31) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.error(
                (key,), f"{self.section}.{key} must be an integer from {minimum} to {maximum}"
            )
        return value

    def text(self, key: str, default: str | None) -> str | None:
        value = self.data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.error((key,), f"{self.section}.{key} must be text")
        return str(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.error((key,), f"{self.section}.{key} must be true or false")
        return value

    def topic(self, key: str, default: str) -> str:
        value = self.text(key, default) or default
        if not value or any(c in value for c in "+#\0") or len(value) > 200:
            raise self.error((key,), f"{self.section}.{key} must be a plain topic without + or #")
        return value.rstrip("/")


def _tls(reader: _Reader) -> TlsSettings | None:
    raw = reader.data.get("tls", False)
    if raw is False or raw is None:
        return None
    if raw is True:
        return TlsSettings()
    if not isinstance(raw, dict):
        raise reader.error(("tls",), "broker.tls must be true, false or {ca_certs, certfile, ...}")
    sub = _Reader(reader.path, "broker", raw)
    return TlsSettings(
        ca_certs=sub.text("ca_certs", None),
        certfile=sub.text("certfile", None),
        keyfile=sub.text("keyfile", None),
        insecure=sub.flag("insecure", False),
    )


def _broker(reader: _Reader) -> BrokerSettings:
    host = reader.text("host", "127.0.0.1") or "127.0.0.1"
    return BrokerSettings(
        host=host,
        port=reader.integer("port", 1883, 1, 65535),
        client_id=reader.text("client_id", "mnemolis") or "mnemolis",
        exact_client_id=reader.flag("exact_client_id", False),
        username=reader.text("username", None),
        password=reader.text("password", None),
        tls=_tls(reader),
        keepalive=reader.integer("keepalive", 30, 5, 3600),
        connect_timeout_s=reader.number("connect_timeout_s", 5.0, 0.1),
        reconnect_min_s=reader.number("reconnect_min_s", 0.5, 0.05),
        reconnect_max_s=reader.number("reconnect_max_s", 30.0, 0.05),
        sync_topic=reader.topic("sync_topic", "mnemolis/sync"),
    )


def _discovery(reader: _Reader) -> DiscoverySettings:
    sensors = reader.data.get("zigbee2mqtt_sensors") or []
    binaries = reader.data.get("zigbee2mqtt_binary_sensors") or {}
    if not isinstance(sensors, list) or not all(isinstance(s, str) for s in sensors):
        raise reader.error(("zigbee2mqtt_sensors",), "zigbee2mqtt_sensors must be a list of names")
    if not isinstance(binaries, dict):
        raise reader.error(
            ("zigbee2mqtt_binary_sensors",),
            "zigbee2mqtt_binary_sensors must map an expose name to a device class",
        )
    return DiscoverySettings(
        homeassistant=reader.flag("homeassistant", True),
        homeassistant_prefix=reader.topic("homeassistant_prefix", "homeassistant"),
        zigbee2mqtt=reader.flag("zigbee2mqtt", True),
        zigbee2mqtt_base=reader.topic("zigbee2mqtt_base", "zigbee2mqtt"),
        wait_s=reader.number("wait_s", 1.0),
        zigbee2mqtt_sensors=tuple(sensors),
        zigbee2mqtt_binary_sensors={str(k): str(v) for k, v in binaries.items()},
    )


def parse_url(url: str) -> dict[str, Any]:
    """``mqtt://user:pass@host:port`` -> broker fields; ValueError when it is not one."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{URL_ENV} must start with mqtt:// or mqtts://, not {url!r}")
    if not parts.hostname:
        raise ValueError(f"{URL_ENV} names no host: {url!r}")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError as exc:
        raise ValueError(f"{URL_ENV} has a bad port: {url!r}") from exc
    fields: dict[str, Any] = {"host": parts.hostname, "port": port}
    if parts.username is not None:
        fields["username"] = unquote(parts.username)
    if parts.password is not None:
        fields["password"] = unquote(parts.password)
    if scheme in ("mqtts", "ssl"):
        fields["tls"] = TlsSettings()
    elif scheme in ("mqtt", "tcp"):
        fields["tls"] = None
    return fields


def load_mqtt_settings(config: Config, env: Mapping[str, str] | None = None) -> MqttSettings:
    """Read the settings of `sources/mqtt.yaml`; ``$MNEMOLIS_MQTT_URL`` overrides the broker."""
    env = os.environ if env is None else env
    data = config.sources.get("mqtt") or {}
    path = _source_path(config)
    broker = _broker(_Reader(path, "broker", data.get("broker")))
    discovery = _discovery(_Reader(path, "discovery", data.get("discovery")))
    t = _Reader(path, "timeouts", data.get("timeouts"))
    timeouts = Timeouts(
        confirm_s=t.number("confirm_s", 2.0, 0.01),
        answer_s=t.number("answer_s", 3.0, 0.01),
        stale_s=t.number("stale_s", 900.0),
    )
    lim = _Reader(path, "limits", data.get("limits"))
    limits = Limits(
        topic_chars=lim.integer("topic_chars", 256, 16, 65_535),
        payload_bytes=lim.integer("payload_bytes", 65_536, 256),
        bridge_payload_bytes=lim.integer("bridge_payload_bytes", 8_388_608, 1024),
        devices=lim.integer("devices", 5_000, 1),
    )
    url = env.get(URL_ENV, "").strip()
    from_env = False
    if url:
        try:
            broker = replace(broker, **parse_url(url))
        except ValueError as exc:
            raise ConfigError(URL_ENV, None, str(exc)) from exc
        from_env = True
    return MqttSettings(broker, discovery, timeouts, limits, from_env)
