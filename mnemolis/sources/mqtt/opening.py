"""What a command does to a device, and whether that waits for a spoken yes.

Nobody opens the house without a yes. Whether a command waits is decided from
its effect on the device, never from the words or the intent that produced it,
so "open the garage door", "set the garage door to 100 percent", "open it
halfway", "open it a bit more", a routine step, a delayed command, a watch and
a toggle are judged alike (`Commands.one` asks `ConfirmPolicy.waits` just
before encoding, the one place every command passes before it is published).

The effects that wait (`effect_of`):

- a cover or a valve that opens: ``open``, a position above the one it reported
  (or any position above 0 when it has not reported one), a tilt above its
  last one: effect ``open``;
- a lock that unlocks (``unlock``) or unlatches (``open``);
- an alarm panel that is disarmed: effect ``disarm``.

Which devices are guarded is `sources/mqtt.yaml`'s ``confirm:`` section, by
type: ``all``, ``none`` or a list of device classes (a cover or valve that
announces no class counts as one of those classes when its name says it:
"the shed door", "the gas valve"). By default garage doors, gates and doors
among covers, every valve, every lock and every alarm panel. A device's own
``confirm:`` list adds to that: an effect word (``open``, ``unlock``,
``disarm``; what ``[unlock, open]`` in older files meant, now by effect) or
any other action by name (``start``, ``press``: a relay that drives a gate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemolis.config import ConfigError, line_of
from mnemolis.core.devices import Device, name_key
from mnemolis.sources.mqtt.wire import Act, number

#: The effects that wait for a yes, by the device type that has them.
EFFECTS: dict[str, tuple[str, ...]] = {
    "cover": ("open",),
    "valve": ("open",),
    "lock": ("unlock", "open"),
    "alarm_control_panel": ("disarm",),
}
#: Every device of the type (``all``), or none.
ALL: tuple[str, ...] | None = None
NONE: tuple[str, ...] = ()
DEFAULT_GUARDED: dict[str, tuple[str, ...] | None] = {
    "cover": ("garage", "gate", "door"),
    "valve": ALL,
    "lock": ALL,
    "alarm_control_panel": ALL,
}


def current_position(state: Mapping[str, Any]) -> float | None:
    """Where a cover or valve is, in percent open; None when it has not said."""
    found = number(state.get("position"))
    if found is not None:
        return found
    return 0.0 if state.get("state") == "closed" else None


def _raises(target: float | None, current: float | None) -> bool:
    """A target above where it is; any target above 0 when that is unknown."""
    if target is None:
        return True  # no number to judge by: it may open
    if current is None:
        return target > 0
    return target > current


def effect_of(device: Device, act: Act, state: Mapping[str, Any]) -> str | None:
    """What ``act`` does to ``device`` that may let someone in: "open" (a cover or valve
    opening or raised, a lock unlatched), "unlock", "disarm"; None for anything else."""
    kind, action = device.type, act.action
    if kind == "lock":
        return action if action in ("unlock", "open") else None
    if kind == "alarm_control_panel":
        return "disarm" if action == "disarm" else None
    if kind not in ("cover", "valve"):
        return None
    if action == "open":
        return "open"
    if action == "set_position":
        return "open" if _raises(act.position, current_position(state)) else None
    if action == "set_tilt":
        return "open" if _raises(act.tilt, number(state.get("tilt"))) else None
    return None


@dataclass(frozen=True)
class ConfirmPolicy:
    """Which devices' opening, unlocking and disarming wait for a yes (`sources/mqtt.yaml`
    ``confirm:``): by type, every device (None), none (()), or those of these classes."""

    guarded: Mapping[str, tuple[str, ...] | None] = field(
        default_factory=lambda: dict(DEFAULT_GUARDED)
    )

    def guards(self, device: Device) -> bool:
        """True when this device's risky effects wait for a yes by its type and class."""
        if device.type not in self.guarded:
            return False
        classes = self.guarded[device.type]
        if classes is None:
            return True
        if device.device_class:
            return device.device_class in classes
        words = {w for name in device.names for w in name_key(name).split()}
        return any(name_key(c) in words for c in classes)

    def waits(
        self, device: Device, act: Act, state: Mapping[str, Any], asked: str | None = None
    ) -> str | None:
        """What of ``act`` waits for a yes on ``device`` in ``state``: its effect where
        it is guarded (by type and class, or by the device's own ``confirm:``), or an
        action the device's ``confirm:`` names (``asked``: the action before it was
        refined, "turn_on" for a valve's "open"); None when it may run without one."""
        effect = effect_of(device, act, state)
        if effect is not None and (self.guards(device) or effect in device.confirm):
            return effect
        for action in (act.action, asked):
            if action and action in device.confirm and action not in _EFFECT_WORDS:
                return action
        return None


#: Words of a device's ``confirm:`` that name an effect, never an action by name:
#: ``open`` on a cover is any opening, not only the intent ``open``.
_EFFECT_WORDS = frozenset(w for words in EFFECTS.values() for w in words)


def load_policy(data: Any, path: Path) -> ConfirmPolicy:
    """The ``confirm:`` section: ``{cover: [garage, gate, door], valve: all, lock: all,
    alarm_control_panel: all}``; a type left out keeps its default."""
    if data is None:
        return ConfirmPolicy()
    if not isinstance(data, dict):
        raise ConfigError(
            path,
            line_of(path, ("confirm",)),
            "confirm: must map a device type (cover, valve, lock, alarm_control_panel) "
            "to all, none or a list of device classes",
        )
    guarded = dict(DEFAULT_GUARDED)
    for key, raw in data.items():
        if key not in EFFECTS:
            raise ConfigError(
                path,
                line_of(path, ("confirm", key)),
                f"confirm: unknown device type {key!r} (cover, valve, lock, alarm_control_panel)",
            )
        if raw == "all" or raw is True:
            guarded[key] = ALL
        elif raw == "none" or raw is False or raw == []:
            guarded[key] = NONE
        elif isinstance(raw, list) and all(isinstance(c, str) and c.strip() for c in raw):
            guarded[key] = tuple(" ".join(c.lower().split()) for c in raw)
        else:
            raise ConfigError(
                path,
                line_of(path, ("confirm", key)),
                f"confirm: {key} must be all, none or a list of device classes",
            )
    return ConfirmPolicy(guarded)
