"""Run a real Mosquitto on a free loopback port, for tests, benchmarks and the demo.

The broker gets its own config file in a scratch directory (``listener
<port> 127.0.0.1``, ``allow_anonymous true``), so it never touches a system
broker on 1883. `restart` reuses the port, which is how tests kill the broker
in the middle of a session and bring it back.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from mnemolis.demo.processes import terminate, wait_listening

DEFAULT_BINARY = "/usr/sbin/mosquitto"


def find_mosquitto() -> str | None:
    """The mosquitto binary: /usr/sbin/mosquitto or the one on PATH."""
    if Path(DEFAULT_BINARY).is_file():
        return DEFAULT_BINARY
    return shutil.which("mosquitto")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Mosquitto:
    """One broker process; use as a context manager or call start/stop."""

    def __init__(
        self,
        binary: str | None = None,
        port: int | None = None,
        tcp_nodelay: bool = True,
        extra_config: str = "",
    ) -> None:
        found = binary or find_mosquitto()
        if found is None:
            raise FileNotFoundError("mosquitto is not installed (apt-get install mosquitto)")
        self.binary = found
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="mnemolis-mosquitto-"))
        self.config_path = self.workdir / "mosquitto.conf"
        self.log_path = self.workdir / "mosquitto.log"
        self.tcp_nodelay = tcp_nodelay  # Mosquitto's default (false) adds ~40 ms per echo
        self.extra_config = extra_config  # replaces allow_anonymous when it sets it
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def _write_config(self) -> None:
        anonymous = "" if "allow_anonymous" in self.extra_config else "allow_anonymous true\n"
        self.config_path.write_text(
            f"listener {self.port} {self.host}\n"
            f"{anonymous}"
            f"{self.extra_config}\n"
            "persistence false\n"
            # stay the user we are: run as root, mosquitto would switch to "mosquitto"
            # and could no longer read its own scratch directory
            f"user {getpass.getuser()}\n"
            f"set_tcp_nodelay {'true' if self.tcp_nodelay else 'false'}\n"
            "max_inflight_messages 100\n"
            "max_queued_messages 100000\n",
            encoding="utf-8",
        )

    def start(self, timeout_s: float = 5.0) -> Mosquitto:
        if self.process is not None and self.process.poll() is None:
            return self
        self._write_config()
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.config_path)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        address = (self.host, self.port)
        try:
            wait_listening(self.process, "mosquitto", address, timeout_s, self.log, pause_s=0.01)
        except TimeoutError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        process, self.process = self.process, None
        terminate(process)

    def kill(self) -> None:
        """Die without a goodbye, as a crashed broker does."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=5)

    def restart(self) -> Mosquitto:
        self.stop()
        return self.start()

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    def cleanup(self) -> None:
        """Throw the broker away: nothing is persisted, so no need for a clean exit."""
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.cleanup()
