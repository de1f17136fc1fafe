"""Audio as the recogniser wants it (16 kHz, 16-bit, mono) and what it says about
itself before any decoding: empty, too short, silent, clipped.

Whatever comes in, a result comes out: a format that cannot be read is a
reason, never an exception.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from mnemolis.voice.audio import to_pipeline as convert
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
    """Convert to 16 kHz mono 16-bit (`voice.audio`: soxr, anti-aliased), dither it, and
    measure it."""
    fmt = audio.format
    if fmt.width not in (1, 2, 3, 4) or fmt.channels < 1 or fmt.rate < 1000:
        return Prepared(b"", 0.0, 0.0, 0.0, f"unreadable audio format {fmt}")
    usable = len(audio.pcm) - len(audio.pcm) % (fmt.width * fmt.channels)
    if usable <= 0:
        return Prepared(b"", 0.0, 0.0, 0.0, "no audio")
    pcm = convert(audio.pcm[:usable], fmt).pcm
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    seconds = len(samples) / PIPELINE_FORMAT.rate
    rms = float(np.sqrt(np.mean(samples**2))) if len(samples) else 0.0
    clipped = float(np.mean(np.abs(samples) >= CLIP_LEVEL)) if len(samples) else 0.0
    problem = None
    if seconds < MIN_SECONDS:
        problem = "too short to be a request"
    elif rms < SILENCE_RMS:
        problem = "silence"
    return Prepared(dither(samples), seconds, rms, clipped, problem)


def dither(samples: np.ndarray) -> bytes:
    """The samples with a least significant bit of noise (triangular, seeded by the sound
    itself, so the same sound is always heard the same way).

    Digital silence (synthesised speech, padding, a muted stream) has no energy at all:
    its frames' log energy falls off the scale, the cepstral mean of the whole request
    moves with it, and pocketsphinx heard espeak-ng's "turn off the kitchen light" as
    "unlock the hue" from soxr's output and right from sox's, which dithers (the two
    differed by 3 in 32768 at most). Real microphones always have a noise floor."""
    rng = np.random.default_rng(zlib.crc32(samples.astype("<i2").tobytes()))
    noise = rng.integers(-1, 2, len(samples)) + rng.integers(-1, 2, len(samples))
    out = np.clip(samples + noise * 0.5, -32768, 32767)
    return bytes(np.round(out).astype("<i2").tobytes())
