"""Templates disabled for their device after breaking a bound.

A template that breaks a step, size or integer bound would break it again on
the same message, and a retained message comes back after every reconnect:
so it is disabled for that device at once, with the reason, and the device's
other parts go on working. A template that only ran out of time may have met
a slow moment of the machine, so it is disabled at its `TIME_STRIKES`-th
time-out. The fault belongs to the template's text: a device rediscovered
with another template starts afresh. `mnemolis devices` lists the faults as
refused parts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from mnemolis.sources.mqtt.template_budget import BoundBroken

TIME_STRIKES = 3
KEPT = 4096  # faults remembered at most (the oldest forgotten first)


@dataclass
class _Fault:
    source: str
    strikes: int
    reason: str
    disabled: bool


class Faults:
    """(device id, template key) -> what its template did; thread-safe, bounded."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._faults: OrderedDict[tuple[str, str], _Fault] = OrderedDict()
        self._lock = threading.Lock()

    def disabled(self, device_id: str, key: str, source: str) -> str | None:
        """The reason this template is disabled for this device, or None."""
        with self._lock:
            fault = self._faults.get((device_id, key))
        if fault is None or not fault.disabled or fault.source != source:
            return None
        return fault.reason

    def record(self, device_id: str, key: str, source: str, error: BoundBroken) -> bool:
        """Count one broken bound; True when the template is now disabled."""
        with self._lock:
            fault = self._faults.get((device_id, key))
            if fault is None or fault.source != source:
                fault = _Fault(source, 0, "", False)
            fault.strikes += 1
            fault.reason = f"{key} disabled: {error}"
            fault.disabled = error.certain or fault.strikes >= TIME_STRIKES
            self._faults[(device_id, key)] = fault
            self._faults.move_to_end((device_id, key))
            while len(self._faults) > self.kept:
                self._faults.popitem(last=False)
            return fault.disabled

    def of(self, device_id: str) -> dict[str, str]:
        """Template key -> reason, for each template disabled for this device."""
        with self._lock:
            return {
                key: fault.reason
                for (owner, key), fault in self._faults.items()
                if owner == device_id and fault.disabled
            }

    def forget(self, device_ids: set[str]) -> None:
        with self._lock:
            for owner_key in [k for k in self._faults if k[0] in device_ids]:
                del self._faults[owner_key]
