"""Run a real `mpd` on a free loopback port, for the demo's music and for the tests.

MPD gets its own config, database and log in a scratch directory, a
``null`` audio output with a software mixer (playing, pausing and the volume
all work without a sound card, and nothing is heard), no zeroconf, and no
automatic rescans: `start` indexes the library once and returns when MPD
has finished.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import mpd

from mnemolis.demo.mosquitto import free_port
from mnemolis.demo.processes import terminate, wait_listening

#: How to get mpd where it is missing (Debian, Raspberry Pi OS, Ubuntu).
INSTALL = "sudo apt-get install mpd"


def find_mpd() -> str | None:
    """The mpd binary on PATH (or /usr/bin/mpd), or None."""
    return shutil.which("mpd") or shutil.which("mpd", path="/usr/bin:/usr/local/bin")


class Mpd:
    """One mpd process on a free loopback port, with its own config and database."""

    def __init__(self, binary: str, music: Path, playlists: Path, password: str | None = None):
        self.binary = binary
        self.music = music
        self.playlists = playlists
        self.password = password
        self.host = "127.0.0.1"
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="mnemolis-mpd-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def _config(self) -> str:
        password = f'password "{self.password}@read,add,control,admin"\n' if self.password else ""
        return (
            f'music_directory "{self.music}"\n'
            f'playlist_directory "{self.playlists}"\n'
            f'db_file "{self.workdir / "database"}"\n'
            f'log_file "{self.workdir / "log"}"\n'
            f'bind_to_address "{self.host}"\n'
            f'port "{self.port}"\n'
            'zeroconf_enabled "no"\n'
            'auto_update "no"\n'
            f"{password}"
            'decoder {\n  plugin "wildmidi"\n  enabled "no"\n}\n'
            'audio_output {\n  type "null"\n  name "null"\n  mixer_type "software"\n}\n'
        )

    def start(self, timeout_s: float = 20.0) -> Mpd:
        """Start, wait until it listens, index the library; stops it again if that fails."""
        config = self.workdir / "mpd.conf"
        config.write_text(self._config(), encoding="utf-8")
        self.process = subprocess.Popen(
            [self.binary, "--no-daemon", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            self._wait_listening(timeout_s)
            self.update(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_listening(self, timeout_s: float) -> None:
        assert self.process is not None
        address = (self.host, self.port)
        wait_listening(self.process, "mpd", address, timeout_s, self.log, pause_s=0.02)

    def client(self) -> mpd.MPDClient:
        client = mpd.MPDClient()
        client.timeout = 10
        client.connect(self.host, self.port)
        if self.password:
            client.password(self.password)
        return client

    def update(self, timeout_s: float = 60.0) -> None:
        """Index the music directory and wait until MPD has finished."""
        client = self.client()
        try:
            client.update()
            deadline = time.monotonic() + timeout_s
            while "updating_db" in client.status():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"mpd did not finish indexing within {timeout_s} s")
                time.sleep(0.02)
        finally:
            client.disconnect()

    def stop(self) -> None:
        process, self.process = self.process, None
        terminate(process)

    def log(self) -> str:
        try:
            return (self.workdir / "log").read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    def cleanup(self) -> None:
        """Stop it and throw its scratch directory away."""
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)
