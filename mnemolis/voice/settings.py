"""`sources/voice.yaml`: every voice stage's settings, checked with file and line.

Read once into frozen dataclasses, the owner's file over the shipped one (keys
left out are the shipped ones). `mnemolis check` reads it as `listen` will, so a
wrong value is an error before anything listens. The ``recogniser:`` block is
the recogniser's own and is handed to it as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import At, Config, ConfigError
from mnemolis.config.bundled import bundled_source_yaml, merged
from mnemolis.config.yaml_at import as_mapping, as_text

STEM = "voice"
WAKE_MODELS = ("okay_nabu", "hey_jarvis", "hey_mycroft", "alexa")
VAD_ENGINES = ("vad", "energy")
VOICE_ENGINES = ("espeak-ng",)
SECTIONS = (
    "room",
    "input",
    "wake",
    "end_of_speech",
    "limits",
    "voice",
    "output",
    "earcons",
    "recogniser",
    "replies",
    "wyoming",
)


@dataclass(frozen=True)
class InputSettings:
    microphone: str = "default"
    command: tuple[str, ...] = ()
    rate: int = 16000
    channels: int = 1


@dataclass(frozen=True)
class WakeSettings:
    model: str = "okay_nabu"
    threshold: float | None = None


@dataclass(frozen=True)
class SpeechSettings:
    """End of speech: when a request starts and when it has ended."""

    engine: str = "vad"
    threshold: float = 0.5
    floor_dbfs: float = -50.0
    speech_s: float = 0.1
    silence_s: float = 0.5
    start_timeout_s: float = 6.0
    #: a request is heard from this long before the detector said speech started (it
    #: starts late); what came earlier since listening started is not heard
    preroll_s: float = 1.0


@dataclass(frozen=True)
class Limits:
    max_request_s: float = 20.0
    clipped_fraction: float = 0.02


@dataclass(frozen=True)
class VoiceEngine:
    engine: str = "espeak-ng"
    voice: str = "en-us"
    speed: int = 165
    pitch: int = 50
    volume: int = 100


@dataclass(frozen=True)
class OutputSettings:
    speaker: str = "default"
    command: tuple[str, ...] = ()


@dataclass(frozen=True)
class Earcon:
    tones: tuple[float, ...] = (660.0, 880.0)
    tone_ms: float = 70.0
    volume: float = 0.3


@dataclass(frozen=True)
class RemoteEngines:
    """Wyoming services that replace an embedded engine (None: the embedded one)."""

    asr: str | None = None  # tcp://HOST:PORT of wyoming-faster-whisper, speech-to-phrase ...
    tts: str | None = None  # wyoming-piper ...
    wake: str | None = None  # wyoming-openwakeword, wyoming-microwakeword
    tts_voice: str | None = None  # the voice the tts service should speak with
    wake_names: tuple[str, ...] = ()  # the wake words the wake service should listen for
    timeout_s: float = 15.0  # an engine silent this long has failed this request
    retry_s: float = 30.0  # after a failure the embedded engine answers this long


@dataclass(frozen=True)
class VoiceSettings:
    """Everything `sources/voice.yaml` decides."""

    room: str | None = None
    input: InputSettings = field(default_factory=InputSettings)
    wake: WakeSettings = field(default_factory=WakeSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    limits: Limits = field(default_factory=Limits)
    voice: VoiceEngine = field(default_factory=VoiceEngine)
    output: OutputSettings = field(default_factory=OutputSettings)
    earcons: bool = True
    start: Earcon = field(default_factory=Earcon)
    stop: Earcon = field(default_factory=lambda: Earcon((880.0, 587.0)))
    recogniser: dict[str, Any] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    wyoming: RemoteEngines = field(default_factory=RemoteEngines)

    def say(self, key: str, **fields: str) -> str:
        from mnemolis.config.bundled import fill

        return fill(self.replies.get(key, key), **fields)


def load_voice_settings(config: Config) -> VoiceSettings:
    """The settings, or `ConfigError` naming the file and line of the first wrong value."""
    at = At(config.source_path(STEM))
    raw = as_mapping(config.sources.get(STEM), at, "the file")
    for key in raw:
        if key not in SECTIONS:
            raise (at / key).error(f"unknown key {key!r} (one of {', '.join(SECTIONS)})")
    values = merged(raw, bundled_source_yaml(STEM))
    read = _Reader(values, at)
    room = values.get("room")
    earcons = read.section("earcons")
    return VoiceSettings(
        room=" ".join(as_text(room, at / "room", "room").lower().split()) or None
        if room is not None
        else None,
        input=InputSettings(
            microphone=read.text("input", "microphone"),
            command=read.command("input"),
            rate=int(read.number("input", "rate", 4000, 192000, whole=True)),
            channels=int(read.number("input", "channels", 1, 32, whole=True)),
        ),
        wake=WakeSettings(
            model=read.choice("wake", "model", WAKE_MODELS),
            threshold=read.optional_number("wake", "threshold", 0.0, 1.0),
        ),
        speech=SpeechSettings(
            engine=read.choice("end_of_speech", "engine", VAD_ENGINES),
            threshold=read.number("end_of_speech", "threshold", 0.0, 1.0),
            floor_dbfs=read.number("end_of_speech", "floor_dbfs", -120.0, 0.0),
            speech_s=read.number("end_of_speech", "speech_s", 0.01, 5.0),
            silence_s=read.number("end_of_speech", "silence_s", 0.1, 10.0),
            start_timeout_s=read.number("end_of_speech", "start_timeout_s", 0.5, 120.0),
            preroll_s=read.number("end_of_speech", "preroll_s", 0.0, 10.0),
        ),
        limits=Limits(
            max_request_s=read.number("limits", "max_request_s", 1.0, 300.0),
            clipped_fraction=read.number("limits", "clipped_fraction", 0.0, 1.0),
        ),
        voice=VoiceEngine(
            engine=read.choice("voice", "engine", VOICE_ENGINES),
            voice=read.text("voice", "voice"),
            speed=int(read.number("voice", "speed", 80, 500, whole=True)),
            pitch=int(read.number("voice", "pitch", 0, 99, whole=True)),
            volume=int(read.number("voice", "volume", 0, 200, whole=True)),
        ),
        output=OutputSettings(
            speaker=read.text("output", "speaker"), command=read.command("output")
        ),
        earcons=read.flag("earcons", "enabled"),
        start=read.earcon(earcons, "start"),
        stop=read.earcon(earcons, "stop"),
        recogniser=as_mapping(values.get("recogniser"), at / "recogniser", "recogniser"),
        replies={str(k): str(v) for k, v in read.section("replies").items()},
        wyoming=RemoteEngines(
            asr=read.uri("wyoming", "asr"),
            tts=read.uri("wyoming", "tts"),
            wake=read.uri("wyoming", "wake"),
            tts_voice=read.optional_text("wyoming", "tts_voice"),
            wake_names=read.names("wyoming", "wake_names"),
            timeout_s=read.number("wyoming", "timeout_s", 0.5, 600.0),
            retry_s=read.number("wyoming", "retry_s", 1.0, 3600.0),
        ),
    )


def check_settings(config: Config) -> None:
    """For `mnemolis check`: the file reads as `listen` will read it."""
    load_voice_settings(config)


class _Reader:
    """Typed values of one section, each wrong one a `ConfigError` at its line."""

    def __init__(self, values: dict[str, Any], at: At) -> None:
        self.values = values
        self.at = at

    def section(self, name: str) -> dict[str, Any]:
        return as_mapping(self.values.get(name), self.at / name, name)

    def _value(self, section: str, key: str) -> tuple[Any, At]:
        return self.section(section).get(key), self.at / section / key

    def text(self, section: str, key: str) -> str:
        value, at = self._value(section, key)
        text = as_text(value, at, f"{section}.{key}").strip()
        if not text:
            raise at.error(f"{section}.{key} must not be empty")
        return text

    def optional_text(self, section: str, key: str) -> str | None:
        value, _at = self._value(section, key)
        return None if value is None else self.text(section, key)

    def uri(self, section: str, key: str) -> str | None:
        """A Wyoming service's address: tcp://HOST:PORT or unix:///path, or null."""
        text = self.optional_text(section, key)
        if text is None:
            return None
        host, _, port = text.removeprefix("tcp://").rpartition(":")
        tcp = text.startswith("tcp://") and bool(host) and port.isdigit() and 0 < int(port) < 65536
        if not (tcp or (text.startswith("unix:///") and len(text) > 8)):
            raise (self.at / section / key).error(
                f"{section}.{key} must be tcp://HOST:PORT or unix:///path, not {text!r}"
            )
        return text

    def names(self, section: str, key: str) -> tuple[str, ...]:
        value, at = self._value(section, key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise at.error(f"{section}.{key} must be a list of names ([okay_nabu])")
        return tuple(value)

    def choice(self, section: str, key: str, choices: tuple[str, ...]) -> str:
        text = self.text(section, key)
        if text not in choices:
            raise (self.at / section / key).error(
                f"{section}.{key} must be one of {', '.join(choices)}, not {text!r}"
            )
        return text

    def number(self, section: str, key: str, low: float, high: float, whole: bool = False) -> float:
        value, at = self._value(section, key)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not low <= value <= high or (whole and value != int(value)):
            kind = "a whole number" if whole else "a number"
            raise at.error(
                f"{section}.{key} must be {kind} from {low:g} to {high:g}, not {value!r}"
            )
        return float(value)

    def optional_number(self, section: str, key: str, low: float, high: float) -> float | None:
        value, _at = self._value(section, key)
        return None if value is None else self.number(section, key, low, high)

    def flag(self, section: str, key: str) -> bool:
        value, at = self._value(section, key)
        if not isinstance(value, bool):
            raise at.error(f"{section}.{key} must be true or false, not {value!r}")
        return value

    def command(self, section: str) -> tuple[str, ...]:
        value, at = self._value(section, "command")
        if value is None:
            return ()
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(w, str | int | float) and not isinstance(w, bool) for w in value)
        ):
            raise at.error(
                f"{section}.command must be a program and its arguments as a list "
                '(["arecord", "-q", ...]), not ' + repr(value)
            )
        return tuple(str(w) for w in value)

    def earcon(self, earcons: dict[str, Any], name: str) -> Earcon:
        at = self.at / "earcons" / name
        raw = as_mapping(earcons.get(name), at, f"earcons.{name}")
        tones = raw.get("tones")
        if not isinstance(tones, list) or not tones or not all(_hz(t) for t in tones):
            raise (at / "tones").error(
                f"earcons.{name}.tones must be a list of frequencies from 50 to 8000 Hz"
            )
        sub = _Reader({name: raw}, self.at / "earcons")
        return Earcon(
            tuple(float(t) for t in tones),
            sub.number(name, "tone_ms", 10.0, 1000.0),
            sub.number(name, "volume", 0.0, 1.0),
        )


def _hz(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 50 <= value <= 8000


__all__ = ["ConfigError", "VoiceSettings", "check_settings", "load_voice_settings"]
