"""What `mnemolis explain` prints: each stage's findings and the time it took."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Stage:
    name: str
    ms: float = 0.0
    lines: list[str] = field(default_factory=list)


@dataclass
class Trace:
    """Collected only when asked for, so the hot path pays nothing."""

    stages: list[Stage] = field(default_factory=list)
    _current: Stage | None = None
    _started: float = 0.0

    def begin(self, name: str) -> None:
        self.end()
        self._current = Stage(name)
        self.stages.append(self._current)
        self._started = time.perf_counter()

    def end(self) -> None:
        if self._current is not None:
            self._current.ms += (time.perf_counter() - self._started) * 1000
            self._current = None

    def note(self, line: str) -> None:
        if self._current is None:
            self.begin("notes")
        assert self._current is not None
        self._current.lines.append(line)

    @property
    def total_ms(self) -> float:
        return sum(s.ms for s in self.stages)
