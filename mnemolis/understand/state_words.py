"""The state asked about, in the words of the device's kind.

A state word can mean one state for one kind and another for the next:
lights that are "out" are off (the ``state`` slot of `intents/en/slots.yaml`),
an awning that is "out" is open (the ``state_also`` slot of
`intents/en/values.yaml`). Once the device is known, the state its type can
be in (the ``states`` of its type in `intents/en/devices.yaml`) is the one
asked. And a mode the
device announced, said where a state is asked ("is the thermostat on heat"),
is the state asked: the climate's mode, not "on".

Pure: it reads the analysis and the devices, and rewrites the ``state`` fill.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemolis.config import Config, IntentSpec
from mnemolis.core.devices import Device
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.fills import SlotFill, SlotResult

STATE = "state"
STATE_ALSO = "state_also"
MODE = "mode"


def fit_state(
    config: Config,
    a: Analysis,
    start: int,
    end: int,
    intent: IntentSpec,
    devices: Sequence[Device],
    out: SlotResult,
) -> None:
    """Rewrites ``out``'s state to the one the devices' kind can be in."""
    if STATE not in intent.slots or not devices:
        return
    modes = {m for d in devices for m in d.caps.modes}
    # "is the heating on": a mode word inside the device's name or noun is that name
    device = out.fills.get("device")
    named = set(device.tokens) if device is not None else set()
    said = [
        w
        for w in a.slot_words
        if w.slot == MODE
        and start <= w.start
        and w.end <= end
        and w.value in modes
        and not named & set(range(w.start, w.end))
    ]
    if said and all(said[0].value in d.caps.modes for d in devices):
        w = said[0]
        out.fills[STATE] = SlotFill(STATE, w.value, w.start, w.end, "announced")
        return
    fill = out.fills.get(STATE)
    if fill is None:
        return
    kinds = {d.type for d in devices}
    can_be = {s for k in kinds for s in config.device_states.get(k, ())}
    if not can_be or str(fill.value) in can_be:
        return
    same = {
        w.value
        for w in a.slot_words
        if w.slot in (STATE, STATE_ALSO)
        and (w.start, w.end) == (fill.start, fill.end)
        and w.value in can_be
    }
    if len(same) == 1:
        fill.value = same.pop()
