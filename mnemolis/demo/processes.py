"""Waiting for a helper program the demo or a test started (mpd, Mosquitto) to listen,
and ending it."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable


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


def wait_listening(
    process: subprocess.Popen[bytes],
    name: str,
    address: tuple[str, int],
    timeout_s: float,
    log: Callable[[], str],
    pause_s: float,
) -> None:
    """Back once ``process`` (``name``) accepts a connection at ``address``, tried every
    ``pause_s``; RuntimeError with its ``log`` when it exits first, TimeoutError when
    ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited at start:\n{log()}")
        try:
            with socket.create_connection(address, timeout=0.2):
                return
        except OSError:
            time.sleep(pause_s)
    raise TimeoutError(f"{name} did not listen on {address[1]} within {timeout_s} s")
