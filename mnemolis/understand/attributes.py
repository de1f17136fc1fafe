"""What an attribute question asks of the device's type.

"what humidity is the humidifier set to": a humidifier's target is a humidity,
not a temperature; "how hot is the water in the water heater": a thermostat or
water heater asked how warm says its current temperature.
"""

from __future__ import annotations

from mnemolis.understand.class_words import ClassHit
from mnemolis.understand.question_scope import Scope
from mnemolis.understand.slots import SlotFill, SlotResult


def attribute_of_type(scope: Scope, out: SlotResult, hits: list[ClassHit]) -> None:
    """Set or correct the ``attribute`` slot for the one device asked about."""
    fill = out.fills.get("device")
    values = fill.value if fill is not None else []
    found = [
        d
        for v in (values if isinstance(values, list) else [values])
        if (d := scope.device_of(v)) is not None
    ]
    if len(found) != 1:
        return
    device = found[0]
    attribute = out.fills.get("attribute")
    if device.type == "humidifier" and attribute is not None:
        if attribute.value == "target_temperature":
            out.fills["attribute"] = SlotFill(
                "attribute", "target_humidity", attribute.start, attribute.end, "type"
            )
    elif (
        device.type in ("climate", "water_heater")
        and attribute is None
        and any(h.device_class.name == "temperature" for h in hits)
    ):
        out.fills["attribute"] = SlotFill("attribute", "current_temperature", -1, -1, "type")
