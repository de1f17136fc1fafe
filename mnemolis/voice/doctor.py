"""`mnemolis doctor` for voice: each stage's engine found, its model loaded, the
microphone and speaker present, espeak-ng present and speaking.

Reported when voice is configured: the owner's directory has a
`sources/voice.yaml`, or the voice extra is installed. A missing microphone
is a warning (a daemon serving satellites needs none); an engine that cannot
load is broken.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from mnemolis.config import Config, ConfigError
from mnemolis.core.state_dir import state_dir
from mnemolis.sources.base import Finding, Level
from mnemolis.voice.doctor_remote import remote_findings
from mnemolis.voice.settings import STEM, VoiceSettings, load_voice_settings
from mnemolis.voice.stages import StageError

CHECK = "voice"
INSTALL = "pip install 'mnemolis[voice]'"


def configured(config: Config) -> bool:
    owners = [p for p in config.source_paths.get(STEM, []) if not _shipped(config, p)]
    return bool(owners) or importlib.util.find_spec("pymicro_wakeword") is not None


def _shipped(config: Config, path: Path) -> bool:
    from mnemolis.core.config_dir import bundled_config_dir

    return path.resolve().is_relative_to(bundled_config_dir().resolve())


async def voice_findings(config: Config) -> list[Finding]:
    if not configured(config):
        return []
    try:
        settings = load_voice_settings(config)
    except ConfigError as exc:
        return [Finding(CHECK, Level.BROKEN, str(exc), "fix sources/voice.yaml")]
    return [
        _wake(settings),
        _endpoint(settings),
        await asyncio.to_thread(_recogniser, config, settings),
        _device(settings, "input"),
        _device(settings, "output"),
        await _voice(settings),
        *await remote_findings(settings, config.language.code),
    ]


def _wake(settings: VoiceSettings) -> Finding:
    from mnemolis.voice.wake import load_model

    try:
        model = load_model(settings.wake.model, settings.wake.threshold)
    except StageError as exc:
        return Finding("wake word", Level.BROKEN, str(exc), INSTALL)
    said = f"{model.wake_word!r} ({settings.wake.model}, cut-off {model.probability_cutoff:g})"
    return Finding("wake word", Level.OK, f"pymicro-wakeword model loaded: {said}")


def _endpoint(settings: VoiceSettings) -> Finding:
    from mnemolis.voice.endpoint import SpeechEndpoint

    speech = settings.speech
    try:
        SpeechEndpoint(speech)
    except StageError as exc:
        return Finding("speech", Level.BROKEN, str(exc), INSTALL)
    engine = "pymicro-vad" if speech.engine == "vad" else "loudness"
    return Finding(
        "speech",
        Level.OK,
        f"end of speech by {engine}: {speech.silence_s:g} s of silence ends a request",
    )


def _recogniser(config: Config, settings: VoiceSettings) -> Finding:
    from mnemolis.voice.engines import load_recogniser

    if importlib.util.find_spec("mnemolis.voice.recognise") is None:
        return Finding(
            "recogniser",
            Level.WARNING,
            "no embedded recogniser in this build: spoken requests cannot be heard",
            "install a Mnemolis with mnemolis.voice.recognise",
        )
    try:
        recogniser = load_recogniser(config, settings, state_dir())
        wait = getattr(recogniser, "wait_ready", None)
        if wait is not None:
            wait(120)
    except Exception as exc:  # a recogniser that cannot load is itself the finding
        return Finding("recogniser", Level.BROKEN, f"cannot load: {exc}", INSTALL)
    return Finding("recogniser", Level.OK, f"{recogniser.name} loaded")


def _device(settings: VoiceSettings, kind: str) -> Finding:
    from mnemolis.voice.inputs import find_device
    from mnemolis.voice.stages import BadAudio

    what = "microphone" if kind == "input" else "speaker"
    command = settings.input.command if kind == "input" else settings.output.command
    if command:
        import shutil

        if shutil.which(command[0]) is None:
            return Finding(
                what, Level.BROKEN, f"{command[0]} is not installed", "apt-get install alsa-utils"
            )
        return Finding(what, Level.OK, f"through {' '.join(command)}")
    name = settings.input.microphone if kind == "input" else settings.output.speaker
    try:
        find_device(name, kind)
    except BadAudio as exc:
        level = Level.BROKEN if name != "default" else Level.WARNING
        key = "input.microphone" if kind == "input" else "output.speaker"
        fix = f"plug one in, or name another as {key} in sources/voice.yaml (or set a command)"
        return Finding(what, level, str(exc), fix)
    return Finding(what, Level.OK, f"{name!r} found")


async def _voice(settings: VoiceSettings) -> Finding:
    from mnemolis.voice.speak import EspeakVoice

    voice = EspeakVoice(settings.voice)
    try:
        audio = await voice.synthesize("ok")
    except StageError as exc:
        return Finding("espeak-ng", Level.BROKEN, str(exc), "apt-get install espeak-ng")
    return Finding(
        "espeak-ng",
        Level.OK,
        f"speaks with voice {settings.voice.voice} ({audio.seconds:.2f} s for 'ok')",
    )
