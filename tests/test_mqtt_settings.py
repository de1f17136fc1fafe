"""Broker settings: YAML, MNEMOLIS_MQTT_URL, credentials and TLS against a real Mosquitto."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mnemolis.config import Config, ConfigError
from mnemolis.demo.mosquitto import Mosquitto
from mnemolis.mqtt_connection.settings import TlsSettings
from mnemolis.sources.base import Request, Source, Status
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.mqtt.source import MqttSource
from mnemolis.understand import registry_from_config
from tests.support_mqtt import part_for, require_mosquitto
from tests.tools import require


def with_mqtt(config: Config, section: str, **values: Any) -> Config:
    sources = copy.deepcopy(config.sources)
    sources["mqtt"].setdefault(section, {}).update(values)
    return dataclasses.replace(config, sources=sources)


@pytest.mark.parametrize(
    ("url", "host", "port", "username", "password", "tls"),
    [
        ("mqtt://127.0.0.1:1884", "127.0.0.1", 1884, None, None, False),
        ("mqtt://user:p%40ss@broker.lan", "broker.lan", 1883, "user", "p@ss", False),
        ("mqtts://pi.local", "pi.local", 8883, None, None, True),
        ("tcp://10.0.0.2:2000", "10.0.0.2", 2000, None, None, False),
    ],
)
def test_url_overrides_the_broker_section(
    config: Config,
    url: str,
    host: str,
    port: int,
    username: str | None,
    password: str | None,
    tls: bool,
) -> None:
    settings = load_mqtt_settings(config, env={"MNEMOLIS_MQTT_URL": url})
    broker = settings.broker
    assert (broker.host, broker.port, broker.username, broker.password) == (
        host,
        port,
        username,
        password,
    )
    assert (broker.tls is not None) == tls
    assert settings.url_from_env
    assert broker.client_id == "mnemolis"


def test_yaml_defaults(config: Config) -> None:
    settings = load_mqtt_settings(config, env={})
    assert settings.broker.address == "127.0.0.1:1883"
    assert settings.discovery.wait_s == 1.0 and settings.timeouts.confirm_s == 2.0
    assert "temperature" in settings.discovery.zigbee2mqtt_sensors
    assert settings.discovery.zigbee2mqtt_binary_sensors["occupancy"] == "motion"


@pytest.mark.parametrize(
    ("section", "values", "reason"),
    [
        ("broker", {"port": "abc"}, "broker.port must be an integer"),
        ("broker", {"tls": "yes"}, "broker.tls must be true, false"),
        ("timeouts", {"confirm_s": -1}, "timeouts.confirm_s must be a number"),
        ("discovery", {"homeassistant_prefix": "ha/#"}, "without + or #"),
        ("limits", {"topic_chars": 3}, "limits.topic_chars must be an integer"),
    ],
)
def test_bad_settings_name_file_and_line(
    config: Config, section: str, values: dict[str, Any], reason: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_mqtt_settings(with_mqtt(config, section, **values), env={})
    assert reason in str(caught.value)
    assert caught.value.path.endswith("sources/mqtt.yaml")
    assert caught.value.line is not None


@pytest.mark.parametrize("url", ["http://x", "mqtt://", "mqtt://host:notaport"])
def test_bad_url_is_a_config_error(config: Config, url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_mqtt_settings(config, env={"MNEMOLIS_MQTT_URL": url})
    assert "MNEMOLIS_MQTT_URL" in str(caught.value)


def test_a_yaml_device_topic_with_a_wildcard_is_refused(config: Config) -> None:
    devices = [
        dataclasses.replace(d, topics={"state": "home/+/x"}) if d.name == "porch light" else d
        for d in config.devices
    ]
    bad = dataclasses.replace(config, devices=devices)
    with pytest.raises(ConfigError) as caught:
        MqttSource(bad, registry_from_config(bad))
    assert "porch light" in str(caught.value) and "wildcard" in str(caught.value)
    assert caught.value.path.endswith("sources/mqtt.yaml") and caught.value.line is not None


def ask_front_door(
    config: Config, url: str, tls: TlsSettings | None = None, wait_s: float = 5.0
) -> Any:
    async def scenario() -> Any:
        settings = load_mqtt_settings(config, env={"MNEMOLIS_MQTT_URL": url})
        if tls is not None:
            settings = dataclasses.replace(
                settings, broker=dataclasses.replace(settings.broker, tls=tls)
            )
        source = MqttSource(config, registry_from_config(config), settings)
        assert isinstance(source, Source)
        await source.start()
        report = await source.wait_for_devices(wait_s)
        answer = await source.answer(
            part_for(config, "device.state", device="front door"), Request()
        )
        await source.close()
        return report, answer

    return asyncio.run(scenario())


def test_credentials_from_the_url(config: Config, tmp_path: Path) -> None:
    mosquitto = require_mosquitto()
    passwd = require("mosquitto_passwd")
    password_file = tmp_path / "passwords"
    subprocess.run([passwd, "-b", "-c", str(password_file), "mnemolis", "s3cr@t"], check=True)
    password_file.chmod(0o600)
    locked = f"allow_anonymous false\npassword_file {password_file}"
    with Mosquitto(mosquitto, extra_config=locked) as broker:
        report, answer = ask_front_door(
            config, f"mqtt://mnemolis:s3cr%40t@{broker.host}:{broker.port}"
        )
        assert report.connected and report.complete
        assert (answer.status, answer.text) == (
            Status.ERROR,
            "the front door has not reported its state yet",
        )


def test_tls_with_a_private_ca(config: Config, tmp_path: Path) -> None:
    mosquitto = require_mosquitto()
    openssl = require("openssl")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, cwd=tmp_path)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=test ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
    )
    run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    )
    (tmp_path / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "server.crt",
    )
    tls_config = "\n".join(
        f"{key} {tmp_path / name}"
        for key, name in (
            ("cafile", "ca.crt"),
            ("certfile", "server.crt"),
            ("keyfile", "server.key"),
        )
    )
    with Mosquitto(mosquitto, extra_config=tls_config) as broker:
        url = f"mqtts://{broker.host}:{broker.port}"
        report, _ = ask_front_door(config, url, TlsSettings(ca_certs=str(tmp_path / "ca.crt")))
        assert report.connected
        report, answer = ask_front_door(config, url, TlsSettings(), wait_s=0.5)
        assert not report.connected  # the system CAs do not know ours
        assert "TLS failed: CERTIFICATE_VERIFY_FAILED" in answer.text, answer.text
