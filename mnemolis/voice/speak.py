"""The voice: espeak-ng, run as a program that writes a WAV to its standard output.

espeak-ng is a Debian package (``apt-get install espeak-ng``), small, offline
and on every Raspberry Pi OS; its voice, speed, pitch and volume come from
`sources/voice.yaml`. The text goes in on standard input (never as an
argument, so no sentence can be read as an option). One process a sentence:
any number of pipelines may speak at once.
"""

from __future__ import annotations

import asyncio
import shutil

from mnemolis.voice.settings import VoiceEngine
from mnemolis.voice.stages import Audio, BadAudio, StageError
from mnemolis.voice.wav import parse_wav

PROGRAM = "espeak-ng"
MISSING = "espeak-ng is not installed, so answers cannot be spoken: apt-get install espeak-ng"


def espeak_path() -> str | None:
    return shutil.which(PROGRAM)


class EspeakVoice:
    """`stages.Voice` with espeak-ng."""

    def __init__(self, settings: VoiceEngine) -> None:
        self.settings = settings
        self.name = f"espeak-ng:{settings.voice}"
        self.program = espeak_path()

    def command(self) -> list[str]:
        if self.program is None:
            raise StageError(MISSING)
        s = self.settings
        return [
            self.program,
            "--stdout",
            "--stdin",
            "-v", s.voice,
            "-s", str(s.speed),
            "-p", str(s.pitch),
            "-a", str(s.volume),
        ]  # fmt: skip

    async def synthesize(self, text: str) -> Audio:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command(),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise StageError(f"espeak-ng could not start: {exc}") from exc
        out, err = await process.communicate(" ".join(text.split()).encode("utf-8"))
        if process.returncode != 0:
            why = err.decode("utf-8", "replace").strip() or f"exit status {process.returncode}"
            raise StageError(f"espeak-ng failed: {why}")
        try:
            return parse_wav(out, "espeak-ng's output").audio
        except BadAudio as exc:
            raise StageError(f"espeak-ng answered no sound: {exc}") from exc
