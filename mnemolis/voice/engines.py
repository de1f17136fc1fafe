"""The engines of one process, built once from `sources/voice.yaml`.

The recogniser (its model is the slow part to load) and the voice are shared
by every pipeline; a wake word and an end-of-speech detector keep state per
stream, so each pipeline (each satellite) gets its own from `wake_word` and
`endpoint`. Nothing here is imported by a text-only command.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
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
    from mnemolis.voice.fallback import Health

log = logging.getLogger(__name__)


def load_recogniser(
    config: Config, settings: VoiceSettings, state_dir: Path, registry: object | None = None
) -> Recogniser:
    """The configured recogniser (`mnemolis.voice.recognise`), compiled from ``config``;
    ``registry``: the running home's devices (discovered ones too), which it follows."""
    try:
        module = importlib.import_module("mnemolis.voice.recognise")
    except ImportError as exc:
        raise StageError(
            f"no recogniser is installed with this Mnemolis (mnemolis.voice.recognise: {exc})"
        ) from exc
    create = getattr(module, "create_recogniser", None)
    if create is None:
        raise StageError("mnemolis.voice.recognise has no create_recogniser")
    from mnemolis.voice.kept_names import kept_names

    names = kept_names(state_dir)
    recogniser: Recogniser = create(config, settings, state_dir, registry, names)
    return recogniser


async def load_kit(config: Config, state_dir: Path, registry: object | None = None) -> VoiceKit:
    """The kit of `sources/voice.yaml`, its recogniser built (in a thread) and ready, the
    Wyoming engines it names in front of the embedded ones; `StageError` with a sentence
    when there is no recogniser at all (`ConfigError` for a wrong file). ``registry``: the
    daemon's devices, discovered ones included, for the recogniser to learn their names."""
    settings = load_voice_settings(config)
    remote = settings.wyoming
    embedded: Recogniser | None = None
    try:
        embedded = await _embedded_recogniser(config, settings, state_dir, registry)
    except StageError as exc:
        if remote.asr is None:
            raise
        log.warning("the embedded recogniser cannot be loaded (%s): only %s hears", exc, remote.asr)
    recogniser: Recogniser
    if remote.asr is not None:
        from mnemolis.voice.fallback import FallbackRecogniser
        from mnemolis.voice.remote import WyomingRecogniser

        asr = WyomingRecogniser(remote.asr, remote.timeout_s, config.language.code)
        recogniser = asr if embedded is None else FallbackRecogniser(asr, embedded, remote.retry_s)
    else:
        assert embedded is not None
        recogniser = embedded
    voice: Voice = EspeakVoice(settings.voice)
    if remote.tts is not None:
        from mnemolis.voice.fallback import FallbackVoice
        from mnemolis.voice.remote import WyomingVoice

        tts = WyomingVoice(remote.tts, remote.timeout_s, remote.tts_voice)
        voice = FallbackVoice(tts, voice, remote.retry_s)
    return VoiceKit(settings, recogniser, voice)


async def _embedded_recogniser(
    config: Config, settings: VoiceSettings, state_dir: Path, registry: object | None
) -> Recogniser:
    load = load_recogniser
    if registry is None:
        recogniser = await asyncio.to_thread(load, config, settings, state_dir)
    else:
        recogniser = await asyncio.to_thread(load, config, settings, state_dir, registry)
    ready = getattr(recogniser, "ready", None)
    if ready is not None:  # a recogniser that compiles its model in the background
        try:
            await ready()
        except StageError:
            raise
        except Exception as exc:
            raise StageError(f"the recogniser could not be built: {exc}") from exc
    return recogniser


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
        self.wake_health: Health | None = None
        remote = settings.wyoming
        if remote.wake is not None:
            from mnemolis.voice.fallback import Health

            embedded = f"the embedded wake word ({settings.wake.model})"
            self.wake_health = Health(f"the wake word {remote.wake}", embedded, remote.retry_s)

    def wake_word(self) -> WakeWord:
        wake = self.settings.wake
        embedded = MicroWakeWordEngine(wake.model, wake.threshold)
        remote = self.settings.wyoming
        if remote.wake is None or self.wake_health is None:
            return embedded
        from mnemolis.voice.remote_wake import WyomingWakeWord

        names = remote.wake_names
        return WyomingWakeWord(remote.wake, names, embedded, remote.timeout_s, self.wake_health)

    def endpoint(self) -> EndOfSpeech:
        return SpeechEndpoint(self.settings.speech)

    def earcon(self, start: bool) -> Audio | None:
        if not self.settings.earcons:
            return None
        return self.start_earcon if start else self.stop_earcon
