"""WAV files in and out: any PCM or float WAV read (bounded), the pipeline's written.

Python's `wave` reads 16-bit PCM with exact sizes only; recordings come as
8/24/32-bit, float, WAVE_FORMAT_EXTENSIBLE, or streamed with a size of
"until the end" (espeak-ng's ``--stdout``). This reader walks the RIFF chunks
itself, reads at most the longest request allowed (a five-minute file costs
its header, not five minutes of memory), and says in one sentence what is
wrong with a file that is not usable: not a WAV, empty, truncated, too long.
"""

from __future__ import annotations

import io
import struct
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from mnemolis.voice.audio import to_pipeline
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, AudioFormat, BadAudio

PCM, FLOAT, EXTENSIBLE = 1, 3, 0xFFFE
#: A data size written by a program that streamed the file (it did not know the length).
STREAMED = 0x7FFF0000
#: What other files start with, for a helpful sentence.
OTHER_KINDS = (
    (b"ID3", "an MP3 file"),
    (b"\xff\xfb", "an MP3 file"),
    (b"OggS", "an Ogg file"),
    (b"fLaC", "a FLAC file"),
    (b"RIFX", "a big-endian RIFF file"),
    (b"RF64", "an RF64 (very long WAV) file"),
)
CONVERT = "convert it: sox FILE -r 16000 -c 1 -b 16 request.wav"


@dataclass(frozen=True)
class WavAudio:
    """A WAV file's sound in the pipeline's format, and what the file held."""

    audio: Audio
    source: AudioFormat
    is_float: bool
    seconds: float

    def describe(self) -> str:
        """ "8000 Hz, 2 channels, 16-bit" for a note on what was converted."""
        kind = "float" if self.is_float else "bit"
        channels = "1 channel" if self.source.channels == 1 else f"{self.source.channels} channels"
        return f"{self.source.rate} Hz, {channels}, {self.source.width * 8}-{kind}"

    @property
    def converted(self) -> bool:
        return self.source != PIPELINE_FORMAT or self.is_float


def read_wav(path: Path, max_s: float) -> WavAudio:
    """A WAV file as a request: at most ``max_s`` seconds, else `BadAudio` (too_long)."""
    name = str(path)
    try:
        with path.open("rb") as file:
            return _read(file, name, max_s)
    except IsADirectoryError as exc:
        raise BadAudio(f"{name} is a directory, not a WAV file", "missing") from exc
    except OSError as exc:
        raise BadAudio(f"cannot read {name}: {exc.strerror or exc}", "missing") from exc


def parse_wav(data: bytes, name: str = "the sound", max_s: float | None = None) -> WavAudio:
    """WAV bytes (a voice's output) as pipeline sound."""
    return _read(io.BytesIO(data), name, max_s)


def _read(file: BinaryIO, name: str, max_s: float | None) -> WavAudio:
    head = file.read(12)
    if not head:
        raise BadAudio(f"{name} is empty", "empty")
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        kind = next((k for magic, k in OTHER_KINDS if head.startswith(magic)), None)
        what = f"is {kind}, not a WAV file" if kind else "is not a WAV file"
        if head[:4] == b"RIFF" and len(head) < 12:
            raise BadAudio(f"{name} is truncated: it ends inside its header", "truncated")
        raise BadAudio(f"{name} {what}: {CONVERT}", "not_wav")
    fmt: tuple[AudioFormat, bool] | None = None
    while True:
        chunk = file.read(8)
        if len(chunk) < 8:
            raise BadAudio(f"{name} is truncated: it ends before its sound", "truncated")
        tag, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
        if tag == b"fmt ":
            body = file.read(size)
            if len(body) < min(size, 16):
                raise BadAudio(f"{name} is truncated: it ends inside its header", "truncated")
            fmt = _format(body, name)
            file.read(size % 2)
        elif tag == b"data":
            break
        else:  # LIST, fact, cue ...: skipped
            file.seek(size + size % 2, io.SEEK_CUR)
    if fmt is None:
        raise BadAudio(f"{name} has no format chunk before its sound", "truncated")
    source, is_float = fmt
    per_second = source.bytes_per_second
    streamed = size >= STREAMED or size == 0
    limit = None if max_s is None else int(max_s * per_second) + per_second // 10
    wanted = limit if streamed or (limit is not None and size > limit) else size
    pcm = file.read(wanted) if wanted is not None else file.read()
    if not streamed and max_s is not None and size > (limit or 0):
        total = size / per_second
        raise BadAudio(
            f"{name} is {total:.1f} s long; a request is at most {max_s:g} s "
            "(limits.max_request_s in sources/voice.yaml), so it was cut there and "
            "nothing was done",
            "too_long",
        )
    if streamed and limit is not None and len(pcm) >= limit:
        raise BadAudio(
            f"{name} is longer than {max_s:g} s, the longest request "
            "(limits.max_request_s in sources/voice.yaml): it was cut there and nothing was done",
            "too_long",
        )
    if not streamed and len(pcm) < size:
        raise BadAudio(
            f"{name} is truncated: its header promises {size / per_second:.2f} s of sound, "
            f"it holds {len(pcm) / per_second:.2f} s",
            "truncated",
        )
    if len(pcm) < source.width * source.channels:
        raise BadAudio(f"{name} holds no sound (its data is empty)", "empty")
    audio = to_pipeline(pcm, source, is_float)
    return WavAudio(audio, source, is_float, len(pcm) / per_second)


def _format(body: bytes, name: str) -> tuple[AudioFormat, bool]:
    tag, channels, rate, _byte_rate, _align, bits = struct.unpack("<HHIIHH", body[:16])
    if tag == EXTENSIBLE and len(body) >= 26:
        tag = struct.unpack("<H", body[24:26])[0]  # the sub-format GUID's first two bytes
    if tag not in (PCM, FLOAT):
        raise BadAudio(
            f"{name} is encoded as format 0x{tag:04x}, not PCM: {CONVERT}", "unsupported"
        )
    if channels < 1 or rate < 1000 or bits not in (8, 16, 24, 32, 64):
        raise BadAudio(
            f"{name} has an impossible format ({channels} channels, {rate} Hz, {bits}-bit)",
            "unsupported",
        )
    if tag == FLOAT and bits not in (32, 64):
        raise BadAudio(f"{name} holds {bits}-bit float samples: {CONVERT}", "unsupported")
    if tag == PCM and bits == 64:
        raise BadAudio(f"{name} holds 64-bit integer samples: {CONVERT}", "unsupported")
    return AudioFormat(rate, bits // 8, channels), tag == FLOAT


def wav_bytes(audio: Audio) -> bytes:
    """The sound as a WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(audio.format.channels)
        wav.setsampwidth(audio.format.width)
        wav.setframerate(audio.format.rate)
        wav.writeframes(audio.pcm)
    return out.getvalue()


def write_wav(path: Path, audio: Audio) -> None:
    path.write_bytes(wav_bytes(audio))
