"""The MQTT source: devices from `sources/mqtt.yaml`, Home Assistant discovery and
zigbee2mqtt, driven over one broker connection.

`source` answers parts; `settings` reads the YAML; `discovery` and `known`
turn announcements into devices; `codec` speaks each device's wire format;
`state` keeps what devices report; `replies` says it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemolis.sources.base import SourceContext
    from mnemolis.sources.mqtt.source import MqttSource


def create(context: SourceContext) -> MqttSource:
    from mnemolis.sources.mqtt.settings import load_mqtt_settings
    from mnemolis.sources.mqtt.source import MqttSource

    settings = load_mqtt_settings(context.config, context.environ)
    return MqttSource(context.config, context.registry, settings)
