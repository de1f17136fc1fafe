"""Where sound goes: a speaker (sounddevice), a program (``aplay``), a WAV file, nowhere."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from mnemolis.voice.inputs import find_device, sounddevice_module
from mnemolis.voice.stages import Audio, StageError
from mnemolis.voice.wav import wav_bytes, write_wav


class WavFileSink:
    """Writes what is played to a WAV file (the last sound played is what it holds)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def play(self, audio: Audio) -> None:
        try:
            await asyncio.to_thread(write_wav, self.path, audio)
        except OSError as exc:
            raise StageError(f"cannot write {self.path}: {exc.strerror or exc}") from exc


class NullSink:
    """Plays nothing (``--wav`` without ``--say-to``)."""

    async def play(self, audio: Audio) -> None:
        return None


class CommandSink:
    """A WAV on a program's standard input (``aplay -q``)."""

    def __init__(self, command: tuple[str, ...]) -> None:
        self.command = command

    async def play(self, audio: Audio) -> None:
        program = shutil.which(self.command[0])
        if program is None:
            raise StageError(f"output.command names {self.command[0]}, which is not installed")
        process = await asyncio.create_subprocess_exec(
            program,
            *self.command[1:],
            stdin=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _out, err = await process.communicate(wav_bytes(audio))
        if process.returncode != 0:
            raise StageError(f"{self.command[0]} failed: {err.decode('utf-8', 'replace').strip()}")


class SoundDeviceSink:
    """A speaker through PortAudio (sounddevice), by name."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def play(self, audio: Audio) -> None:
        def blocking() -> None:
            sd: Any = sounddevice_module()
            device = find_device(self.name, "output")
            import numpy as np

            samples = np.frombuffer(audio.pcm, dtype="<i2")
            sd.play(samples, audio.format.rate, device=device, blocking=True)

        try:
            await asyncio.to_thread(blocking)
        except StageError:
            raise
        except Exception as exc:
            raise StageError(f"the speaker {self.name} failed: {exc}") from exc
