"""`mnemolis doctor` for the Wyoming engines of `sources/voice.yaml`: each one named, what
it says it is (``describe``), and what it answered to a real request, since an
engine's "ready" proves nothing (wyoming-piper without its voice says ready and
fails every request). The recogniser is asked to hear a sentence the voice says,
the voice to say "ok"; the wake service gets a second of silence."""

from __future__ import annotations

import time

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.info import Describe, Info

from mnemolis.sources.base import Finding, Level
from mnemolis.voice.remote import Connection, WyomingRecogniser, WyomingVoice
from mnemolis.voice.settings import VoiceSettings
from mnemolis.voice.stages import Audio, StageError

SAMPLE = "what time is it"
PAUSE_S = 1
FIX = (
    "the embedded engine answers meanwhile; the service's own log says why (docs/voice-network.md)"
)


async def remote_findings(settings: VoiceSettings, language: str) -> list[Finding]:
    remote = settings.wyoming
    found = []
    if remote.asr is not None:
        found.append(await _asr(remote.asr, remote.timeout_s, settings, language))
    if remote.tts is not None:
        found.append(await _tts(remote.tts, remote.timeout_s, remote.tts_voice))
    if remote.wake is not None:
        found.append(await _wake(remote.wake, remote.timeout_s))
    return found


async def describe(uri: str, timeout_s: float) -> str:
    """What the service says it is: its programs and their models, in a few words."""
    async with Connection(uri, timeout_s, f"the service at {uri}") as link:
        await link.send(Describe().event())
        deadline = time.monotonic() + timeout_s
        while not Info.is_type((event := await link.receive(deadline)).type):
            continue
    info = Info.from_event(event)
    offered: list[tuple[str, list[str]]] = [
        *((p.name, [m.name for m in p.models]) for p in info.asr),
        *((p.name, [v.name for v in p.voices]) for p in info.tts),
        *((p.name, [m.name for m in p.models]) for p in info.wake),
    ]
    names = [f"{name} ({', '.join(models) or 'no models'})" for name, models in offered]
    return ", ".join(names) or "nothing it offers"


async def _asr(uri: str, timeout_s: float, settings: VoiceSettings, language: str) -> Finding:
    from mnemolis.voice.speak import EspeakVoice

    what = f"recogniser {uri}"
    try:
        about = await describe(uri, timeout_s)
        spoken = await EspeakVoice(settings.voice).synthesize(SAMPLE)
        pause = bytes(PAUSE_S * 16000 * 2)  # as a person says it: silence around it
        sample = Audio(pause + spoken.pcm + pause)
        started = time.perf_counter()
        heard = await WyomingRecogniser(uri, timeout_s, language).transcribe(sample)
    except StageError as exc:
        return Finding(what, Level.WARNING, str(exc), FIX)
    ms = (time.perf_counter() - started) * 1000
    said = f"{about}: heard {SAMPLE!r} as {heard.text!r} in {ms:.0f} ms"
    level = Level.OK if heard.text else Level.WARNING
    return Finding(what, level, said, "" if heard.text else FIX)


async def _tts(uri: str, timeout_s: float, voice: str | None) -> Finding:
    what = f"voice {uri}"
    try:
        about = await describe(uri, timeout_s)
        started = time.perf_counter()
        spoken = await WyomingVoice(uri, timeout_s, voice).synthesize("ok")
    except StageError as exc:
        return Finding(what, Level.WARNING, str(exc), FIX)
    ms = (time.perf_counter() - started) * 1000
    return Finding(
        what, Level.OK, f"{about}: said 'ok' in {spoken.seconds:.2f} s of sound ({ms:.0f} ms)"
    )


async def _wake(uri: str, timeout_s: float) -> Finding:
    what = f"wake word {uri}"
    try:
        about = await describe(uri, timeout_s)
        async with Connection(uri, timeout_s, f"the wake word at {uri}") as link:
            await link.send(AudioStart(rate=16000, width=2, channels=1).event())
            await link.send(AudioChunk(rate=16000, width=2, channels=1, audio=bytes(32000)).event())
            await link.send(AudioStop().event())
    except StageError as exc:
        return Finding(what, Level.WARNING, str(exc), FIX)
    return Finding(what, Level.OK, f"{about}: took a second of sound")
