"""How much of the speech the words heard account for.

A grammar hears every sound as one of its sentences. Speech that is none of them
(the television, a question for someone else, a word salad) is still heard as the
nearest request, often a short one ("the kettle on"), and the rest of the sound is
left to silence and noise between and around its words. A request said and heard
right has words over nearly all of its loud frames. The share of the loud frames that
fall inside the words heard tells the two apart where the words' posteriors do not
(`bench/recogniser.py --sections reject`; docs/voice-recogniser.md, "Coverage"):
a request heard whole covers 0.76 or more of its loud frames in every recording and
rendering measured, speech heard as a request it was not covers a median 0.6, and the
requests misheard as a shorter one ("turn off the printer and the desk lamp" heard
as "turn off the printer") fall below it too.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

#: pocketsphinx's frame: 10 ms of 16 kHz audio.
FRAME_SAMPLES = 160
#: A frame is loud when its energy is this much above the request's quiet frames.
LOUD_DB = 12.0
#: The request's quiet level: this percentile of its frames' energies.
FLOOR_PERCENTILE = 10


class FrameEnergy:
    """The log energy of each 10 ms frame of a request, as its sound comes in pieces."""

    def __init__(self) -> None:
        self._left = np.zeros(0, dtype=np.float64)
        self._db: list[np.ndarray] = []

    def add(self, pcm: bytes) -> None:
        data = np.concatenate([self._left, np.frombuffer(pcm, dtype="<i2").astype(np.float64)])
        whole = len(data) - len(data) % FRAME_SAMPLES
        frames = data[:whole].reshape(-1, FRAME_SAMPLES)
        self._db.append(10.0 * np.log10(np.mean(frames**2, axis=1) + 1.0))
        self._left = data[whole:]

    def db(self) -> np.ndarray:
        return np.concatenate(self._db) if self._db else np.zeros(0)


def covered(energy: np.ndarray, spans: Iterable[tuple[int, int]]) -> float:
    """The share of the loud frames that lie inside ``spans`` (first and last frame of
    each word heard, inclusive); 1.0 when no frame is loud (nothing to account for)."""
    if not len(energy):
        return 1.0
    loud = energy > np.percentile(energy, FLOOR_PERCENTILE) + LOUD_DB
    total = int(loud.sum())
    if not total:
        return 1.0
    inside = np.zeros(len(energy), dtype=bool)
    for first, last in spans:
        inside[max(0, first) : max(0, last + 1)] = True
    return float((loud & inside).sum()) / total
