"""Audio as the recogniser wants it (16 kHz, 16-bit, mono) and what it says about
itself before any decoding: empty, too short, silent, clipped.

Whatever comes in, a result comes out: a format that cannot be read is a
reason, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mnemolis.voice.stages import PIPELINE_FORMAT, Audio

#: Below this RMS (of full scale 32768) a recording is silence.
SILENCE_RMS = 60.0
#: A sample this close to full scale is clipped.
CLIP_LEVEL = 32700
MIN_SECONDS = 0.1


@dataclass(frozen=True)
class Prepared:
    """Pipeline-format PCM, or the reason there is nothing to decode."""

    pcm: bytes
    seconds: float
    rms: float
    clipped: float  # the share of clipped samples
    problem: str | None = None


def to_pipeline(audio: Audio) -> Prepared:
    """Convert to 16 kHz mono 16-bit and measure it."""
    fmt = audio.format
    if fmt.width not in (1, 2, 4) or fmt.channels < 1 or fmt.rate < 1000:
        return Prepared(b"", 0.0, 0.0, 0.0, f"unreadable audio format {fmt}")
    frame = fmt.width * fmt.channels
    usable = len(audio.pcm) - len(audio.pcm) % frame
    if usable <= 0:
        return Prepared(b"", 0.0, 0.0, 0.0, "no audio")
    raw = audio.pcm[:usable]
    if fmt.width == 1:  # unsigned 8-bit
        samples = (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128.0) * 256.0
    elif fmt.width == 2:
        samples = np.frombuffer(raw, dtype="<i2").astype(np.float64)
    else:
        samples = np.frombuffer(raw, dtype="<i4").astype(np.float64) / 65536.0
    if fmt.channels > 1:
        samples = samples.reshape(-1, fmt.channels).mean(axis=1)
    if fmt.rate != PIPELINE_FORMAT.rate:
        samples = _resample(samples, fmt.rate, PIPELINE_FORMAT.rate)
    samples = np.clip(samples, -32768, 32767)
    seconds = len(samples) / PIPELINE_FORMAT.rate
    rms = float(np.sqrt(np.mean(samples**2))) if len(samples) else 0.0
    clipped = float(np.mean(np.abs(samples) >= CLIP_LEVEL)) if len(samples) else 0.0
    pcm = samples.astype("<i2").tobytes()
    problem = None
    if seconds < MIN_SECONDS:
        problem = "too short to be a request"
    elif rms < SILENCE_RMS:
        problem = "silence"
    return Prepared(pcm, seconds, rms, clipped, problem)


def _resample(samples: np.ndarray, rate: int, to: int) -> np.ndarray:
    """Linear interpolation; below 16 kHz nothing is added above the old Nyquist,
    which the acoustic model tolerates (telephone speech decodes, less well)."""
    n = round(len(samples) * to / rate)
    if n <= 1 or len(samples) <= 1:
        return samples[:n]
    if to < rate:  # average away what the new rate cannot hold
        width = round(rate / to)
        if width > 1:
            kernel = np.ones(width) / width
            samples = np.convolve(samples, kernel, mode="same")
    old = np.linspace(0.0, 1.0, num=len(samples))
    new = np.linspace(0.0, 1.0, num=n)
    out: np.ndarray = np.interp(new, old, samples)
    return out
