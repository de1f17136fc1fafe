"""The wake word: pymicro-wakeword's shipped models ("okay nabu", "hey jarvis", ...).

One detector per stream (it keeps features and probabilities between chunks),
so every satellite's pipeline has its own; the TensorFlow Lite model file is
shipped inside the wheel. Chunks may be of any length: they are cut into the
10 ms windows the model's feature frontend reads.
"""

from __future__ import annotations

from typing import Any

from mnemolis.voice.stages import Audio, StageError


def load_model(model: str, threshold: float | None = None) -> Any:
    """The pymicro-wakeword detector for ``model``; `StageError` when it cannot load."""
    try:
        from pymicro_wakeword import MicroWakeWord, Model
    except ImportError as exc:  # the voice extra is not installed
        raise StageError(
            f"the wake word needs pymicro-wakeword: pip install 'mnemolis[voice]' ({exc})"
        ) from exc
    try:
        detector = MicroWakeWord.from_builtin(Model(model))
    except (ValueError, OSError) as exc:
        raise StageError(f"the wake word model {model} could not be loaded: {exc}") from exc
    if threshold is not None:
        detector.probability_cutoff = threshold
    return detector


class MicroWakeWordEngine:
    """`stages.WakeWord` with a pymicro-wakeword model."""

    def __init__(self, model: str = "okay_nabu", threshold: float | None = None) -> None:
        from pymicro_wakeword import MicroWakeWordFeatures

        self.name = model
        self.detector = load_model(model, threshold)
        self.features = MicroWakeWordFeatures()
        self.best = 0.0  # the highest probability since the last reset (for doctor, tests)

    @property
    def phrase(self) -> str:
        """What to say: "Okay Nabu"."""
        return str(self.detector.wake_word)

    def process(self, chunk: Audio) -> str | None:
        fired = False
        for features in self.features.process_streaming(chunk.pcm):
            probability = self.detector.process_streaming_prob(features)
            if probability is None:
                continue
            self.best = max(self.best, probability)
            fired = fired or probability > self.detector.probability_cutoff
        return self.name if fired else None

    def reset(self) -> None:
        self.detector.reset()
        self.features.reset()
        self.best = 0.0
