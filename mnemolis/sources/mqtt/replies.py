"""What the MQTT source says, in the words of `sources/mqtt.yaml`.

Sentences, state words, colour names and the words that adjust a device
without a number ("brighter", "send it home") live in YAML, so an owner can
reword or translate them. Keys missing from the owner's file fall back to
the bundled defaults, and a template the owner broke falls back too, so a
typo never turns an answer into an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config
from mnemolis.config.bundled import Fields, bundled_source_yaml, merged
from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.wire import Color, format_number, format_reading, number

log = logging.getLogger(__name__)


def bundled_mqtt_yaml() -> dict[str, Any]:
    """The shipped `sources/mqtt.yaml`: the defaults for every phrase."""
    return bundled_source_yaml("mqtt")


@dataclass
class Adjust:
    """Commands without a number: how far "brighter" and "warmer" go."""

    brightness_step: float = 25.0
    brighter: set[str] = field(default_factory=set)
    dimmer: set[str] = field(default_factory=set)
    temperature_step: float = 1.0
    warmer: set[str] = field(default_factory=set)
    cooler: set[str] = field(default_factory=set)
    return_to_base: set[str] = field(default_factory=set)
    color_temp_step: float = 500.0  # kelvin, for "warmer" and "cooler" whites
    percentage_step: float = 25.0  # a fan's "faster" and "slower"
    faster: set[str] = field(default_factory=set)
    slower: set[str] = field(default_factory=set)
    position_step: float = 25.0  # "open the blinds a bit more"
    opener: set[str] = field(default_factory=set)
    closer: set[str] = field(default_factory=set)
    humidity_step: float = 5.0


def _words(value: Any) -> set[str]:
    if not isinstance(value, list):
        return set()
    return {" ".join(str(v).lower().split()) for v in value}


def _numbers(raw: Any) -> dict[str, int]:
    """A table of spoken words -> numbers (colour temperatures, fan speeds)."""
    if not isinstance(raw, dict):
        return {}
    return {
        " ".join(str(k).lower().split()): int(v)
        for k, v in raw.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _colors(raw: Any) -> dict[str, Color]:
    colors: dict[str, Color] = {}
    if not isinstance(raw, dict):
        return colors
    for name, spec in raw.items():
        rgb: Any = spec.get("rgb") if isinstance(spec, dict) else spec
        mireds = spec.get("color_temp") if isinstance(spec, dict) else None
        if (
            isinstance(rgb, list)
            and len(rgb) == 3
            and all(isinstance(c, int) and 0 <= c <= 255 for c in rgb)
        ):
            key = " ".join(str(name).lower().split())
            temp = int(mireds) if isinstance(mireds, int | float) else None
            colors[key] = Color(key, (rgb[0], rgb[1], rgb[2]), temp)
        else:
            log.warning("sources/mqtt.yaml: colour %r needs [r, g, b]; ignored", name)
    return colors


class Phrasebook:
    """Sentences for one device source, built from YAML."""

    def __init__(self, data: dict[str, Any], defaults: dict[str, Any] | None = None) -> None:
        defaults = defaults if defaults is not None else bundled_mqtt_yaml()
        self.defaults: dict[str, Any] = defaults.get("replies") or {}
        self.replies: dict[str, Any] = merged(data.get("replies"), self.defaults) or {}
        self.colors = _colors(merged(data.get("colors"), defaults.get("colors")))
        adjust = merged(data.get("adjust"), defaults.get("adjust")) or {}
        steps = {
            k: float(adjust[k])
            for k in (
                "brightness_step",
                "temperature_step",
                "color_temp_step",
                "percentage_step",
                "position_step",
                "humidity_step",
            )
            if isinstance(adjust.get(k), int | float)
        }
        lists = {
            k: _words(adjust.get(k))
            for k in (
                "brighter",
                "dimmer",
                "warmer",
                "cooler",
                "return_to_base",
                "faster",
                "slower",
                "opener",
                "closer",
            )
        }
        self.adjust = Adjust(**steps, **lists)  # type: ignore[arg-type]
        self.color_temps = _numbers(merged(data.get("color_temps"), defaults.get("color_temps")))
        self.fan_speeds = {
            k: float(v)
            for k, v in _numbers(merged(data.get("fan_speeds"), defaults.get("fan_speeds"))).items()
        }
        self.plural = _words(self.replies.get("plural_words"))

    @classmethod
    def from_config(cls, config: Config) -> Phrasebook:
        return cls(config.sources.get("mqtt") or {})

    # ------------------------------------------------------------------ basics

    def _template(self, section: str | None, key: str) -> str | None:
        table = self.replies.get(section) if section else self.replies
        value = table.get(key) if isinstance(table, dict) else None
        return value if isinstance(value, str) else None

    def _format(self, template: str, fields: dict[str, Any], fallback: str | None) -> str:
        try:
            return template.format_map(Fields(fields))
        except (ValueError, IndexError, AttributeError):
            if fallback and fallback != template:
                return self._format(fallback, fields, None)
            return template

    def subject(self, device: Device) -> str:
        return f"the {device.name}"

    def agreement(self, device: Device) -> dict[str, str]:
        plural = device.name.split()[-1] in self.plural
        return {
            "subject": self.subject(device),
            "is": "are" if plural else "is",
            "has": "have" if plural else "has",
            "its": "their" if plural else "its",
            "it": "them" if plural else "it",
            "name": device.name,
            "room": device.room or "",
        }

    def say(self, key: str, device: Device | None = None, **fields: Any) -> str:
        """The reply ``key`` with its placeholders filled in."""
        template = self._template(None, key)
        fallback = self.defaults.get(key) if isinstance(self.defaults.get(key), str) else None
        if template is None:
            template = fallback or key
        values = dict(self.agreement(device)) if device is not None else {}
        values.update(fields)
        return self._format(template, values, fallback)

    def kind(self, device: Device) -> str:
        return self.kind_of(device.type)

    def kind_of(self, dtype: str) -> str:
        """A device type as said: "lawn_mower" -> "lawn mower"."""
        return self._template("kinds", dtype) or dtype.replace("_", " ")

    def action(self, action: str, device: Device, value: Any = None) -> str:
        """ "unlock the front door", "set the thermostat to 21 °C"."""
        template = self._template("actions", action) or f"{action.replace('_', ' ')} {{subject}}"
        return self._format(template, {**self.agreement(device), "value": value}, None)

    def age(self, seconds: float) -> str:
        units = self.replies.get("ages") or []
        for unit in units:
            if not (isinstance(unit, list) and len(unit) == 3):
                continue
            size, one, many = unit
            if isinstance(size, int | float) and size > 0 and seconds >= size:
                n = int(seconds // size)
                return f"{n} {one if n == 1 else many}"
        return f"{int(seconds)} s"

    def names(self, names: Iterable[str], limit: int = 8) -> str:
        """ "the kitchen light, the porch light and 3 more"."""
        items = [f"the {n}" for n in names]
        if not items:
            return "no devices"
        shown, rest = items[:limit], len(items) - limit
        if rest > 0:
            shown.append(self.say("more", count=rest))
        conj = self.say("and")
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" {conj} " + shown[-1]

    # ------------------------------------------------------------------ states

    def state_word(self, device: Device, state: str) -> str:
        if device.type == "binary_sensor":
            table = self.replies.get("binary_states") or {}
            words = table.get(device.device_class or "") or table.get("default") or {}
            word = words.get(state) if isinstance(words, dict) else None
            if isinstance(word, str):
                return word
        template = self._template("states", state) or state
        return self._format(template, self.agreement(device), None)

    def state_name(self, state: str) -> str:
        """A state as said of several devices: "on", "open", "locked"."""
        template = self._template("states", state) or state
        return self._format(template, {"its": "their"}, None)

    def attribute(self, device: Device, attribute: str, values: dict[str, Any]) -> str | None:
        """One attribute of a reading ("what is the thermostat set to"); None when the
        reading does not have it."""
        template = self._template("attributes", attribute)
        value = values.get(attribute)
        if template is None or value is None:
            return None
        if attribute == "mode":
            said = self._template("modes", str(value)) or str(value)
        else:
            said = self.quantity(device, value)
        return self._format(template, {**self.agreement(device), "value": said}, None)

    def quantity(self, device: Device, value: Any, reading: bool = False) -> str:
        if isinstance(value, int | float) and not isinstance(value, bool):
            unit = device.unit or ("°C" if device.type == "climate" else "")
            said = format_reading if reading else format_number
            return f"{said(float(value))} {unit}".strip()
        return str(value)

    def _sentence(self, key: str, device: Device, **fields: Any) -> str:
        template = self._template("sentences", key) or "{subject} {is} {state}"
        fallback = (self.defaults.get("sentences") or {}).get(key)
        return self._format(template, {**self.agreement(device), **fields}, fallback)

    def describe(self, device: Device, values: dict[str, Any]) -> str | None:
        """A reading as a sentence: "the front door is locked"; None when it says nothing."""
        state = values.get("state")
        if device.type in ("sensor", "number"):
            return self._value_sentence(device, values)
        if device.type == "select":
            option = values.get("option")
            return self._sentence("option", device, option=option) if option else None
        if device.type in ("climate", "water_heater"):
            described = self._climate(device, values)
            if described is not None or state is None:
                return described
        if device.type == "humidifier" and isinstance(values.get("target_humidity"), int | float):
            target = self.quantity(device, values["target_humidity"])
            if state != "off":
                return self._sentence("humidifier", device, target=target)
        position = values.get("position")
        if state is None and device.type in ("cover", "valve") and number(position) is not None:
            # a cover that reports only its position (Z-Wave JS): open above 0
            state = "open" if (number(position) or 0) > 0 else "closed"
        if not isinstance(state, str):
            return None
        if device.type == "binary_sensor" and device.room:
            table = self.replies.get("binary_in_room") or {}
            words = table.get(device.device_class or "")
            if isinstance(words, dict) and isinstance(words.get(state), str):
                return self._format(words[state], self.agreement(device), None)
        word = self.state_word(device, state)
        brightness = values.get("brightness")
        dimmed = isinstance(brightness, int | float) and 0 < brightness < 100
        if device.type == "light" and state == "on" and dimmed:
            return self._sentence("brightness", device, brightness=round(float(brightness or 0)))
        if device.type == "fan" and state == "on":
            if isinstance(values.get("percentage"), int | float):
                return self._sentence("fan_speed", device, percentage=values["percentage"])
            if isinstance(values.get("preset"), str):
                return self._sentence("preset", device, state=word, preset=values["preset"])
        position = values.get("position")
        partly = isinstance(position, int) and 0 < position < 100
        if device.type in ("cover", "valve") and state in ("open", "stopped") and partly:
            return self._sentence("position", device, state=word, position=position)
        battery = values.get("battery")
        if device.type == "vacuum" and isinstance(battery, int | float) and state == "docked":
            return self._sentence("battery", device, state=word, battery=format_number(battery))
        return self._sentence("state", device, state=word)

    def _value_sentence(self, device: Device, values: dict[str, Any]) -> str | None:
        if "value" not in values:
            return None
        if values["value"] is None:
            return self._sentence("unknown", device)
        value = self.quantity(device, values["value"], reading=True)
        room_template = self._template("sensor_in_room", device.device_class or "")
        if device.room and room_template:
            return self._format(room_template, {**self.agreement(device), "value": value}, None)
        return self._sentence("sensor", device, value=value)

    def _climate(self, device: Device, values: dict[str, Any]) -> str | None:
        target, current = values.get("target_temperature"), values.get("current_temperature")
        low, high = values.get("target_temperature_low"), values.get("target_temperature_high")
        off = values.get("mode") == "off" or values.get("state") == "off"
        fields = {
            "target": self.quantity(device, target) if number(target) is not None else "",
            "current": self.quantity(device, current) if number(current) is not None else "",
            "low": self.quantity(device, low) if number(low) is not None else "",
            "high": self.quantity(device, high) if number(high) is not None else "",
            "mode": self._template("modes", str(values.get("mode"))) or str(values.get("mode")),
            "action": self._template("climate_actions", str(values.get("action"))) or "",
        }
        current_text = "_now" if fields["current"] else ""
        if off:
            return self._sentence(f"climate_off{current_text}", device, **fields)
        if fields["low"] and fields["high"]:
            return self._sentence(f"climate_range{current_text}", device, **fields)
        if fields["target"]:
            sentence = self._sentence(f"climate{current_text}", device, **fields)
            if fields["action"]:
                sentence = self._sentence("climate_action", device, sentence=sentence, **fields)
            return sentence
        if values.get("mode"):
            return self._sentence("climate_mode", device, **fields)
        return None

    def color(self, name: str) -> Color | None:
        return self.colors.get(" ".join(name.lower().split()))
