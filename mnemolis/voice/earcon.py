"""Earcons: short generated tones when listening starts and stops (no sound files).

Each tone has a raised-cosine edge so it does not click; the tones of one
earcon follow each other. Frequencies, length and volume are in
`sources/voice.yaml`.
"""

from __future__ import annotations

import numpy as np

from mnemolis.voice.settings import Earcon
from mnemolis.voice.stages import PIPELINE_FORMAT, Audio

EDGE_S = 0.008


def tones(earcon: Earcon, rate: int = PIPELINE_FORMAT.rate) -> Audio:
    count = int(rate * earcon.tone_ms / 1000)
    t = np.arange(count) / rate
    edge = min(int(rate * EDGE_S), count // 2)
    envelope = np.ones(count)
    if edge:
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, edge))
        envelope[:edge] = ramp
        envelope[-edge:] = ramp[::-1]
    pieces = [np.sin(2 * np.pi * hz * t) * envelope for hz in earcon.tones]
    wave = np.concatenate(pieces) * earcon.volume
    return Audio((wave * 32767).astype("<i2").tobytes())
