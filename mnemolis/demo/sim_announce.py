"""How simulated devices announce themselves: Home Assistant discovery or a zigbee2mqtt bridge.

`homeassistant_config` writes the retained discovery config a device of
this kind would publish (abbreviated keys, ``~``, templates for JSON
devices); `zigbee2mqtt_entry` its entry in ``bridge/devices``;
`zigbee2mqtt_device` a `Device` wired the zigbee2mqtt way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from mnemolis.core.devices import Device, slugify
from mnemolis.demo.sim_devices import SimulatedDevice

#: Device topic role -> Home Assistant's abbreviated discovery key.
HA_TOPIC_KEYS = {
    "state": "stat_t",
    "command": "cmd_t",
    "brightness_state": "bri_stat_t",
    "brightness_command": "bri_cmd_t",
    "rgb_state": "rgb_stat_t",
    "rgb_command": "rgb_cmd_t",
    "position_state": "pos_t",
    "position_command": "set_pos_t",
    "temperature_state": "temp_stat_t",
    "temperature_command": "temp_cmd_t",
    "current_temperature": "curr_temp_t",
    "mode_state": "mode_stat_t",
    "mode_command": "mode_cmd_t",
    "power_command": "pow_cmd_t",
    "availability": "avty_t",
}
HA_WORD_KEYS = {
    "on": "pl_on",
    "off": "pl_off",
    "lock": "pl_lock",
    "unlock": "pl_unlk",
    "state_locked": "stat_locked",
    "state_unlocked": "stat_unlocked",
    "open": "pl_open",
    "close": "pl_cls",
    "stop": "pl_stop",
    "state_open": "stat_open",
    "state_closed": "stat_clsd",
    "state_stopped": "stat_stopped",
    "start": "pl_strt",
    "return_to_base": "pl_ret",
    "available": "pl_avail",
    "not_available": "pl_not_avail",
}
HA_WORDS_BY_TYPE = {
    "light": ("on", "off"),
    "switch": ("on", "off"),
    "fan": ("on", "off"),
    "lock": ("lock", "unlock", "state_locked", "state_unlocked"),
    "cover": ("open", "close", "stop", "state_open", "state_closed", "state_stopped"),
    "vacuum": ("start", "stop", "return_to_base"),
    "binary_sensor": (),
}


def _with_base(config: dict[str, Any]) -> dict[str, Any]:
    """Use the ``~`` shorthand for topics under the state topic, as many devices do."""
    base = config.get("stat_t")
    if not isinstance(base, str):
        return config
    out: dict[str, Any] = {"~": base}
    for key, value in config.items():
        if key.endswith("_t") and isinstance(value, str) and value.startswith(base):
            value = "~" + value[len(base) :]
        out[key] = value
    return out


def homeassistant_config(sim: SimulatedDevice) -> dict[str, Any]:
    """The retained discovery config a device of this kind would publish."""
    device, w = sim.device, sim.words
    config: dict[str, Any] = {
        "name": None,
        "uniq_id": f"sim_{device.id}",
        "dev": {
            "ids": [f"sim_{device.id}"],
            "name": device.name.title(),
            "mf": "Mnemolis",
            "mdl": f"simulated {device.type}",
        },
        "o": {"name": "mnemolis simulator"},
    }
    if device.room:
        config["dev"]["sa"] = device.room.title()
    for role, topic in device.topics.items():
        if role in HA_TOPIC_KEYS:
            config[HA_TOPIC_KEYS[role]] = topic
    if device.device_class:
        config["dev_cla"] = device.device_class
    if device.unit:
        config["unit_of_meas"] = device.unit
    if device.type == "light" and sim.json:
        config["schema"] = "json"
        modes = ["rgb"] if "color" in device.features else []
        if not modes:
            modes = ["brightness"] if "brightness" in device.features else ["onoff"]
        config["sup_clrm"] = modes
        if "brightness" in device.features:
            config["bri_scl"] = int(w.get("brightness_scale", 255))
    elif sim.json:
        _json_templates(sim, config)
    for word in HA_WORDS_BY_TYPE.get(device.type, ()):
        config[HA_WORD_KEYS[word]] = w[word]
    if device.type == "binary_sensor":
        config["pl_on"], config["pl_off"] = w["state_on"], w["state_off"]
    if device.type == "climate":
        config["modes"] = ["off", "heat", "auto"]
    if "availability" in device.topics and sim.z2m_base is None:
        config["pl_avail"], config["pl_not_avail"] = w["available"], w["not_available"]
    return _with_base(config)


def _json_templates(sim: SimulatedDevice, config: dict[str, Any]) -> None:
    """Describe a JSON device to Home Assistant with value and command templates."""
    kind, k, topics = sim.device.type, sim.keys, sim.device.topics

    def pick(key: str) -> str:
        return "{{ value_json." + key + " }}"

    if kind in ("switch", "lock", "binary_sensor", "cover"):
        config["val_tpl"] = pick(k["state"])
    if kind == "fan":
        config["stat_val_tpl"] = pick(k["state"])
    if kind in ("switch", "lock", "fan"):
        config["cmd_tpl"] = '{"' + k["state"] + '": "{{ value }}"}'
    if kind == "cover":
        config["pos_t"] = topics["state"]
        config["pos_tpl"] = pick(k["position"])
    if kind == "sensor":
        config["val_tpl"] = pick(k["value"])
    if kind == "climate":
        state, command = topics.get("state"), topics.get("command")
        config.pop("stat_t", None)
        config.pop("cmd_t", None)
        config.update(
            {
                "temp_stat_t": state,
                "temp_stat_tpl": pick(k["target_temperature"]),
                "curr_temp_t": state,
                "curr_temp_tpl": pick(k["current_temperature"]),
                "mode_stat_t": state,
                "mode_stat_tpl": pick(k["mode"]),
                "temp_cmd_t": command,
                "temp_cmd_tpl": '{"' + k["target_temperature"] + '": {{ value }}}',
                "mode_cmd_t": command,
                "mode_cmd_tpl": '{"' + k["mode"] + '": "{{ value }}"}',
            }
        )


def _z2m_expose(sim: SimulatedDevice) -> list[dict[str, Any]]:
    device, w, k = sim.device, sim.words, sim.keys
    kind = device.type

    def binary(name: str, prop: str, on: Any, off: Any) -> dict[str, Any]:
        return {
            "type": "binary",
            "name": name,
            "property": prop,
            "value_on": on,
            "value_off": off,
            "access": 7,
        }

    def numeric(name: str, prop: str, **more: Any) -> dict[str, Any]:
        return {"type": "numeric", "name": name, "property": prop, "access": 7, **more}

    if kind in ("light", "switch", "fan"):
        features = [binary("state", k["state"], w["on"], w["off"])]
        if kind == "light" and "brightness" in device.features:
            features.append(numeric("brightness", k["brightness"], value_min=0, value_max=254))
        if kind == "light" and "color" in device.features:
            xy = [numeric("x", "x"), numeric("y", "y")]
            features.append(
                {"type": "composite", "name": "color_xy", "property": k["color"], "features": xy}
            )
        return [
            {"type": kind, "features": features},
            numeric("linkquality", "linkquality", access=1),
        ]
    if kind == "lock":
        lock_state = {
            "type": "enum",
            "name": "lock_state",
            "property": k.get("lock_state", "lock_state"),
            "values": ["not_fully_locked", "locked", "unlocked"],
            "access": 1,
        }
        return [
            {
                "type": "lock",
                "features": [binary("state", k["state"], w["lock"], w["unlock"]), lock_state],
            }
        ]
    if kind == "cover":
        state = {
            "type": "enum",
            "name": "state",
            "property": k["state"],
            "values": [w["open"], w["close"], w["stop"]],
            "access": 7,
        }
        return [
            {
                "type": "cover",
                "features": [state, numeric("position", k["position"], value_min=0, value_max=100)],
            }
        ]
    if kind == "climate":
        mode = {
            "type": "enum",
            "name": "system_mode",
            "property": k["mode"],
            "values": ["off", "auto", "heat"],
            "access": 7,
        }
        return [
            {
                "type": "climate",
                "features": [
                    numeric(
                        "occupied_heating_setpoint",
                        k["target_temperature"],
                        value_min=5,
                        value_max=30,
                    ),
                    numeric("local_temperature", k["current_temperature"], access=1),
                    mode,
                ],
            }
        ]
    if kind == "sensor":
        return [
            numeric(
                str(device.device_class or "value"), k["value"], access=1, unit=device.unit or ""
            )
        ]
    if kind == "binary_sensor":
        return [binary(k["state"], k["state"], w["state_on"], w["state_off"])]
    return []


def zigbee2mqtt_entry(sim: SimulatedDevice, base: str) -> dict[str, Any]:
    """The device's entry in ``zigbee2mqtt/bridge/devices``."""
    friendly = sim.device.topics["state"][len(base) + 1 :]
    ieee = "0x" + hashlib.sha1(sim.device.id.encode()).hexdigest()[:16]
    return {
        "ieee_address": ieee,
        "type": "EndDevice" if sim.device.type in ("sensor", "binary_sensor") else "Router",
        "friendly_name": friendly,
        "supported": True,
        "disabled": False,
        "interview_completed": True,
        "definition": {
            "model": f"SIM-{sim.device.type.upper()}",
            "vendor": "Mnemolis",
            "description": f"simulated {sim.device.type}",
            "exposes": _z2m_expose(sim),
        },
    }


def zigbee2mqtt_device(
    name: str,
    type: str,
    *,
    features: Iterable[str] = (),
    room: str | None = None,
    device_class: str | None = None,
    unit: str | None = None,
    base: str = "zigbee2mqtt",
    friendly_name: str | None = None,
) -> Device:
    """A device wired the zigbee2mqtt way: state on ``<base>/<name>``, JSON on ``.../set``."""
    friendly = friendly_name or name
    state = f"{base}/{friendly}"
    topics = {"state": state, "availability": f"{state}/availability"}
    if type not in ("sensor", "binary_sensor"):
        topics["command"] = f"{state}/set"
    payloads: dict[str, Any] = {"keys": {}}
    if type == "light":
        payloads["brightness_scale"] = 254
    elif type == "fan":
        payloads["keys"] = {"state": "fan_state"}
    elif type == "lock":
        payloads.update(
            {
                "keys": {"lock_state": "lock_state"},
                "state_locked": "LOCK",
                "state_unlocked": "UNLOCK",
            }
        )
    elif type == "cover":
        payloads.update({"state_open": "OPEN", "state_closed": "CLOSE", "state_stopped": "STOP"})
    elif type == "climate":
        payloads["keys"] = {
            "target_temperature": "occupied_heating_setpoint",
            "current_temperature": "local_temperature",
            "mode": "system_mode",
        }
    elif type == "sensor":
        payloads["keys"] = {"value": device_class or "value"}
    elif type == "binary_sensor":
        expose = {"motion": "occupancy", "door": "contact", "moisture": "water_leak"}.get(
            device_class or "", "occupancy"
        )
        payloads.update(
            {
                "keys": {"state": expose},
                "state_on": expose != "contact",
                "state_off": expose == "contact",
            }
        )
    return Device(
        name=name,
        type=type,
        room=room,
        features=list(features),
        id="sim_" + slugify(friendly),
        origin="zigbee2mqtt",
        topics=topics,
        payloads=payloads,
        schema="json",
        device_class=device_class,
        unit=unit,
    )
