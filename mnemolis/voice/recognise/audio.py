"""Audio as the recogniser wants it (16 kHz, 16-bit, mono) and what it says about
itself before any decoding: empty, too short, silent, clipped.

Whatever comes in, a result comes out: a format that cannot be read is a
reason, never an exception.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from mnemolis.voice.audio import Converter
from mnemolis.voice.audio import to_pipeline as convert
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio, AudioFormat

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
    return Prepared(dither(samples), seconds, rms, clipped, problem_of(seconds, rms))


#: Dither is seeded per block of this many samples (0.1 s) from the start of the request,
#: so a request given whole and the same request streamed in pieces of any size get the
#: very same noise (a stream dithers each block once it is complete).
DITHER_BLOCK = 1600


def dither(samples: np.ndarray) -> bytes:
    """The samples with a least significant bit of noise (triangular, each block of
    `DITHER_BLOCK` seeded by its own sound, so the same sound is always heard the same way,
    whole or streamed).

    Digital silence (synthesised speech, padding, a muted stream) has no energy at all:
    its frames' log energy falls off the scale, the cepstral mean of the whole request
    moves with it, and pocketsphinx heard espeak-ng's "turn off the kitchen light" as
    "unlock the hue" from soxr's output and right from sox's, which dithers (the two
    differed by 3 in 32768 at most). Real microphones always have a noise floor."""
    return b"".join(
        _dither_block(samples[start : start + DITHER_BLOCK])
        for start in range(0, len(samples), DITHER_BLOCK)
    )


def _dither_block(samples: np.ndarray) -> bytes:
    rng = np.random.default_rng(zlib.crc32(samples.astype("<i2").tobytes()))
    noise = rng.integers(-1, 2, len(samples)) + rng.integers(-1, 2, len(samples))
    out = np.clip(samples + noise * 0.5, -32768, 32767)
    return bytes(np.round(out).astype("<i2").tobytes())


def problem_of(seconds: float, rms: float) -> str | None:
    """Why a sound is not worth decoding (too short, silent), or None."""
    if seconds < MIN_SECONDS:
        return "too short to be a request"
    if rms < SILENCE_RMS:
        return "silence"
    return None


class StreamedAudio:
    """A request arriving in pieces, prepared as `to_pipeline` prepares a whole one:
    converted (a resampler keeping its state across pieces), dithered block by block
    (the same noise as whole) and measured as it goes, the verdict (too short, silence)
    given at the end. Not thread-safe: one stream's worker uses it."""

    def __init__(self) -> None:
        self._converter: Converter | None = None
        self._format: AudioFormat | None = None
        self._left = np.zeros(0, dtype=np.float64)
        self.samples = 0
        self._squares = 0.0
        self.problem: str | None = None  # an unreadable format: the rest is ignored

    def add(self, audio: Audio) -> bytes:
        """The dithered PCM ready to decode (whole blocks; the rest waits for more)."""
        if self.problem is not None:
            return b""
        fmt = audio.format
        if self._format is None:
            if fmt.width not in (1, 2, 3, 4) or fmt.channels < 1 or fmt.rate < 1000:
                self.problem = f"unreadable audio format {fmt}"
                return b""
            self._format = fmt
            self._converter = Converter(fmt)
        elif fmt != self._format:
            self.problem = f"the stream changed its format from {self._format} to {fmt}"
            return b""
        assert self._converter is not None
        return self._take(self._converter.convert(audio.pcm).pcm, last=False)

    def end(self) -> bytes:
        """What is left at the end of the request, dithered."""
        if self.problem is not None or self._converter is None:
            return b""
        return self._take(self._converter.convert(b"", last=True).pcm, last=True)

    def verdict(self) -> str | None:
        """`to_pipeline`'s problem for the whole request (once it has ended)."""
        if self.problem is not None:
            return self.problem
        if self.samples == 0:
            return "no audio"
        seconds = self.samples / PIPELINE_FORMAT.rate
        return problem_of(seconds, float(np.sqrt(self._squares / self.samples)))

    def _take(self, pcm: bytes, last: bool) -> bytes:
        new = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
        self.samples += len(new)
        self._squares += float(np.sum(new**2))
        data = np.concatenate([self._left, new])
        usable = len(data) if last else len(data) - len(data) % DITHER_BLOCK
        self._left = data[usable:]
        return dither(data[:usable]) if usable else b""
