"""Does a reading say what was asked? "is the back door locked", "is the robot docked".

Each type has the words a person asks with (on/off, open/closed,
locked/unlocked, docked/cleaning ...); a wanted word outside them, or a
reading that does not say, gives None: the answer is then "I can't tell",
never a guess.
"""

from __future__ import annotations

from typing import Any

from mnemolis.core.devices import Device

#: Words asked about a device that are its canonical states as they are.
DIRECT = {
    "vacuum": ("cleaning", "docked", "returning", "paused", "idle", "error"),
    "lawn_mower": ("mowing", "docked", "returning", "paused", "error"),
    "alarm_control_panel": (
        "disarmed",
        "armed_home",
        "armed_away",
        "armed_night",
        "armed_vacation",
        "triggered",
        "pending",
        "arming",
        "disarming",
    ),
    "lock": ("jammed", "locking", "unlocking", "open", "opening"),
    "device_tracker": ("home", "not_home"),
    "cover": ("opening", "closing", "stopped"),
    "valve": ("opening", "closing"),
}
ON_OFF = ("light", "switch", "fan", "siren", "humidifier")


def state_matches(device: Device, values: dict[str, Any], wanted: str | None) -> bool | None:
    """True, False, or None when the reading cannot say."""
    raw_state = values.get("state")
    state = raw_state if isinstance(raw_state, str) else None
    kind = device.type
    if kind == "binary_sensor":
        if state not in ("on", "off"):
            return None
        if wanted in (None, "on", "open"):
            return state == "on"
        return state == "off" if wanted in ("off", "closed") else None
    if wanted is None:
        return None
    if wanted in DIRECT.get(kind, ()):
        return state == wanted if state is not None else None
    if kind in ON_OFF:
        return state == wanted if wanted in ("on", "off") and state in ("on", "off") else None
    if kind in ("climate", "water_heater"):
        return _climate(values, state, wanted)
    if kind == "vacuum":
        if wanted not in ("on", "off") or state is None:
            return None
        running = state in ("cleaning", "returning")
        return running if wanted == "on" else not running
    if kind == "lock":
        if wanted not in ("locked", "unlocked") or state not in ("locked", "unlocked", "open"):
            return None
        return state == "locked" if wanted == "locked" else state != "locked"
    if kind in ("cover", "valve"):
        return _opened(values, state, wanted)
    if kind == "alarm_control_panel" and wanted in ("armed", "on"):
        return state.startswith("armed") if state else None
    if kind == "device_tracker" and wanted in ("away", "out"):
        return state != "home" if state else None
    if kind == "select":
        option = values.get("option")
        return option.lower() == wanted.lower() if isinstance(option, str) else None
    return None


def _climate(values: dict[str, Any], state: str | None, wanted: str) -> bool | None:
    raw_mode = values.get("mode")
    mode = raw_mode if isinstance(raw_mode, str) else None
    if mode is not None and wanted not in ("on", "off"):
        return mode == wanted
    if wanted not in ("on", "off") or (mode is None and state is None):
        return None
    is_off = mode == "off" if mode is not None else state == "off"
    return is_off if wanted == "off" else not is_off


def _opened(values: dict[str, Any], state: str | None, wanted: str) -> bool | None:
    position = values.get("position")
    if state in ("open", "opening", "closing", "closed"):
        opened = state != "closed"
    elif isinstance(position, int | float):
        opened = position > 0
    else:
        return None
    if wanted == "open":
        return opened
    return not opened if wanted == "closed" else None
