"""One module per wire schema: Home Assistant's MQTT platforms, and zigbee2mqtt's JSON.

`platform_for` picks the Home Assistant platform a device's ``config`` is
for (a light by its ``schema``); devices without one speak `z2m_json`.
"""

from __future__ import annotations

from importlib import import_module

from mnemolis.sources.mqtt.schemas import light_basic, light_json, light_template
from mnemolis.sources.mqtt.schemas.base import Platform

#: The modules of every platform but the light (whose three schemas are below).
_MODULES = (
    "alarm_control_panel",
    "binary_sensor",
    "button",
    "climate",
    "cover",
    "device_tracker",
    "fan",
    "humidifier",
    "lawn_mower",
    "lock",
    "number",
    "scene",
    "select",
    "sensor",
    "siren",
    "switch",
    "vacuum",
    "valve",
    "water_heater",
)
PLATFORMS: dict[str, Platform] = {
    platform.component: platform
    for platform in (import_module(f"{__name__}.{name}").PLATFORM for name in _MODULES)
}
LIGHTS: dict[str, Platform] = {
    "default": light_basic.PLATFORM,
    "basic": light_basic.PLATFORM,
    "json": light_json.PLATFORM,
    "template": light_template.PLATFORM,
}


def platform_named(component: str, schema: str = "default") -> Platform | None:
    """The platform for a discovery component (and a light's ``schema``), None if unknown."""
    if component == "light":
        return LIGHTS.get(schema.lower())
    return PLATFORMS.get(component)
