"""What Home Assistant's climate and water heater share (``MqttTemperatureControlEntity``).

Every ``<name>_state_topic`` is read through ``<name>_state_template`` (or
``value_template``), every ``<name>_command_topic`` written through
``<name>_command_template``; a temperature goes out as a float (``21.0``),
as Home Assistant's services hand it over. A value outside ``min_temp`` ..
``max_temp`` is refused, as Home Assistant refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.schemas.base import Options, command, one_of
from mnemolis.sources.mqtt.wire import PAYLOAD_NONE, Command, Unsupported, number

UNITS = {"C": "°C", "F": "°F", "°C": "°C", "°F": "°F"}


def load_parts(options: Options, parts: tuple[str, ...], value_key: str = "state_template") -> None:
    """Topics and templates of each part: ``mode`` -> mode_command_topic, mode_state_topic ..."""
    for part in parts:
        options.topic(f"{part}_command_topic")
        options.topic(f"{part}_state_topic", subscribe=True)
        options.template(f"{part}_command_template")
        options.template(f"{part}_{value_key}")


def load_range(options: Options, low: float, high: float, device: Device) -> None:
    unit = options.text("temperature_unit", None)
    device.unit = UNITS.get(unit or "C", "°C")
    fahrenheit = device.unit == "°F"
    minimum = options.number("min_temp", low * 9 / 5 + 32 if fahrenheit else low)
    maximum = options.number("max_temp", high * 9 / 5 + 32 if fahrenheit else high)
    step = options.number("temp_step", 1.0)
    options.number("precision", None)
    device.caps.minimum, device.caps.maximum, device.caps.step = minimum, maximum, step


def temperature(device: Device, part: str, target: float | None) -> Command:
    """Publish a target temperature on ``<part>_command_topic`` (temperature, _low, _high)."""
    if target is None:
        raise Unsupported("no_value")
    if not device.config.get(f"{part}_command_topic"):
        raise Unsupported("no_temperature_command")
    low, high = device.caps.minimum, device.caps.maximum
    if (low is not None and target < low) or (high is not None and target > high):
        raise Unsupported(
            "out_of_range", f"{low:g} to {high:g}" if low is not None and high is not None else ""
        )
    return command(device, f"{part}_command_topic", float(target), f"{part}_command_template")


def choice(
    device: Device, part: str, wanted: str | None, choices: tuple[str, ...], what: str
) -> Command:
    if not device.config.get(f"{part}_command_topic"):
        raise Unsupported(f"no_{what}")
    chosen = one_of(wanted, choices, what)
    return command(device, f"{part}_command_topic", chosen, f"{part}_command_template")


def humidity(device: Device, target: float | None, low: float, high: float) -> Command:
    """A target humidity, as a whole number, within the device's range."""
    if not device.config.get("target_humidity_command_topic"):
        raise Unsupported("no_humidity")
    if target is None:
        raise Unsupported("no_value")
    if not low <= target <= high:
        raise Unsupported("out_of_range", f"{low:g} to {high:g} %")
    return command(
        device, "target_humidity_command_topic", int(target), "target_humidity_command_template"
    )


def announced_modes(config: Mapping[str, Any], modes: list[str]) -> tuple[str, ...]:
    """The modes a device has, when it has a mode topic at all."""
    return (
        tuple(modes) if config.get("mode_command_topic") or config.get("mode_state_topic") else ()
    )


def power(device: Device, on: bool) -> Command | None:
    config = device.config
    if not config.get("power_command_topic"):
        return None
    word = config["payload_on" if on else "payload_off"]
    return command(device, "power_command_topic", word, "power_command_template")


def modes_on(device: Device, on: bool, state: Mapping[str, Any]) -> str:
    """The mode that means off, or on: the only mode besides off (Home Assistant's own rule),
    else heat, else the first mode that is not off (Mnemolis's choice, said in the answer)."""
    modes = list(device.caps.modes)
    if not on:
        if "off" not in modes:
            raise Unsupported("cannot")
        return "off"
    others = [m for m in modes if m != "off"]
    if not others:
        raise Unsupported("cannot")
    last = state.get("last_mode")
    if isinstance(last, str) and last in others:
        return last
    return "heat" if "heat" in others and len(others) > 1 else others[0]


def reading(text: str) -> float | None:
    """A temperature or humidity state: a number, "None" for unknown."""
    if text == PAYLOAD_NONE:
        return None
    found = number(text)
    if found is None:
        raise ValueError(f"{text[:40]!r} is not a number")
    return found
