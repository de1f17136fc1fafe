"""Real `wyoming-satellite` processes for the tests, and a daemon that drives them.

wyoming-satellite 1.0 pins wyoming 1.4.1 (Mnemolis uses 1.10), so it lives in its own
virtual environment: ``$MNEMOLIS_SATELLITE_VENV``, else ``.venv-satellite`` beside the
repository, made here with pip the first time (under CI a failure to make it fails the
test; elsewhere it skips). Its microphone command plays the test's rendered WAV files at
real time (`satellite/microphone.py`); its speaker command saves each spoken answer as a
numbered .raw file (`satellite/speaker.py`).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from wyoming.audio import AudioChunk
from wyoming.event import Event, async_read_event, async_write_event
from wyoming.info import Attribution, Describe, Info, Satellite
from wyoming.pipeline import PipelineStage, RunPipeline
from wyoming.satellite import RunSatellite

from tests.support_kiwix import free_port

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "satellite"
VERSION = "1.0.0"
START_TIMEOUT_S = 30.0


def satellite_venv() -> Path:
    """The virtual environment with wyoming-satellite, made on first use."""
    venv = Path(os.environ.get("MNEMOLIS_SATELLITE_VENV") or ROOT / ".venv-satellite")
    python = venv / "bin" / "python"
    marker = venv / f"wyoming-satellite-{VERSION}"
    if marker.exists():
        return venv
    try:
        if not python.exists():
            subprocess.run(
                [sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True
            )
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", f"wyoming-satellite=={VERSION}"],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        message = (
            f"wyoming-satellite {VERSION} could not be installed in {venv}: {exc} {detail[-500:]!r}"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    marker.touch()
    return venv


@dataclass
class SatelliteProcess:
    """A running wyoming-satellite: where it listens, what it said, what it played."""

    name: str
    port: int
    spoken: Path  # the speaker's folder: one .raw file (16 kHz, 16-bit, mono) per answer
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    @property
    def go(self) -> Path:
        """The file whose existence starts the microphone's sounds."""
        return self.spoken.parent / f"{self.name}-go"

    def start_talking(self) -> None:
        self.go.touch()

    def answers(self) -> list[bytes]:
        return [p.read_bytes() for p in sorted(self.spoken.glob("*.raw"))]

    def wait_answers(self, count: int, timeout_s: float = 60.0) -> list[bytes]:
        """The first ``count`` spoken answers, once the speaker has saved them."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = self.answers()
            if len(found) >= count:
                return found
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(
            f"the satellite {self.name} played {len(self.answers())} answers, not {count}:\n"
            + "\n".join(self.lines[-40:])
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def satellite(
    folder: Path,
    name: str,
    sounds: Sequence[str | Path],
    area: str | None = None,
    port: int | None = None,
    extra: Sequence[str] = (),
) -> Iterator[SatelliteProcess]:
    """A wyoming-satellite whose microphone plays ``sounds`` (WAV paths and
    ``silence:SECONDS``) and then silence, streaming all the time unless ``extra`` says."""
    venv = satellite_venv()
    python = str(venv / "bin" / "python")
    spoken = folder / f"{name}-spoken"
    spoken.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    go = folder / f"{name}-go"
    mic = " ".join([python, str(HERE / "microphone.py"), f"--after={go}", *map(str, sounds)])
    argv = [
        python, "-m", "wyoming_satellite",
        "--name", name,
        "--uri", f"tcp://127.0.0.1:{port}",
        "--mic-command", mic,
        "--snd-command", f"{python} {HERE / 'speaker.py'} {spoken}",
        "--snd-command-rate", "16000",
        "--no-zeroconf",
        *(["--area", area] if area else []),
        *extra,
    ]  # fmt: skip
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=folder
    )
    found = SatelliteProcess(name, port, spoken, process)
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            found.lines.append(line.rstrip("\n"))
            if "Ready" in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert ready.wait(START_TIMEOUT_S), "wyoming-satellite did not start:\n" + "\n".join(
            found.lines
        )
        yield found
    finally:
        found.stop()


# --------------------------------------------------------------------------- misbehaving


@dataclass
class FakeSatellite:
    """A Wyoming server that says it is a satellite, then does what a real one must not
    (``behave`` gets the connection once the daemon sent ``run-satellite``); what the
    daemon sent it is kept."""

    behave: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
    listens: bool = False  # after behaving, keep reading what the daemon says until it closes
    received: list[Event] = field(default_factory=list)
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    server: asyncio.AbstractServer | None = None

    async def start(self) -> FakeSatellite:
        self.server = await asyncio.start_server(self._connected, "127.0.0.1", 0)
        self.port = int(self.server.sockets[0].getsockname()[1])
        return self

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        try:
            while (event := await async_read_event(reader)) is not None:
                self.received.append(event)
                if Describe.is_type(event.type):
                    about = Satellite(
                        name="fake",
                        attribution=Attribution("", ""),
                        installed=True,
                        description="",
                        version="1",
                    )
                    await async_write_event(Info(satellite=about).event(), writer)
                elif RunSatellite.is_type(event.type):
                    await async_write_event(
                        RunPipeline(
                            start_stage=PipelineStage.ASR, end_stage=PipelineStage.TTS
                        ).event(),
                        writer,
                    )
                    await self.behave(reader, writer)
                    if not self.listens:
                        return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in self.writers:
            writer.close()


def chunk_events(pcm: bytes, rate: int = 16000, width: int = 2, channels: int = 1) -> list[Event]:
    size = 1024 * width * channels
    return [
        AudioChunk(rate=rate, width=width, channels=channels, audio=pcm[i : i + size]).event()
        for i in range(0, len(pcm), size)
    ]
