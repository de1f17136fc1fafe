"""The broker connection's settings, shared by the MQTT source and the daemon.

They come from the `broker:` section of `sources/mqtt.yaml`; the environment
variable ``MNEMOLIS_MQTT_URL`` (``mqtt://user:pass@host:1883``, ``mqtts://``
for TLS) overrides it, so one config directory serves a laptop and a Pi. A
wrong value is a `ConfigError` naming the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mnemolis.config import Config, ConfigError, line_of

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


class SectionReader:
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
        return ConfigError(self.path, line_of(self.path, (self.section, *key)), reason)

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


def read_tls(reader: SectionReader) -> TlsSettings | None:
    raw = reader.data.get("tls", False)
    if raw is False or raw is None:
        return None
    if raw is True:
        return TlsSettings()
    if not isinstance(raw, dict):
        raise reader.error(("tls",), "broker.tls must be true, false or {ca_certs, certfile, ...}")
    sub = SectionReader(reader.path, "broker", raw)
    return TlsSettings(
        ca_certs=sub.text("ca_certs", None),
        certfile=sub.text("certfile", None),
        keyfile=sub.text("keyfile", None),
        insecure=sub.flag("insecure", False),
    )


def read_broker(reader: SectionReader) -> BrokerSettings:
    host = reader.text("host", "127.0.0.1") or "127.0.0.1"
    return BrokerSettings(
        host=host,
        port=reader.integer("port", 1883, 1, 65535),
        client_id=reader.text("client_id", "mnemolis") or "mnemolis",
        exact_client_id=reader.flag("exact_client_id", False),
        username=reader.text("username", None),
        password=reader.text("password", None),
        tls=read_tls(reader),
        keepalive=reader.integer("keepalive", 30, 5, 3600),
        connect_timeout_s=reader.number("connect_timeout_s", 5.0, 0.1),
        reconnect_min_s=reader.number("reconnect_min_s", 0.5, 0.05),
        reconnect_max_s=reader.number("reconnect_max_s", 30.0, 0.05),
        sync_topic=reader.topic("sync_topic", "mnemolis/sync"),
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


def settings_path(config: Config) -> Path:
    return config.root / "sources" / "mqtt.yaml"


def load_broker_settings(
    config: Config, env: Mapping[str, str] | None = None
) -> tuple[BrokerSettings, bool]:
    """The `broker:` section, with ``$MNEMOLIS_MQTT_URL`` over it; and whether the URL
    came from the environment."""
    env = os.environ if env is None else env
    data = config.sources.get("mqtt") or {}
    broker = read_broker(SectionReader(settings_path(config), "broker", data.get("broker")))
    url = env.get(URL_ENV, "").strip()
    if not url:
        return broker, False
    try:
        return replace(broker, **parse_url(url)), True
    except ValueError as exc:
        raise ConfigError(URL_ENV, None, str(exc)) from exc
