"""What one template render may cost, and the running count of what it has spent.

A template comes from the network, so every render runs inside a `Budget`
(per thread): steps counted by the environment and the clock looked at on
every one of them, and sizes checked *before* anything big is built, since a
single step in C (a big-integer product, a long string) cannot be stopped
once it started. The regular-expression filters take their time bound from
here too (`seconds_left`). A bound that breaks raises `BoundBroken`, which
says which bound: a template that breaks one is disabled for its device
(`template_faults`), whereas an ordinary failure leaves one message unread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal


class TemplateError(ValueError):
    """A template that cannot be compiled or rendered; the message says why."""


#: Which bound broke: steps and sizes give the same answer on every run, time may not.
Kind = Literal["steps", "size", "integer", "time"]


class BoundBroken(TemplateError):
    """A render that went past one of its `Bounds`."""

    def __init__(self, kind: Kind, message: str) -> None:
        super().__init__(message)
        self.kind: Kind = kind

    @property
    def certain(self) -> bool:
        """True when the same message would break it again (not a slow moment of the machine)."""
        return self.kind != "time"


@dataclass(frozen=True)
class Bounds:
    """What one render may cost."""

    steps: int = 100_000
    seconds: float = 0.05
    output_chars: int = 65_536
    int_bits: int = 4096  # the largest integer a template may make (about 1,233 digits)
    #: One regular-expression call, within `seconds`. The regex package reads its clock
    #: coarsely: a 5 ms time-out was measured to stop within 15-20 ms.
    regex_seconds: float = 0.005


DEFAULT_BOUNDS = Bounds()


@dataclass
class Budget:
    bounds: Bounds
    deadline: float
    steps: int = 0


_local = threading.local()


def current() -> Budget | None:
    budget: Budget | None = getattr(_local, "budget", None)
    return budget


@contextmanager
def running(bounds: Bounds) -> Iterator[Budget]:
    """A fresh budget for one render on this thread (an outer one comes back after)."""
    outer = current()
    budget = Budget(bounds, time.perf_counter() + bounds.seconds)
    _local.budget = budget
    try:
        yield budget
    finally:
        _local.budget = outer


def bounds() -> Bounds:
    budget = current()
    return budget.bounds if budget is not None else DEFAULT_BOUNDS


def step() -> None:
    """One unit of work; the clock is read every time (a read costs ~60 ns, a step ~1 µs)."""
    budget = current()
    if budget is None:
        return
    budget.steps += 1
    if budget.steps > budget.bounds.steps:
        raise BoundBroken("steps", f"the template took more than {budget.bounds.steps} steps")
    if time.perf_counter() > budget.deadline:
        raise BoundBroken(
            "time", f"the template took longer than {budget.bounds.seconds * 1000:g} ms"
        )


def seconds_left() -> float:
    """What a regular expression may take now: its own bound, or less if the render is late."""
    budget = current()
    if budget is None:
        return DEFAULT_BOUNDS.regex_seconds
    left = budget.deadline - time.perf_counter()
    return max(0.0, min(budget.bounds.regex_seconds, left))


def check_size(size: int) -> None:
    limit = bounds().output_chars
    if size > limit:
        raise BoundBroken("size", f"the template would build more than {limit} characters")


def check_bits(bits: int) -> None:
    limit = bounds().int_bits
    if bits > limit:
        raise BoundBroken("integer", f"the template would make an integer over {limit} bits")


def size_of(value: Any) -> int:
    if isinstance(value, str | bytes | bytearray | list | tuple | dict | set | frozenset):
        return len(value)
    return 0


def check_result(value: Any) -> None:
    """What an operation returned: a text or collection within the size, an integer
    within the bits (bool is an int too, and small)."""
    if isinstance(value, int):
        check_bits(value.bit_length())
    else:
        check_size(size_of(value))
