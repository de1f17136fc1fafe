"""Sound in any PCM format made into the pipeline's (16 kHz, 16-bit, mono), and measured.

Conversion happens once, where sound comes in (a WAV file of any rate and
channel count, a microphone, a satellite's stream): channels are averaged,
samples scaled to 16 bits and the rate converted with soxr (a maintained
libsoxr binding, anti-aliased). Measures (level, clipping) tell silence and
clipped recordings apart before a recogniser is asked.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, AudioFormat

#: A sample at or beyond this fraction of full scale counts as clipped.
CLIP_LEVEL = 0.99
#: The level of digital silence, in dBFS.
SILENT_DBFS = -120.0

Samples = npt.NDArray[np.float32]


def samples_of(pcm: bytes, fmt: AudioFormat, is_float: bool = False) -> Samples:
    """Interleaved PCM as floats in -1..1, one row a frame, one column a channel."""
    usable = len(pcm) - len(pcm) % (fmt.width * fmt.channels)
    raw = pcm[:usable]
    if is_float and fmt.width in (4, 8):
        values = np.frombuffer(raw, dtype=f"<f{fmt.width}").astype(np.float32)
    elif fmt.width == 1:  # 8-bit WAV is unsigned
        values = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    elif fmt.width == 2:
        values = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif fmt.width == 3:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        ints = bytes3[:, 0] | (bytes3[:, 1] << 8) | (bytes3[:, 2] << 16)
        ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        values = ints.astype(np.float32) / float(1 << 23)
    elif fmt.width == 4:
        values = np.frombuffer(raw, dtype="<i4").astype(np.float32) / float(1 << 31)
    else:
        raise ValueError(f"{fmt.width * 8}-bit samples are not supported")
    return values.reshape(-1, fmt.channels)


def to_pipeline(pcm: bytes, fmt: AudioFormat, is_float: bool = False) -> Audio:
    """Any PCM as the pipeline's format (mono 16 kHz 16-bit)."""
    if fmt == PIPELINE_FORMAT and not is_float:
        return Audio(pcm[: len(pcm) - len(pcm) % 2])
    mono = samples_of(pcm, fmt, is_float).mean(axis=1)
    if fmt.rate != PIPELINE_FORMAT.rate and len(mono):
        import soxr

        mono = soxr.resample(mono, fmt.rate, PIPELINE_FORMAT.rate, quality="HQ")
    return Audio(_int16(mono))


def _int16(values: Samples) -> bytes:
    return bytes((np.clip(values, -1.0, 1.0 - 1 / 32768) * 32768).astype("<i2").tobytes())


class Converter:
    """Stream conversion: chunks of one format in, pipeline chunks out. A resampler keeps
    its state across chunks, so a microphone or a satellite's stream converts seamlessly."""

    def __init__(self, fmt: AudioFormat, is_float: bool = False) -> None:
        self.format = fmt
        self.is_float = is_float
        self._left = b""
        self._stream = None
        if fmt.rate != PIPELINE_FORMAT.rate:
            import soxr

            self._stream = soxr.ResampleStream(
                fmt.rate, PIPELINE_FORMAT.rate, 1, dtype="float32", quality="HQ"
            )

    def convert(self, pcm: bytes, last: bool = False) -> Audio:
        if self.format == PIPELINE_FORMAT and not self.is_float:
            data = self._left + pcm
            cut = len(data) - len(data) % 2
            self._left = data[cut:]
            return Audio(data[:cut])
        frame = self.format.width * self.format.channels
        data = self._left + pcm
        cut = len(data) - len(data) % frame
        self._left = data[cut:]
        mono = samples_of(data[:cut], self.format, self.is_float).mean(axis=1)
        if self._stream is not None:
            mono = self._stream.resample_chunk(mono.astype(np.float32), last=last)
        return Audio(_int16(mono))


def chunks(audio: Audio, ms: int = 10) -> Iterator[Audio]:
    """The sound in pieces of ``ms`` milliseconds (the last may be shorter)."""
    size = audio.format.bytes_per_second * ms // 1000
    size -= size % (audio.format.width * audio.format.channels)
    for start in range(0, len(audio.pcm), size):
        yield Audio(audio.pcm[start : start + size], audio.format)


@dataclass(frozen=True)
class Level:
    """How loud a piece of sound is, and how much of it is clipped."""

    rms_dbfs: float
    peak: float  # 0..1 of full scale
    clipped: float  # the fraction of samples at full scale


def level(audio: Audio) -> Level:
    values = samples_of(audio.pcm, audio.format)
    if values.size == 0:
        return Level(SILENT_DBFS, 0.0, 0.0)
    peak = float(np.max(np.abs(values)))
    rms = float(np.sqrt(np.mean(np.square(values, dtype=np.float64))))
    dbfs = 20 * math.log10(rms) if rms > 0 else SILENT_DBFS
    clipped = float(np.mean(np.abs(values) >= CLIP_LEVEL))
    return Level(max(dbfs, SILENT_DBFS), peak, clipped)


def scaled(audio: Audio, gain: float) -> Audio:
    """Louder or softer (for earcons and a voice's volume), clipped at full scale."""
    values = samples_of(audio.pcm, audio.format).reshape(-1) * gain
    return Audio(_int16(values), audio.format)
