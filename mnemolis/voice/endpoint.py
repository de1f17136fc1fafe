"""End of speech: where a request starts, and where it has ended.

Speech starts when ``speech_s`` of 10 ms windows in a row are speech: by
pymicro-vad's small neural detector (``engine: vad``: its probability over
``threshold``; noise and hum stay under it), or by loudness alone (``engine:
energy``: louder than ``floor_dbfs``). It ends after ``silence_s`` of windows
that are not speech, or (both engines) softer than ``floor_dbfs``: the neural
detector starts late and holds on for half a second after a voice stops, and
in a quiet room loudness ends the request sooner. Everything since listening
started is kept, so a late start loses nothing. One detector per stream.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mnemolis.voice.settings import SpeechSettings
from mnemolis.voice.stages import Audio, StageError

WINDOW_BYTES = 320  # 10 ms of 16 kHz 16-bit mono
WINDOW_S = 0.01


def _dbfs(window: bytes) -> float:
    values = np.frombuffer(window, dtype="<i2").astype(np.float64)
    rms = math.sqrt(float(np.mean(values * values))) / 32768.0 if values.size else 0.0
    return 20 * math.log10(rms) if rms > 0 else -120.0


def _vad() -> Any:
    try:
        from pymicro_vad import MicroVad
    except ImportError as exc:
        raise StageError(
            f"end of speech needs pymicro-vad: pip install 'mnemolis[voice]' ({exc})"
        ) from exc
    return MicroVad()


class SpeechEndpoint:
    """`stages.EndOfSpeech`: speech started, speech ended."""

    def __init__(self, settings: SpeechSettings) -> None:
        self.settings = settings
        self.vad = _vad() if settings.engine == "vad" else None
        self.reset()

    def reset(self) -> None:
        """A new request (the neural detector keeps its context: it warms up once)."""
        self._left = b""
        self._speech_run = 0.0
        self._silence_run = 0.0
        self._started = False
        self._ended = False

    @property
    def started(self) -> bool:
        return self._started

    def window(self, window: bytes) -> tuple[bool, bool]:
        """Is this window speech (to start a request), and is it silence (to end one)?"""
        loud = _dbfs(window) >= self.settings.floor_dbfs
        if self.vad is None:
            return loud, not loud
        speech = self.vad.process_10ms(window) >= self.settings.threshold  # -1 warming up
        return speech, not (speech and loud)

    def process(self, chunk: Audio) -> bool:
        data = self._left + chunk.pcm
        usable = len(data) - len(data) % WINDOW_BYTES
        self._left = data[usable:]
        for start in range(0, usable, WINDOW_BYTES):
            speech, silent = self.window(data[start : start + WINDOW_BYTES])
            if self._ended:
                continue  # the detector still hears the rest: its context stays whole
            self._speech_run = self._speech_run + WINDOW_S if speech else 0.0
            if not self._started:
                if self._speech_run >= self.settings.speech_s - 1e-9:
                    self._started = True
                    self._silence_run = 0.0
                continue
            self._silence_run = self._silence_run + WINDOW_S if silent else 0.0
            if self._silence_run >= self.settings.silence_s - 1e-9:
                self._ended = True
        return self._ended
