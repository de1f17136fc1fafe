"""The engines of one process, built once from `sources/voice.yaml`.

The recogniser (its model is the slow part to load) and the voice are shared
by every pipeline; a wake word and an end-of-speech detector keep state per
stream, so each pipeline (each satellite) gets its own from `wake_word` and
`endpoint`. Nothing here is imported by a text-only command.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from mnemolis.voice.earcon import tones
from mnemolis.voice.endpoint import SpeechEndpoint
from mnemolis.voice.settings import VoiceSettings, load_voice_settings
from mnemolis.voice.speak import EspeakVoice
from mnemolis.voice.stages import Audio, EndOfSpeech, Recogniser, StageError, Voice, WakeWord
from mnemolis.voice.wake import MicroWakeWordEngine

if TYPE_CHECKING:
    from mnemolis.config import Config


def load_recogniser(config: Config, settings: VoiceSettings, state_dir: Path) -> Recogniser:
    """The configured recogniser (`mnemolis.voice.recognise`), compiled from ``config``."""
    try:
        module = importlib.import_module("mnemolis.voice.recognise")
    except ImportError as exc:
        raise StageError(
            f"no recogniser is installed with this Mnemolis (mnemolis.voice.recognise: {exc})"
        ) from exc
    create = getattr(module, "create_recogniser", None)
    if create is None:
        raise StageError("mnemolis.voice.recognise has no create_recogniser")
    recogniser: Recogniser = create(config, settings, state_dir)
    return recogniser


async def load_kit(config: Config, state_dir: Path) -> VoiceKit:
    """The kit of `sources/voice.yaml`, its recogniser built (in a thread) and ready;
    `StageError` with a sentence when it cannot be (`ConfigError` for a wrong file)."""
    settings = load_voice_settings(config)
    recogniser = await asyncio.to_thread(load_recogniser, config, settings, state_dir)
    ready = getattr(recogniser, "ready", None)
    if ready is not None:  # a recogniser that compiles its model in the background
        try:
            await ready()
        except StageError:
            raise
        except Exception as exc:
            raise StageError(f"the recogniser could not be built: {exc}") from exc
    return VoiceKit(settings, recogniser)


class VoiceKit:
    """What every pipeline of this process shares, and makes what each needs its own."""

    def __init__(
        self, settings: VoiceSettings, recogniser: Recogniser, voice: Voice | None = None
    ) -> None:
        self.settings = settings
        self.recogniser = recogniser
        self.voice: Voice = voice if voice is not None else EspeakVoice(settings.voice)
        self.start_earcon = tones(settings.start)
        self.stop_earcon = tones(settings.stop)

    def wake_word(self) -> WakeWord:
        wake = self.settings.wake
        return MicroWakeWordEngine(wake.model, wake.threshold)

    def endpoint(self) -> EndOfSpeech:
        return SpeechEndpoint(self.settings.speech)

    def earcon(self, start: bool) -> Audio | None:
        if not self.settings.earcons:
            return None
        return self.start_earcon if start else self.stop_earcon
