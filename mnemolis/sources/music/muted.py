"""The volume each player had before "mute", so that "unmute" brings it back.

MPD has no mute of its own (Home Assistant's MPD integration emulates it the
same way: volume 0, and the old level remembered). The level is kept in a
small JSON file in the state directory, so a one-shot ``mnemolis ask
unmute`` finds what another process muted. Written atomically (a temporary
file renamed over the old one).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = "music-muted.json"


class MuteMemory:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._lock = threading.Lock()

    def _read(self) -> dict[str, int]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("cannot read %s (%s); muted volumes are forgotten", self.path, exc)
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): int(v) for k, v in data.items() if isinstance(v, int) and 0 < v <= 100}

    def _write(self, data: dict[str, int]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".music-muted.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise

    def recall(self, player: str) -> int | None:
        with self._lock:
            return self._read().get(player)

    def remember(self, player: str, volume: int) -> None:
        with self._lock:
            data = self._read()
            data[player] = volume
            self._write(data)

    def forget(self, player: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(player, None) is not None:
                self._write(data)
