"""Ending a helper program the demo or a test started (mpd, Mosquitto)."""

from __future__ import annotations

import subprocess


def terminate(process: subprocess.Popen[bytes] | None, grace_s: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``; nothing if it is gone already."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=grace_s)
