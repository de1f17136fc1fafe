"""From a routed part's slots (and the device's last reading) to one `Act`.

The slots each action reads are listed in `mnemolis.sources.mqtt.codec`.
Without a number, "brighter", "warmer", "faster" or "open it a bit more"
step from the cached state by the steps of ``adjust:`` in
`sources/mqtt.yaml`; the part's text only picks a direction from those
word lists and never becomes part of a payload. A value is checked against
what the device announced (its presets, modes, range) where the schema
does not check it itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.core.plan import Part
from mnemolis.sources.mqtt.replies import Phrasebook
from mnemolis.sources.mqtt.wire import Act, number

#: A valve is switched by opening and closing it.
VALVE_SWITCHING = {"turn_on": "open", "turn_off": "close"}


def contains(text: str, words: set[str]) -> bool:
    padded = f" {' '.join(text.lower().split())} "
    return any(f" {w} " in padded for w in words)


def _slot_number(part: Part, name: str) -> float | None:
    raw = part.slots.get(name)
    if isinstance(raw, bool):
        return None
    return number(raw)


def _slot_text(part: Part, *names: str) -> str | None:
    for name in names:
        raw = part.slots.get(name)
        if isinstance(raw, str) and raw.strip():
            return raw.strip()
    return None


def _step(part: Part, name: str) -> float | None:
    """A signed relative change: understanding's ``step`` ("up by 10"), or the older
    per-quantity slot of the same meaning."""
    found = _slot_number(part, name)
    return found if found is not None else _slot_number(part, "step")


def _clamp(value: float, low: float = 0.0, high: float = 100.0) -> float:
    return max(low, min(high, value))


class Values:
    """Reads the slots of parts into `Act`s, with the words and steps of one phrasebook."""

    def __init__(self, words: Phrasebook) -> None:
        self.words = words

    def refine(self, device: Device, action: str, part: Part) -> str:
        """ "send the vacuum home" asks for its dock, not for a stop where it stands."""
        returning = contains(part.text, self.words.adjust.return_to_base)
        if device.type in ("vacuum", "lawn_mower") and action == "stop" and returning:
            return "return_to_base"
        if device.type == "lawn_mower" and action == "stop":
            return "pause"  # a mower stops where it is by pausing
        if action == "turn_on" and device.type == "scene":
            return "activate"  # "turn on movie night"
        if action == "activate" and device.type != "scene" and device.can("turn_on"):
            return "turn_on"  # "activate the kettle"
        if device.type == "valve" and action in VALVE_SWITCHING:
            return VALVE_SWITCHING[action]  # "turn off the water" closes its valve
        return action

    def act(
        self, device: Device, action: str, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        """The act, or None and the reply key of what is missing or unknown."""
        handler = getattr(self, f"_{action}", None)
        if handler is None:
            return Act(action), None
        result: tuple[Act | None, str | None] = handler(device, part, state)
        return result

    # ------------------------------------------------------------------ lights

    def _turn_on(self, device: Device, part: Part, state: Mapping[str, Any]) -> tuple[Act, None]:
        color, kelvin = None, None
        name = _slot_text(part, "color")
        if name is not None and device.type == "light":
            color = self.words.color(name)
        if device.type == "light" and part.slots.get("color_temp") is not None:
            kelvin = self._kelvin(part.slots.get("color_temp"))
        brightness = _slot_number(part, "brightness") if device.type == "light" else None
        return Act(
            "turn_on",
            brightness=brightness,
            color=color,
            kelvin=kelvin,
            effect=_slot_text(part, "effect") if device.type == "light" else None,
            percentage=_slot_number(part, "percentage") if device.type == "fan" else None,
            preset=_slot_text(part, "preset") if device.type == "fan" else None,
            mode=_slot_text(part, "mode") if device.type in ("climate", "water_heater") else None,
            tone=_slot_text(part, "tone") if device.type == "siren" else None,
        ), None

    def _set_brightness(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        adjust = self.words.adjust
        raw = _slot_number(part, "brightness")
        if raw is not None:
            return Act("set_brightness", brightness=_clamp(raw)), None
        current = number(state.get("brightness"))
        if current is None:
            current = 100.0 if state.get("state") != "off" else 0.0
        step = _step(part, "brightness_step")
        if step is None:
            if contains(part.text, adjust.dimmer):
                step = -adjust.brightness_step
            elif contains(part.text, adjust.brighter):
                step = adjust.brightness_step
        if step is None:
            return None, "no_value"
        target = _clamp(current + step)
        if step < 0:
            target = max(1.0, target)
        return Act("set_brightness", brightness=target), None

    def _set_color(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        name = _slot_text(part, "color")
        if name is None:
            if part.slots.get("color_temp") is not None:
                return self._set_color_temp(device, part, state)
            return None, "no_value"
        color = self.words.color(name)
        if color is None:
            kelvin = self.words.color_temps.get(" ".join(name.lower().split()))
            if kelvin is not None:
                return Act("set_color_temp", kelvin=kelvin), None
            return None, "unknown_color"
        return Act("set_color", color=color), None

    def _kelvin(self, raw: Any) -> int | None:
        if isinstance(raw, str):
            named = self.words.color_temps.get(" ".join(raw.lower().split()))
            if named is not None:
                return named
        found = number(raw)
        if found is None or found <= 0:
            return None
        return int(found) if found >= 1000 else int(1_000_000 // found)  # mireds, as said

    def _set_color_temp(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        kelvin = self._kelvin(part.slots.get("color_temp"))
        if kelvin is None:
            current = number(state.get("kelvin"))
            step = self.words.adjust.color_temp_step
            if current is not None and contains(part.text, self.words.adjust.warmer):
                kelvin = int(current - step)
            elif current is not None and contains(part.text, self.words.adjust.cooler):
                kelvin = int(current + step)
        if kelvin is None:
            return None, "no_value"
        return Act("set_color_temp", kelvin=kelvin), None

    def _set_effect(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        effect = _slot_text(part, "effect")
        return (Act("set_effect", effect=effect), None) if effect else (None, "no_value")

    # ------------------------------------------------------------------ fans, covers

    def _stepped(
        self,
        part: Part,
        state: Mapping[str, Any],
        slot: str,
        key: str,
        step: float,
        up: set[str],
        down: set[str],
    ) -> float | None:
        raw = _slot_number(part, slot)
        if raw is not None:
            return _clamp(raw)
        current = number(state.get(key))
        delta = _step(part, f"{slot}_step")
        if delta is None and current is not None:
            if contains(part.text, down):
                delta = -step
            elif contains(part.text, up):
                delta = step
        if delta is None:
            return None
        return _clamp((current or 0.0) + delta)

    def _set_percentage(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        word = _slot_text(part, "preset", "fan_speed")
        if word is not None and _slot_number(part, "percentage") is None:
            folded = " ".join(word.lower().split())
            if any(folded == p.lower() for p in device.caps.preset_modes):
                return Act("set_preset", preset=word), None
            if folded in self.words.fan_speeds:
                return Act("set_percentage", percentage=self.words.fan_speeds[folded]), None
        adjust = self.words.adjust
        target = self._stepped(
            part,
            state,
            "percentage",
            "percentage",
            adjust.percentage_step,
            adjust.faster,
            adjust.slower,
        )
        if target is None:
            return None, "no_value"
        return Act("set_percentage", percentage=target), None

    def _set_preset(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        preset = _slot_text(part, "preset", "mode")
        if preset is None:
            return None, "no_value"
        folded = " ".join(preset.lower().split())
        if (
            device.type == "fan"
            and folded in self.words.fan_speeds
            and not any(folded == p.lower() for p in device.caps.preset_modes)
        ):
            return Act("set_percentage", percentage=self.words.fan_speeds[folded]), None
        return Act("set_preset", preset=preset), None

    def _oscillate(self, device: Device, part: Part, state: Mapping[str, Any]) -> tuple[Act, None]:
        raw = part.slots.get("oscillate")
        if not isinstance(raw, bool):
            raw = part.slots.get("state") != "off"
        return Act("oscillate", oscillating=bool(raw)), None

    def _set_direction(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        direction = _slot_text(part, "direction")
        return (
            (Act("set_direction", direction=direction), None) if direction else (None, "no_value")
        )

    def _set_position(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        adjust = self.words.adjust
        target = self._stepped(
            part, state, "position", "position", adjust.position_step, adjust.opener, adjust.closer
        )
        if target is None:
            return None, "no_value"
        return Act("set_position", position=target), None

    def _set_tilt(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        raw = _slot_number(part, "tilt")
        if raw is None:
            raw = _slot_number(part, "position")
        return (Act("set_tilt", tilt=_clamp(raw)), None) if raw is not None else (None, "no_value")

    # ------------------------------------------------------------------ climate and friends

    def _set_temperature(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        adjust = self.words.adjust
        low, high = _slot_number(part, "temperature_low"), _slot_number(part, "temperature_high")
        mode = _slot_text(part, "mode")
        if low is not None or high is not None:
            return Act("set_temperature", target_low=low, target_high=high, mode=mode), None
        raw = _slot_number(part, "temperature")
        if raw is not None:
            return Act("set_temperature", temperature=raw, mode=mode), None
        current = number(state.get("target_temperature"))
        step = _step(part, "temperature_step")
        if step is None and current is not None:
            if contains(part.text, adjust.cooler):
                step = -adjust.temperature_step
            elif contains(part.text, adjust.warmer):
                step = adjust.temperature_step
        if step is None or current is None:
            return None, "no_value"
        return Act("set_temperature", temperature=current + step, mode=mode), None

    def _set_mode(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        mode = _slot_text(part, "mode", "preset")
        return (Act("set_mode", mode=mode), None) if mode else (None, "no_value")

    def _set_fan_mode(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        mode = _slot_text(part, "fan_mode", "fan_speed", "preset")
        return (Act("set_fan_mode", fan_mode=mode), None) if mode else (None, "no_value")

    def _set_swing_mode(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        mode = _slot_text(part, "swing_mode", "mode")
        return (Act("set_swing_mode", swing_mode=mode), None) if mode else (None, "no_value")

    def _set_humidity(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        adjust = self.words.adjust
        target = self._stepped(
            part,
            state,
            "humidity",
            "target_humidity",
            adjust.humidity_step,
            adjust.brighter | adjust.warmer,
            adjust.dimmer | adjust.cooler,
        )
        return (
            (Act("set_humidity", humidity=target), None)
            if target is not None
            else (None, "no_value")
        )

    def _set_fan_speed(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        speed = _slot_text(part, "fan_speed", "preset", "mode")
        return (Act("set_fan_speed", fan_speed=speed), None) if speed else (None, "no_value")

    def _select_option(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        option = _slot_text(part, "option", "mode", "preset")
        return (Act("select_option", option=option), None) if option else (None, "no_value")

    def _set_value(
        self, device: Device, part: Part, state: Mapping[str, Any]
    ) -> tuple[Act | None, str | None]:
        raw = _slot_number(part, "value")
        if raw is None:
            step = _step(part, "value_step")
            current = number(state.get("value"))
            if step is not None and current is not None:
                raw = current + step
        return (Act("set_value", value=raw), None) if raw is not None else (None, "no_value")
