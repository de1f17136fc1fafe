"""Wrong-device parts: a part that acts on, or asks about, a device the row does not label.

Entity accuracy counts a "which one?" and a turned-off wrong lamp alike; only the second
does harm. So `mnemolis eval` counts it apart.

Definition. A row is judged when one of its expected parts is labelled with
``entities``. Each part of its plan names devices, ``got`` (its ``device`` slot as ids).
The part's *reference* is the labelled set of the expected part it is aligned with (the
part a one-part row is scored by; the part at its place when the split is exact); any
other part of the row (the split differed, or a part nobody asked for) is held to the
union of every labelled set of the row. A part is wrong-device when ``got`` holds an
id outside its reference: a *wrong-device action* when its intent changes a device (an
action other than a reading: `QuestionWords.read_actions`, else ``state``) and one of
those devices can do that action, a *wrong-device question* when it only reads. An
empty ``got`` never is (a "which one?" or a decline acts on nothing), nor is an action
no device outside can do ("lock the back door" naming a door contact): the source
refuses it ("I can't lock the back door: it is a sensor") before anything is sent.

``--max-wrong-device N`` exits 1 when the actions are more than N.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mnemolis.config import Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.evaluation.compare import IdsOf, RowResult


@dataclass(frozen=True)
class WrongDevice:
    """One part of a plan that named a device outside what its row labels."""

    file: str
    line: int
    fold: int | None
    text: str  # the row's request
    part: str  # the part that went wrong
    intent: str
    outside: tuple[str, ...]  # the ids it named that are not labelled
    acts: bool  # an action (else a question)

    def held_out(self, every: int | None) -> bool:
        """In a held-out fold (every ``every``-th, as ``--holdout`` reports them)."""
        return every is not None and self.fold is not None and self.fold % every == 0


def wrong_devices(
    results: Sequence[RowResult], ids_of: IdsOf, config: Config, registry: DeviceRegistry
) -> list[WrongDevice]:
    """Every wrong-device part of the judged rows, in row order."""
    reads = set(config.questions.read_actions) or {"state"}
    found: list[WrongDevice] = []
    for r in results:
        labelled = [set(p.entities) for p in r.row.parts if p.entities is not None]
        if not labelled:
            continue
        everything = set().union(*labelled)
        aligned = {
            id(c.predicted): set(c.expected.entities)
            for c in r.checks
            if c.predicted is not None and c.expected.entities is not None
        }
        for p in r.predicted:
            spec = config.intent(p.intent)
            if spec is None:
                continue
            outside = set(ids_of(p.slots.get("device"))) - aligned.get(id(p), everything)
            if not outside:
                continue
            acts = spec.action is not None and spec.action not in reads
            if acts and not any(_can(registry, i, spec.action) for i in outside):
                continue  # refused before anything is sent: no device there can do it
            row = r.row
            found.append(
                WrongDevice(
                    row.file,
                    row.line,
                    row.fold,
                    row.text,
                    p.text,
                    spec.name,
                    tuple(sorted(outside)),
                    acts,
                )
            )
    return found


def _can(registry: DeviceRegistry, device_id: str, action: str | None) -> bool:
    device = registry.get(device_id)
    return device is not None and action is not None and device.can(action)


def wrong_device_lines(found: Sequence[WrongDevice], every: int | None) -> list[str]:
    """The counts, then each wrong-device part; with a held-out fold (every ``every``-th),
    those of the other folds only: the held-out ones are counted, never shown."""
    actions = [w for w in found if w.acts]
    questions = [w for w in found if not w.acts]

    def held(ws: list[WrongDevice]) -> str:
        n = sum(w.held_out(every) for w in ws)
        return f" ({n} in the held-out fold)" if n else ""

    lines = [
        f"wrong-device actions: {len(actions)}{held(actions)}; "
        f"wrong-device questions: {len(questions)}{held(questions)}"
    ]
    for w in found:
        if w.held_out(every):
            continue
        verb = "acted on" if w.acts else "asked about"
        lines.append(
            f"  {w.file}:{w.line} {w.text!r}: {w.part!r} -> {w.intent} {verb} "
            f"{', '.join(w.outside)}"
        )
    return lines
