"""Home Assistant's MQTT alarm control panel: arm and disarm through ``command_template``.

The template (default ``{{action}}``) sees ``action`` (the payload) and
``code``. A panel configured with a ``code`` that commands require wants it
spoken; Mnemolis does not take codes by voice, so it says so instead
(``homeassistant/components/mqtt/alarm_control_panel.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported

STATES = (
    "disarmed",
    "armed_home",
    "armed_away",
    "armed_night",
    "armed_vacation",
    "armed_custom_bypass",
    "pending",
    "triggered",
    "arming",
    "disarming",
)
ACTIONS = {
    "arm_home": ("payload_arm_home", "ARM_HOME"),
    "arm_away": ("payload_arm_away", "ARM_AWAY"),
    "arm_night": ("payload_arm_night", "ARM_NIGHT"),
    "arm_vacation": ("payload_arm_vacation", "ARM_VACATION"),
    "disarm": ("payload_disarm", "DISARM"),
}
DEFAULT_FEATURES = [
    "arm_home",
    "arm_away",
    "arm_night",
    "arm_vacation",
    "arm_custom_bypass",
    "trigger",
]


def load(options: Options, device: Device) -> None:
    options.topic("command_topic")
    options.topic("state_topic", subscribe=True)
    if "command_topic" not in options.config or "state_topic" not in options.config:
        raise BadConfig("an alarm panel needs a command_topic and a state_topic")
    options.template("command_template", "{{action}}")
    options.template("value_template")
    for key, default in ACTIONS.values():
        options.text(key, default)
    options.text("code", None)
    options.flag("code_arm_required", True)
    options.flag("code_disarm_required", True)
    supported = options.strings("supported_features", DEFAULT_FEATURES)
    options.qos()
    device.features = [f for f in supported if f in ACTIONS] + (
        ["code"] if options.config.get("code") else []
    )


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    spec = ACTIONS.get(act.action)
    if spec is None:
        raise Unsupported("cannot")
    if act.action != "disarm" and act.action not in config["supported_features"]:
        raise Unsupported("cannot")
    required = config["code_disarm_required" if act.action == "disarm" else "code_arm_required"]
    if config.get("code") and required:
        raise Unsupported("needs_code")
    word = config[spec[0]]
    return [
        command(device, "command_topic", word, "command_template", {"action": word, "code": None})
    ]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    text = value(device, "value_template", payload)
    if not text:
        return {}
    if text == PAYLOAD_NONE:
        return {"state": None}
    if text not in STATES:
        raise ValueError(f"{text[:40]!r} is not an alarm state")
    return {"state": text}


PLATFORM = Platform("alarm_control_panel", "default", load, encode, decode)
