"""Home Assistant's MQTT siren: on/off with a tone, a duration and a volume.

Without a ``command_template`` the command is JSON of the state and the
options (``{"state": "ON", "tone": "ping"}``), as
``homeassistant/components/mqtt/siren.py`` publishes it; the state may be
plain (``state_on``) or the same JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, Platform, command, one_of, require, value
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Act, Command, Unsupported, json_dumps


def load(options: Options, device: Device) -> None:
    require(options, "command_topic", "a siren")
    options.topic("state_topic", subscribe=True)
    options.template("command_template")
    options.template("command_off_template")
    options.template("state_value_template")
    on = options.text("payload_on", "ON")
    off = options.text("payload_off", "OFF")
    options.text("state_on", on)
    options.text("state_off", off)
    tones = options.strings("available_tones")
    duration = options.flag("support_duration", True)
    volume = options.flag("support_volume_set", True)
    options.qos()
    device.caps.tones = tuple(tones)
    device.features = [
        f for f, ok in (("tones", bool(tones)), ("duration", duration), ("volume", volume)) if ok
    ]


def encode(device: Device, act: Act, state: Mapping[str, Any]) -> list[Command]:
    config = device.config
    if act.action not in ("turn_on", "turn_off"):
        raise Unsupported("cannot")
    on = act.action == "turn_on"
    word = config["payload_on" if on else "payload_off"]
    variables: dict[str, Any] = {"state": word}
    if on and act.tone is not None:
        if not device.caps.tones:
            raise Unsupported("no_tones")
        variables["tone"] = one_of(act.tone, device.caps.tones, "tone")
    template = (
        "command_template"
        if on or not config.get("command_off_template")
        else ("command_off_template")
    )
    if config.get(template) is None:
        return [command(device, "command_topic", json_dumps(variables))]
    return [command(device, "command_topic", word, template, variables)]


def decode(device: Device, role: str, payload: bytes) -> dict[str, Any]:
    config = device.config
    text = value(device, "state_value_template", payload)
    if not text:
        return {}
    if text == PAYLOAD_NONE:
        return {"state": None}
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    out: dict[str, Any] = {}
    if isinstance(body, dict):
        word = body.get("state")
        for key in ("tone", "duration", "volume_level"):
            if key in body:
                out[key] = body[key]
    else:
        word = text
    if word == config["state_on"]:
        out["state"] = "on"
    elif word == config["state_off"]:
        out["state"] = "off"
    return out


PLATFORM = Platform("siren", "default", load, encode, decode)
