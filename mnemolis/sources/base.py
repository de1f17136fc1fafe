"""The one small protocol every source adapter implements.

A source answers a routed part and, where it can, evaluates a condition to
true, false or unknown. It never raises into the executor for an expected
failure (dead broker, missing ZIM, timeout): it returns a PartAnswer with an
error status and a sentence that says what went wrong.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mnemolis.core.announce import Announcer
from mnemolis.core.origin import Origin
from mnemolis.core.plan import Part, Step

if TYPE_CHECKING:
    from mnemolis.config import Config
    from mnemolis.core.devices import DeviceRegistry


class Status(enum.StrEnum):
    """How a part ended; the structured result carries it for machines."""

    OK = "ok"  # a question answered
    DONE = "done"  # an action carried out and confirmed by the device
    NOT_CONFIRMED = "not_confirmed"  # sent, but no state echo within the deadline
    DECLINED = "declined"  # not allowed, or the user said no
    OUT_OF_SCOPE = "out_of_scope"  # understood as something Mnemolis does not do
    ERROR = "error"  # the source failed: dead broker, missing ZIM, timeout
    NEEDS_CONFIRMATION = "needs_confirmation"  # waits for a yes in the next turn


class Truth(enum.StrEnum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"


@dataclass
class Request:
    """Per-call facts a source may need besides the part itself."""

    session: str = "default"
    confirmed: bool = False  # the user already said yes to this action
    timeout_s: float = 5.0
    origin: Origin = field(default_factory=Origin)  # who asked, from where (room, site)

    @property
    def room(self) -> str | None:
        return self.origin.room


@dataclass
class PartAnswer:
    """What one source said about one part."""

    text: str
    status: Status
    source: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "status": str(self.status),
            "source": self.source,
            "data": self.data,
            "provenance": self.provenance,
            "ms": round(self.ms, 1),
        }


@dataclass
class Evaluation:
    """A condition checked against real state: "the back door is unlocked"."""

    truth: Truth
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Source(Protocol):
    """One adapter per source; `execute` only talks to this."""

    name: str

    async def start(self) -> None:
        """Connect, open files, warm caches. Must not raise for a dead backend."""

    async def close(self) -> None:
        """Release connections and threads."""

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        """Answer a question or carry out an action."""

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """Evaluate a condition part now: true, false or unknown."""


@dataclass(frozen=True)
class SensorReading:
    """The last value a sensor reported, in its own unit ("°C", "%")."""

    value: float
    unit: str
    age_s: float = 0.0  # seconds since the sensor reported it


@runtime_checkable
class ReadsSensors(Protocol):
    """A source that can read a sensor by name (the MQTT source); others may ask it,
    so the weather source says "it is 4 °C outside" from the garden thermometer."""

    def read_sensor(self, name: str) -> SensorReading | None:
        """The sensor's last numeric reading; None when unknown or silent."""


@runtime_checkable
class Publishes(Protocol):
    """A source that holds a broker connection (the MQTT source) and publishes one
    message for another: a routine's ``publish:`` step, an external intent. The
    topic always comes from configuration, never from what was said."""

    async def publish(
        self,
        topic: str,
        payload: bytes,
        qos: int = 1,
        retain: bool = False,
        confirmed: bool = False,
    ) -> bool:
        """True once the broker has the message (QoS 1, 2) or it was sent (QoS 0); False,
        sending nothing, for a `guarded` topic without ``confirmed`` (the yes given)."""

    def guarded(self, topic: str) -> str | None:
        """The device a message on ``topic`` commands, when that device's opening,
        unlocking or disarming waits for a yes: the message is not read, so it waits."""


@runtime_checkable
class FillsRegistry(Protocol):
    """A source that fills the device registry as it hears announcements (MQTT
    discovery). It is started after understanding subscribed to the registry, and
    a one-shot request waits (boundedly) for the retained announcements."""

    async def wait_for_devices(self, timeout_s: float | None = None) -> Any:
        """Wait until what the backend retained has arrived; a report of it."""


@runtime_checkable
class WatchesDevices(Protocol):
    """A source that can say when the devices a part names change (the MQTT source),
    so "tell me when the garage door opens" can wait for it instead of asking now."""

    def watch(self, part: Part, changed: Callable[[], None]) -> Callable[[], None]:
        """Call ``changed`` on the event loop after each state update of the devices
        ``part`` names (the caller evaluates the part again); returns the way to stop."""


@runtime_checkable
class WaitsForYes(Protocol):
    """A source that can say, before a part runs, whether carrying it out will wait for a
    spoken yes (the MQTT source: a command that would open, raise, unlock or disarm a
    guarded device; the routines source: a routine with such a step). The timers source
    asks when a plan or a watch is set, so the yes is asked for then, and nothing that
    opens the house ever runs later without one."""

    def waits_for_yes(self, part: Part) -> list[str]:
        """What of ``part`` would wait for a yes in any state its devices may be in when
        it runs (device names, or a routine's steps); empty when nothing would."""


#: How a keeper runs parts that came due: the parts (without their schedule), who
#: asked, and whether the yes was given when they were set; what each source answered.
RunParts = Callable[[Sequence[Part], Origin, bool], Awaitable[list[PartAnswer]]]


@runtime_checkable
class KeepsForLater(Protocol):
    """A source that keeps requests for later (the timers source): an action with a
    schedule ("in 5 minutes turn off the porch light") and a "when" conditional ("when
    the garage door opens, turn on the porch light"). The executor hands such a step
    over as a part of the keeper's own (`keep`), answered like any part (so a yes is
    asked for when it is set), and the assistant says how to run parts when they come
    due (`run_with`)."""

    name: str

    def keep(self, step: Step) -> Part:
        """The part of this source that stands for ``step``; answering it keeps it."""

    def run_with(self, runner: RunParts) -> None:
        """How to run parts when they come due (the assistant's executor)."""


class Level(enum.StrEnum):
    OK = "ok"
    WARNING = "warning"
    BROKEN = "broken"


@dataclass
class Finding:
    """What `mnemolis doctor` found about one source, and what to do about it."""

    check: str
    level: Level
    text: str
    fix: str | None = None


#: At most this many names in one finding.
NAMES_SHOWN = 8


def some_names(names: list[str]) -> str:
    """ "a, b, c and 5 more": a finding names a few, not a hundred."""
    shown = ", ".join(names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


@runtime_checkable
class Diagnosable(Protocol):
    """A source that can say for `mnemolis doctor` whether it works."""

    async def diagnose(self) -> list[Finding]:
        """Talk to the real backend; never raise."""


#: ``SourceContext.extras`` key, True when the process answers one request and ends
#: (`mnemolis ask`): a source that would speak later (timers) says it cannot.
ANSWERS_ONCE = "answers_once"


@dataclass
class SourceContext:
    """What a source factory gets: the configuration and the shared pieces.

    ``peers`` holds the sources built before this one, in the registry's
    order, so one may lean on another through a protocol of this module
    (`ReadsSensors`), never on its internals. ``extras`` carries what an
    entry point hands in (the demo passes its ZIM as ``extras["zim"]``).
    """

    config: Config
    registry: DeviceRegistry
    environ: Mapping[str, str]
    state_dir: Path
    peers: dict[str, Source] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    announcer: Announcer = field(default_factory=Announcer)  # for sources that speak first
